export { createAnnotationsClient } from './annotations-client.js';
export type { AnnotationsClient, ClientOptions, CreateOptions } from './annotations-client.js';
export { createEventsClient } from './events-client.js';
export type { AplQuery, AplTable, AplTabularResult, DatasetField, EventsClient, IngestRequest, IngestStatus } from './events-client.js';
export { CLIENT_DEFAULTS, createTransport, parseServiceUrl } from './transport.js';
export type { RequestBody, RetryEvent, Transport, TransportOptions, TransportRequest } from './transport.js';
export { ApiError } from './api-error.js';
export type { Annotation, AnnotationFilter, AnnotationPatch, NewAnnotation } from '../common/annotation-contract.js';
