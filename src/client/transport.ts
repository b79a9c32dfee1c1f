/**
 * The request core of every client of the service API (annotations today; ingest and query
 * next): the service root, the credentials, per-attempt time limits, and one classification of
 * every way a request can fail — before it is sent, while waiting for the status, while reading
 * the body — into an ApiError and a decision whether a retry is safe.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { backoffDelay } from '../common/backoff.js';
import { ConfigError } from '../common/errors.js';
import { redactUrl } from '../common/redact-url.js';
import { ApiError } from './api-error.js';
import { CONNECT_TIMEOUT_CODE, createHttpExchanger } from './http-exchange.js';
import { requestedDelay, sleep } from './retry.js';

export interface TransportOptions {
  /** The service root, e.g. `https://api.axiom.co` or `http://127.0.0.1:8080`. */
  url: string;
  /** An API token (`xaat-…`) or a personal token (`xapt-…`, which needs `orgId`). */
  token: string;
  orgId?: string;
  /** Per-attempt time limit, from sending to the end of the reply's body. */
  timeoutMs?: number;
  /** Further attempts after the first one fails in a retryable way. */
  retries?: number;
  /** First backoff step; each retry doubles it (see backoffDelay). */
  baseDelayMs?: number;
  /** Longest wait before one retry; a rate limit asking for longer fails at once. */
  maxDelayMs?: number;
  userAgent?: string;
  /** Called before each retry, e.g. to log a warning. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  method: string;
  path: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

export const CLIENT_DEFAULTS = {
  timeoutMs: 10_000,
  retries: 3,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
} as const;

/** A JSON value, or bytes already encoded (NDJSON, CSV, compressed) with their content type. */
export type RequestBody = { json: unknown } | { bytes: Uint8Array | string; contentType: string; contentEncoding?: string };

export interface TransportRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below the service root, with the query string, e.g. `/v2/annotations?datasets=a`. */
  path: string;
  body?: RequestBody;
  /**
   * True when sending the request twice does what sending it once does (reads, updates, deletes,
   * queries): every transient failure is then retried. Otherwise only failures after which the
   * service cannot have acted on it are retried (a refused connection, a 429), unless
   * `retryAmbiguous` accepts the risk of doing it twice.
   */
  idempotent: boolean;
  retryAmbiguous?: boolean;
  /** Further request headers, e.g. `X-Axiom-Event-Labels` on an ingest. */
  headers?: Readonly<Record<string, string>>;
}

export interface Transport {
  /** The reply's JSON, or undefined for an empty reply (204); throws ApiError. */
  send<T>(request: TransportRequest): Promise<T>;
  close(): Promise<void>;
}

/** Connection failures that happen before the request reaches the service, so a retry cannot duplicate. */
const NOT_SENT_ERROR_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', CONNECT_TIMEOUT_CODE]);

const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);

/** Every way one attempt can end other than with a usable reply. */
type Failure =
  /** The connection could not be made: nothing was sent. */
  | { kind: 'not-sent'; reason: string; cause: unknown }
  /** Sent, but no complete reply: the service may or may not have acted. `status` when the head arrived. */
  | { kind: 'no-reply'; reason: string; cause: unknown; status?: number }
  /** A complete reply with an error status. */
  | { kind: 'status'; status: number; headers: IncomingHttpHeaders; text: string }
  /** A complete 2xx reply whose body is not JSON. */
  | { kind: 'unreadable'; status: number; headers: IncomingHttpHeaders; text: string; cause: unknown };

type Attempt<T> = { ok: true; value: T } | { ok: false; failure: Failure };

interface Decision {
  error: ApiError;
  retry: boolean;
  /** The wait the service asked for (429, 503); otherwise the backoff decides. */
  requestedDelayMs?: number;
}

export function createTransport(options: TransportOptions): Transport {
  const base = parseServiceUrl(options.url);
  if (!options.token) throw new ConfigError('A token is required. Expected an API token (xaat-…) or a personal token (xapt-…).');
  const settings = { ...CLIENT_DEFAULTS, ...definedOnly(options) };
  const http = createHttpExchanger({ maxSockets: 32, keepAliveMs: 10_000 });

  const headers: Record<string, string> = {
    authorization: `Bearer ${options.token}`,
    accept: 'application/json',
    'user-agent': options.userAgent ?? 'timemark-client',
  };
  if (options.orgId) headers['x-axiom-org-id'] = options.orgId;

  async function send<T>(req: TransportRequest): Promise<T> {
    for (let tryNumber = 1; ; tryNumber++) {
      const attempt = await attemptOnce<T>(req);
      if (attempt.ok) return attempt.value;
      const decision = decide(req, attempt.failure, tryNumber);
      const delay = decision.retry && tryNumber <= settings.retries ? chooseDelay(decision.requestedDelayMs, tryNumber) : undefined;
      if (delay === undefined) throw decision.error;
      options.onRetry?.({ method: req.method, path: req.path, attempt: tryNumber, delayMs: delay, reason: decision.error.message });
      await sleep(delay);
    }
  }

  function chooseDelay(requested: number | undefined, tryNumber: number): number | undefined {
    if (requested === undefined) return backoffDelay(tryNumber - 1, settings);
    return requested <= settings.maxDelayMs ? requested : undefined;
  }

  /** One attempt, from connecting to the last byte of the body: every failure on the way is caught here. */
  async function attemptOnce<T>(req: TransportRequest): Promise<Attempt<T>> {
    const requestHeaders = { ...req.headers, ...headers };
    let body: Uint8Array | string | undefined;
    if (req.body !== undefined && 'json' in req.body) {
      body = JSON.stringify(req.body.json);
      requestHeaders['content-type'] = 'application/json';
    } else if (req.body !== undefined) {
      body = req.body.bytes;
      requestHeaders['content-type'] = req.body.contentType;
      if (req.body.contentEncoding) requestHeaders['content-encoding'] = req.body.contentEncoding;
    }
    let status: number | undefined;
    try {
      const reply = await http.exchange(new URL(base.origin + base.prefix + req.path), {
        method: req.method,
        headers: requestHeaders,
        body,
        timeoutMs: settings.timeoutMs,
        onStatus: (received) => (status = received),
      });
      return interpret<T>(reply.status, reply.headers, reply.text);
    } catch (cause) {
      return { ok: false, failure: connectionFailure(cause, status, settings.timeoutMs) };
    }
  }

  return {
    send,
    close: () => {
      http.close();
      return Promise.resolve();
    },
  };
}

