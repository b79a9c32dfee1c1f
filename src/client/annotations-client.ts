import type { Annotation, AnnotationFilter, AnnotationPatch, NewAnnotation } from '../common/annotation-contract.js';
import { InputError } from '../common/errors.js';
import { createTransport, type TransportOptions } from './transport.js';

export type ClientOptions = TransportOptions;

export interface CreateOptions {
  /**
   * Also retry failures after which the service may already have stored the annotation
   * (timeouts, dropped connections, 5xx). A retry then risks a duplicate, so it is off unless asked.
   */
  retryAmbiguousFailures?: boolean;
}

export interface AnnotationsClient {
  create(annotation: NewAnnotation, options?: CreateOptions): Promise<Annotation>;
  list(filter?: AnnotationFilter): Promise<Annotation[]>;
  get(id: string): Promise<Annotation>;
  update(id: string, patch: AnnotationPatch): Promise<Annotation>;
  delete(id: string): Promise<void>;
  close(): Promise<void>;
}

/** The `/v2/annotations` API over the shared transport. Every failure is an ApiError. */
export function createAnnotationsClient(options: ClientOptions): AnnotationsClient {
  const transport = createTransport(options);
  return {
    create: (annotation, createOptions) =>
      transport.send<Annotation>({
        method: 'POST',
        path: '/v2/annotations',
        body: { json: annotation },
        idempotent: false,
        retryAmbiguous: createOptions?.retryAmbiguousFailures === true,
      }),
    list: (filter = {}) => transport.send<Annotation[]>({ method: 'GET', path: `/v2/annotations${listQuery(filter)}`, idempotent: true }),
    get: (id) => transport.send<Annotation>({ method: 'GET', path: `/v2/annotations/${encodeId(id)}`, idempotent: true }),
    update: (id, patch) => transport.send<Annotation>({ method: 'PUT', path: `/v2/annotations/${encodeId(id)}`, body: { json: patch }, idempotent: true }),
    delete: (id) => transport.send<void>({ method: 'DELETE', path: `/v2/annotations/${encodeId(id)}`, idempotent: true }),
    close: () => transport.close(),
  };
}

function listQuery(filter: AnnotationFilter): string {
  const params = new URLSearchParams();
  const datasets = (filter.datasets ?? []).filter((name) => name.length > 0);
  if (datasets.length > 0) params.set('datasets', datasets.join(','));
  if (filter.start) params.set('start', filter.start);
  if (filter.end) params.set('end', filter.end);
  const query = params.toString();
  return query ? `?${query}` : '';
}

function encodeId(id: string): string {
  if (!id) throw new InputError('An annotation id is required. Expected an id such as ann_1a2b3c.');
  return encodeURIComponent(id);
}
