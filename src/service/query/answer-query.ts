import type { Response } from 'express';
import type { ServiceMetrics } from '../ops/metrics.js';

/** Room for the longest query text or virtual field (65,536 characters, escaped) and the other members. */
export const QUERY_BODY_LIMIT_BYTES = 512 * 1024;

/**
 * Answers one query request, APL or structured: runs it with a signal that is aborted when the
 * client goes away (the running DuckDB statement is interrupted), replies with its JSON, and
 * records how long it took since `started` (hrtime), failures included.
 */
export async function answerQuery(
  res: Response,
  metrics: ServiceMetrics,
  query: { readonly kind: 'apl' | 'structured'; readonly started: bigint },
  run: (signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  const gone = new AbortController();
  const onClose = (): void => {
    if (!res.writableEnded) gone.abort();
  };
  res.on('close', onClose);
  try {
    sendJson(res, await run(gone.signal));
  } finally {
    res.off('close', onClose);
    metrics.queryDuration.observe({ kind: query.kind }, Number(process.hrtime.bigint() - query.started) / 1e9);
  }
}

/**
 * The reply `res.json()` would send, written straight to Node: a POST's reply has no ETag or
 * freshness to work out, and a string handed to `end()` goes out with the headers in one write,
 * where `res.json()` copies it into a Buffer first and sends headers and body as two.
 * Node sets Content-Length from the string.
 */
function sendJson(res: Response, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(body);
}
