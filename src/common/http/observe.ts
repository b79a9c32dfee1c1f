import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { HttpMetrics } from '../metrics.js';
import { pooledRandomBytes } from '../random-id.js';
import { routeOf } from './error-reply.js';

/** The reply header that carries a request's trace id, named as the hosted service names it. */
export const TRACE_HEADER = 'X-Axiom-Trace-Id';

/** 16 hex digits. */
function nextTraceId(): string {
  return pooledRandomBytes(8).toString('hex');
}

/** When a request began (performance.now()), kept on its response until the response closes. */
const STARTED = Symbol('started');

/**
 * The first middleware of an app: gives every request a trace id (in the reply's header, so that
 * errors can be quoted, and in `res.locals.traceId`), then logs one line per request — method,
 * route pattern, status, duration, trace id; never the path's values, headers or bodies — and
 * counts it in the HTTP metrics.
 */
export function observeRequests(options: { logger: Logger; metrics: HttpMetrics }): RequestHandler {
  // One listener function for every response of the app, not a closure per request: under load
  // the closures and their registration were a measurable share of a webhook's acknowledgement.
  function whenClosed(this: Response): void {
    const res = this;
    const req = res.req;
    const seconds = (performance.now() - ((res.locals as Record<symbol, number>)[STARTED] as number)) / 1000;
    const route = routeOf(req);
    // A reply that never finished was cut off by the client or by a shutdown.
    const status = res.writableFinished ? res.statusCode : 'aborted';
    options.metrics.requests.inc({ method: req.method, route, status: String(status) });
    options.metrics.duration.observe({ method: req.method, route }, seconds);
    // A 507 (a full disk) is one episode, logged as an error once where it begins: its requests are warnings.
    const level = res.statusCode === 507 ? 'warn' : res.statusCode >= 500 ? 'error' : 'info';
    if (!options.logger.isLevelEnabled(level)) return;
    options.logger[level]({ method: req.method, route, status, durationMs: Math.round(seconds * 10_000) / 10, traceId: res.locals.traceId as string }, 'request');
  }
  return (_req, res, next) => {
    const traceId = nextTraceId();
    res.locals.traceId = traceId;
    (res.locals as Record<symbol, number>)[STARTED] = performance.now();
    res.setHeader(TRACE_HEADER, traceId);
    res.on('close', whenClosed);
    next();
  };
}
