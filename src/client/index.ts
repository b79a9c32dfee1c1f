export { createAnnotationsClient, parseServiceUrl, CLIENT_DEFAULTS } from './annotations-client.js';
export type { AnnotationsClient, ClientOptions, CreateOptions, RetryEvent } from './annotations-client.js';
export { ApiError } from './api-error.js';
export type { Annotation, AnnotationFilter, AnnotationPatch, NewAnnotation } from './types.js';
