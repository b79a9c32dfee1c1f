import type { ErrorRequestHandler, RequestHandler } from 'express';

/**
 * An error that becomes an HTTP reply `{"code": status, "message"}` at the boundary.
 * `code` is the stable machine name; the status is what the wire carries as `code`.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export class ValidationError extends HttpError {
  constructor(message: string) {
    super(400, 'invalid_request', message);
    this.name = 'ValidationError';
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, 'not_found', message);
    this.name = 'NotFoundError';
  }
}

export function sendError(res: Parameters<RequestHandler>[1], status: number, message: string, headers: Record<string, string> = {}): void {
  res.status(status).set(headers).type('application/json').send(JSON.stringify({ code: status, message }));
}

/** 404 for every path no route claims. */
export const unknownPath: RequestHandler = (req, res) => {
  sendError(res, 404, `Path ${req.path} not found. See the API reference in the README for the routes this service serves.`);
};

/** The last handler of a route: its path exists, but not with this method. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const allow = allowed.join(', ');
  return (req, res) => {
    sendError(res, 405, `Method ${req.method} is not allowed on ${req.path}. Expected one of: ${allow}.`, { Allow: allow });
  };
}

interface BodyParserError {
  type?: unknown;
  status?: unknown;
  limit?: unknown;
}

/**
 * Turns every error into JSON. Known errors keep their message; anything else is a fault of
 * ours, logged in full and answered with a generic 500 so that internals never leak.
 */
export function createErrorHandler(logFault: (error: unknown) => void): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof HttpError) {
      sendError(res, error.status, error.message);
      return;
    }
    const parserError = (error ?? {}) as BodyParserError;
    if (parserError.type === 'entity.too.large') {
      sendError(res, 413, `The request body is larger than the limit of ${String(parserError.limit)} bytes.`);
      return;
    }
    if (parserError.type === 'entity.parse.failed') {
      sendError(res, 400, `The request body is not valid JSON: ${(error as Error).message}.`);
      return;
    }
    if (parserError.type === 'charset.unsupported') {
      sendError(res, 415, `Unsupported charset ${JSON.stringify(String((error as { charset?: unknown }).charset ?? ''))}. Expected UTF-8 JSON.`);
      return;
    }
    if (parserError.type === 'encoding.unsupported') {
      sendError(res, 415, `Unsupported Content-Encoding ${JSON.stringify(String((error as { encoding?: unknown }).encoding ?? ''))}. Expected gzip, deflate, br or none.`);
      return;
    }
    if (typeof parserError.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
      sendError(res, parserError.status, (error as Error).message);
      return;
    }
    logFault(error);
    sendError(res, 500, 'Internal error. The service log has the details.');
  };
}
