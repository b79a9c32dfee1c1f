import { Agent, request, type Dispatcher } from 'undici';
import { ApiError } from './api-error.js';
import { backoffDelay, requestedDelay, sleep } from './retry.js';
import type { Annotation, AnnotationFilter, AnnotationPatch, NewAnnotation } from './types.js';

export interface ClientOptions {
  /** The service root, e.g. `https://api.axiom.co` or `http://127.0.0.1:8080`. */
  url: string;
  /** An API token (`xaat-…`) or a personal token (`xapt-…`, which needs `orgId`). */
  token: string;
  orgId?: string;
  /** Per-attempt time limit. */
  timeoutMs?: number;
  /** Further attempts after the first one fails in a retryable way. */
  retries?: number;
  /** First backoff step; each retry doubles the ceiling, with full jitter. */
  baseDelayMs?: number;
  /** Longest wait before one retry; a rate limit asking for longer fails at once. */
  maxDelayMs?: number;
  userAgent?: string;
  /** Called before each retry, e.g. to log a warning. */
  onRetry?: (event: RetryEvent) => void;
  dispatcher?: Dispatcher;
}

export interface RetryEvent {
  method: string;
  path: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

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

export const CLIENT_DEFAULTS = {
  timeoutMs: 10_000,
  retries: 3,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
} as const;

/** Failures that happen before the request reaches the service, so a retry cannot duplicate. */
const NOT_SENT_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);

type Safety = 'idempotent' | 'create' | 'create-ambiguous-ok';

interface Attempt {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  safety: Safety;
}

