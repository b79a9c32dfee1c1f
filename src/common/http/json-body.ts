import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { InputError, UnsupportedMediaTypeError } from '../errors.js';

/** The body limit of the annotation-sized JSON routes. */
export const JSON_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Reads a JSON body for one route, so that each route chooses its own limit and content types
 * (an ingest route reads NDJSON or CSV, compressed, and much larger bodies, with its own parser).
 * A body sent with another content type is a 415; an empty body is left to the route's own
 * validation, which says what was missing. Parser failures reach the final error handler as
 * body-parser errors (see fromBodyParserError).
 */
export function jsonBody(options: { limitBytes?: number } = {}): RequestHandler {
  // The type is checked first, so the parser reads whatever is there. Bytes that are not UTF-8
  // would be decoded as U+FFFD and stored changed; they are refused instead.
  const parse = express.json({
    limit: options.limitBytes ?? JSON_BODY_LIMIT_BYTES,
    type: () => true,
    verify: (_req, _res, body, encoding) => {
      if (encoding.toLowerCase() === 'utf-8' && !isUtf8(body)) throw new InputError('The request body is not valid UTF-8. Expected UTF-8 JSON.');
    },
  });
  return (req, res, next) => {
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (hasBody && !req.is('application/json')) {
      next(new UnsupportedMediaTypeError(`Unsupported Content-Type ${JSON.stringify(req.get('content-type') ?? '')}. Expected application/json.`));
      return;
    }
    parse(req, res, next);
  };
}
