import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/** Every reply is JSON `{code, message, …}`, errors included, like the annotation service's. */
export function reply(res: Response, status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): void {
  res.status(status).set(headers).type('application/json').send(JSON.stringify({ code: status, message, ...extra }));
}

interface BodyParserError {
  type?: unknown;
  status?: unknown;
  limit?: unknown;
}

/**
 * The last handler. Body-parser failures keep their status (413 oversize, 415 unknown encoding,
 * 400 aborted); anything else is our fault: logged in full, answered 500 without details.
 */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const parserError = (error ?? {}) as BodyParserError;
    if (parserError.type === 'entity.too.large') {
      reply(res, 413, `The request body is larger than the limit of ${String(parserError.limit)} bytes.`);
      return;
    }
    if (parserError.type === 'encoding.unsupported' || parserError.type === 'charset.unsupported') {
      reply(res, 415, (error as Error).message);
      return;
    }
    if (typeof parserError.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
      reply(res, parserError.status, (error as Error).message);
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'unexpected error');
    reply(res, 500, 'Internal error. The bridge log has the details.');
  };
}