export function createAnnotationsClient(options: ClientOptions): AnnotationsClient {
  const base = parseServiceUrl(options.url);
  if (!options.token) throw new TypeError('A token is required. Expected an API token (xaat-…) or a personal token (xapt-…).');
  const settings = { ...CLIENT_DEFAULTS, ...definedOnly(options) };
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 32 });

  const headers: Record<string, string> = {
    authorization: `Bearer ${options.token}`,
    accept: 'application/json',
    'user-agent': options.userAgent ?? 'timemark-client',
  };
  if (options.orgId) headers['x-axiom-org-id'] = options.orgId;

  async function send<T>(attempt: Attempt): Promise<T> {
    for (let tryNumber = 1; ; tryNumber++) {
      const outcome = await sendOnce<T>(attempt, tryNumber);
      if (outcome.kind === 'ok') return outcome.value;
      const retriesLeft = tryNumber <= settings.retries;
      const delay = outcome.retry && retriesLeft ? chooseDelay(outcome.requestedDelayMs, tryNumber) : undefined;
      if (delay === undefined) throw outcome.error;
      options.onRetry?.({ method: attempt.method, path: attempt.path, attempt: tryNumber, delayMs: delay, reason: outcome.error.message });
      await sleep(delay);
    }
  }

  function chooseDelay(requested: number | undefined, tryNumber: number): number | undefined {
    if (requested === undefined) return backoffDelay(tryNumber - 1, settings);
    return requested <= settings.maxDelayMs ? requested : undefined;
  }

  type Outcome<T> =
    | { kind: 'ok'; value: T }
    | { kind: 'failed'; error: ApiError; retry: boolean; requestedDelayMs?: number };

  async function sendOnce<T>(attempt: Attempt, tryNumber: number): Promise<Outcome<T>> {
    const requestHeaders = { ...headers };
    let body: string | undefined;
    if (attempt.body !== undefined) {
      body = JSON.stringify(attempt.body);
      requestHeaders['content-type'] = 'application/json';
    }
    let response: Dispatcher.ResponseData;
    try {
      response = await request(base.origin + base.prefix + attempt.path, {
        method: attempt.method,
        headers: requestHeaders,
        body,
        dispatcher,
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
    } catch (cause) {
      const code = errorCode(cause);
      const notSent = code !== undefined && NOT_SENT_ERROR_CODES.has(code);
      const timedOut = cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError');
      const reason = timedOut ? `no answer within ${settings.timeoutMs} ms` : describeNetworkError(cause);
      return {
        kind: 'failed',
        error: new ApiError({ method: attempt.method, path: attempt.path, attempts: tryNumber, cause, reason }),
        retry: attempt.safety !== 'create' || notSent,
      };
    }

    const text = await response.body.text();
    const traceId = headerValue(response.headers['x-axiom-trace-id']);
    if (response.statusCode >= 200 && response.statusCode < 300) {
      if (response.statusCode === 204 || text.length === 0) return { kind: 'ok', value: undefined as T };
      try {
        return { kind: 'ok', value: JSON.parse(text) as T };
      } catch (cause) {
        return {
          kind: 'failed',
          error: new ApiError({
            method: attempt.method,
            path: attempt.path,
            status: response.statusCode,
            serviceMessage: `the reply is not JSON: ${truncate(text)}`,
            traceId,
            attempts: tryNumber,
            cause,
          }),
          retry: false,
        };
      }
    }

    const error = new ApiError({
      method: attempt.method,
      path: attempt.path,
      status: response.statusCode,
      serviceMessage: serviceMessageOf(text),
      traceId,
      attempts: tryNumber,
    });
    if (response.statusCode === 429) {
      return { kind: 'failed', error, retry: true, requestedDelayMs: requestedDelay(response.headers) };
    }
    if (RETRYABLE_STATUSES.has(response.statusCode)) {
      // A 5xx may come after the service stored the annotation, so a create retries it only on request.
      return {
        kind: 'failed',
        error,
        retry: attempt.safety !== 'create',
        requestedDelayMs: response.statusCode === 503 ? requestedDelay(response.headers) : undefined,
      };
    }
    return { kind: 'failed', error, retry: false };
  }

  return {
    create: (annotation, createOptions) =>
      send<Annotation>({
        method: 'POST',
        path: '/v2/annotations',
        body: annotation,
        safety: createOptions?.retryAmbiguousFailures ? 'create-ambiguous-ok' : 'create',
      }),
    list: (filter = {}) => send<Annotation[]>({ method: 'GET', path: `/v2/annotations${listQuery(filter)}`, safety: 'idempotent' }),
    get: (id) => send<Annotation>({ method: 'GET', path: `/v2/annotations/${encodeId(id)}`, safety: 'idempotent' }),
    update: (id, patch) =>
      send<Annotation>({ method: 'PUT', path: `/v2/annotations/${encodeId(id)}`, body: patch, safety: 'idempotent' }),
    delete: (id) => send<void>({ method: 'DELETE', path: `/v2/annotations/${encodeId(id)}`, safety: 'idempotent' }),
    close: async () => {
      if (ownsDispatcher) await dispatcher.close();
    },
  };
}

/** Validates the service root once, so a typo fails before any request with a clear sentence. */
export function parseServiceUrl(url: string): { origin: string; prefix: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`Invalid service URL ${JSON.stringify(url)}. Expected an http:// or https:// address such as https://api.axiom.co.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`Invalid service URL ${JSON.stringify(url)}. Expected an http:// or https:// address such as https://api.axiom.co.`);
  }
  return { origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, '') };
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
  if (!id) throw new TypeError('An annotation id is required. Expected an id such as ann_1a2b3c.');
  return encodeURIComponent(id);
}

function serviceMessageOf(text: string): string | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && 'message' in parsed && typeof parsed.message === 'string') return parsed.message;
  } catch {
    // Not JSON (a proxy's HTML page, say): show the start of it instead.
  }
  return truncate(text);
}

function truncate(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function errorCode(error: unknown): string | undefined {
  if (error && typeof error === 'object') {
    if ('code' in error && typeof error.code === 'string') return error.code;
    if ('cause' in error) return errorCode(error.cause);
  }
  return undefined;
}

function describeNetworkError(error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
