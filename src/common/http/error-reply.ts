/**
 * The one place where errors become HTTP replies, for the local service and the bridge alike.
 * Every reply is JSON `{"code": <status>, "message": "…", …}` with `Content-Type: application/json`.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import {
  AuthenticationError,
  ConflictError,
  InputError,
  InsufficientStorageError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  TimemarkError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from '../errors.js';

/** Error classes by the status they answer with; an error's nearest listed ancestor decides. */
const STATUS_BY_KIND: ReadonlyArray<readonly [abstract new (...args: never[]) => TimemarkError, number]> = [
  [InputError, 400],
  [AuthenticationError, 401],
  [PermissionError, 403],
  [NotFoundError, 404],
  [MethodNotAllowedError, 405],
  [ConflictError, 409],
  [PayloadTooLargeError, 413],
  [UnsupportedMediaTypeError, 415],
  [UnavailableError, 503],
  [InsufficientStorageError, 507],
];

/** The status an error answers with: 500 for anything that is not a known kind (a fault of ours). */
export function statusOf(error: unknown): number {
  for (const [kind, status] of STATUS_BY_KIND) if (error instanceof kind) return status;
  return 500;
}

/**
 * Writes a JSON reply whose body is `{code: status, message, ...members}`. Written with Node's own
 * response methods: Express's `status().set().type().send()` chain looks up the MIME type, checks
 * freshness and sets headers one by one, work a fixed JSON reply does not need, and on the
 * bridge's acknowledgement path it cost as much as the rest of the reply (a HEAD request still
 * gets no body: Node leaves it out).
 */
export function replyJson(
  res: Response,
  status: number,
  message: string,
  members: Readonly<Record<string, unknown>> = {},
  headers: Readonly<Record<string, string>> = {},
): void {
  const body = JSON.stringify({ ...members, code: status, message });
  res.statusCode = status;
  for (const name in headers) res.setHeader(name, headers[name] as string);
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

interface BodyParserError {
  type?: unknown;
  status?: unknown;
  expose?: unknown;
  limit?: unknown;
  charset?: unknown;
  encoding?: unknown;
  message?: unknown;
}

/**
 * The typed error for a failure of Express's body parsers (json, raw, text), which signal with
 * `type` and `status`; undefined for anything else.
 */
export function fromBodyParserError(error: unknown): TimemarkError | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const failure = error as BodyParserError;
  const message = typeof failure.message === 'string' ? failure.message : '';
  switch (failure.type) {
    case 'entity.too.large':
      return new PayloadTooLargeError(`The request body is larger than the limit of ${String(failure.limit)} bytes.`);
    case 'entity.parse.failed':
      return new InputError(`The request body is not valid JSON: ${message}. Expected a JSON object.`);
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError(`Unsupported charset ${JSON.stringify(String(failure.charset ?? ''))}. Expected UTF-8.`);
    case 'encoding.unsupported':
      return new UnsupportedMediaTypeError(
        `Unsupported Content-Encoding ${JSON.stringify(String(failure.encoding ?? ''))}. Expected gzip, deflate, br or none.`,
      );
  }
  // The parsers' other client-side failures (an aborted or short body) say so with a 4xx status.
  if (typeof failure.status === 'number' && failure.status >= 400 && failure.status < 500 && failure.expose === true) {
    return new InputError(`The request body could not be read: ${message}.`);
  }
  return undefined;
}

export interface ErrorHandlerOptions {
  logger: Logger;
  /** How the process is named in 5xx replies: "service", "bridge". */
  component: string;
  /**
   * The part's own reading of failures that would otherwise be a 500 or a 503 (the service: a
   * full disk, whatever layer hit it); undefined leaves the error as it is.
   */
  translate?: (error: unknown) => TimemarkError | undefined;
}

/**
 * The last handler of an app. Known errors keep their message, members and headers; 5xx details
 * stay in the log (with the stack and the trace id), and the reply only says where to look.
 */
export function createErrorHandler(options: ErrorHandlerOptions): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    let known = error instanceof TimemarkError ? error : fromBodyParserError(error);
    if (!known || statusOf(known) >= 500) known = options.translate?.(error) ?? known;
    const status = known ? statusOf(known) : 500;
    // A 507's message is for the client, and whoever translated it logs the episode once, not once per request.
    if (known && (status < 500 || status === 507)) {
      replyJson(res, status, known.message, known.replyMembers, known.replyHeaders);
      return;
    }
    const traceId = res.locals.traceId as string | undefined;
    options.logger.error({ err: error, method: req.method, route: routeOf(req), traceId }, status === 503 ? 'dependency unavailable' : 'request failed');
    if (status === 503) {
      replyJson(res, 503, `The ${options.component} cannot serve this request right now. Retry later.`, {}, known?.replyHeaders);
      return;
    }
    replyJson(res, 500, `Internal error. The ${options.component} log has the details${traceId ? ` (trace id ${traceId})` : ''}.`);
  };
}

/** The route pattern that served a request, e.g. `/v2/annotations/:id`; `(unmatched)` when none did. */
export function routeOf(req: Parameters<RequestHandler>[0]): string {
  const path: unknown = req.route?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : '(unmatched)';
}

/** 404 for every path no route claims; `hint` says where to look instead. */
export function unknownPath(hint: string): RequestHandler {
  return (req, _res, next) => {
    next(new NotFoundError(`Path ${req.path} not found. ${hint}`));
  };
}

/** The last handler of a route: its path exists, but not with this method. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    next(new MethodNotAllowedError(req.method, req.path, allowed));
  };
}