function interpret<T>(status: number, headers: IncomingHttpHeaders, text: string): Attempt<T> {
  if (status < 200 || status >= 300) return { ok: false, failure: { kind: 'status', status, headers, text } };
  if (status === 204 || text.length === 0) return { ok: true, value: undefined as T };
  try {
    return { ok: true, value: JSON.parse(text) as T };
  } catch (cause) {
    return { ok: false, failure: { kind: 'unreadable', status, headers, text, cause } };
  }
}

function connectionFailure(cause: unknown, status: number | undefined, timeoutMs: number): Failure {
  const timedOut = cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError');
  if (status !== undefined) {
    const what = timedOut ? `did not finish within ${timeoutMs} ms` : `was cut off: ${describeNetworkError(cause)}`;
    return { kind: 'no-reply', status, cause, reason: `the reply (status ${status}) ${what}` };
  }
  if (timedOut) return { kind: 'no-reply', cause, reason: `no answer within ${timeoutMs} ms` };
  const code = errorCode(cause);
  if (code !== undefined && NOT_SENT_ERROR_CODES.has(code)) return { kind: 'not-sent', cause, reason: describeNetworkError(cause) };
  return { kind: 'no-reply', cause, reason: describeNetworkError(cause) };
}

/**
 * The one classification: what the caller is told (an ApiError) and whether to try again. A
 * request that may have reached the service is retried only when doing it twice is harmless.
 */
function decide(req: TransportRequest, failure: Failure, attempts: number): Decision {
  const repeatable = req.idempotent || req.retryAmbiguous === true;
  const where = { method: req.method, path: req.path, attempts };
  switch (failure.kind) {
    case 'not-sent':
      return { error: new ApiError({ ...where, cause: failure.cause, reason: failure.reason, ...networkCodeOf(failure.cause) }), retry: true };
    case 'no-reply':
      return {
        error: new ApiError({ ...where, cause: failure.cause, reason: failure.reason, ambiguous: !repeatable, ...networkCodeOf(failure.cause) }),
        retry: repeatable,
      };
    case 'unreadable':
      return {
        error: new ApiError({
          ...where,
          status: failure.status,
          serviceMessage: `the reply is not JSON: ${truncate(failure.text)}`,
          traceId: traceIdOf(failure.headers),
          cause: failure.cause,
        }),
        retry: false,
      };
    case 'status': {
      // A 429 was refused before any work; a 5xx may come after the work was done.
      const mayHaveActed = RETRYABLE_STATUSES.has(failure.status);
      const error = new ApiError({
        ...where,
        status: failure.status,
        serviceMessage: serviceMessageOf(failure.text),
        traceId: traceIdOf(failure.headers),
        detail: detailOf(failure.text),
        ambiguous: mayHaveActed && !repeatable,
      });
      if (failure.status === 429) return { error, retry: true, requestedDelayMs: requestedDelay(failure.headers) };
      if (mayHaveActed) return { error, retry: repeatable, requestedDelayMs: failure.status === 503 ? requestedDelay(failure.headers) : undefined };
      return { error, retry: false };
    }
  }
}

/**
 * Validates the service root once, so a typo fails before any request with a clear sentence;
 * `label` names where the URL came from (`TIMEMARK_URL`, `axiomUrl`).
 */
export function parseServiceUrl(url: string, label = 'service URL'): { origin: string; prefix: string } {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    throw new ConfigError(`Invalid ${label} ${JSON.stringify(redactUrl(url))}. Expected an http:// or https:// address such as https://api.axiom.co.`);
  }
  return { origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, '') };
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

function detailOf(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && 'detail' in parsed ? parsed.detail : undefined;
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function traceIdOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['x-axiom-trace-id'];
  return Array.isArray(value) ? value[0] : value;
}

function networkCodeOf(cause: unknown): { networkCode?: string } {
  const code = errorCode(cause);
  return code === undefined ? {} : { networkCode: code };
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
