import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { TimemarkError } from '../errors.js';
import type { HttpMetrics } from '../metrics.js';
import { createErrorHandler, unknownPath } from './error-reply.js';
import { observeRequests } from './observe.js';
import { createOpsRoutes, type ReadinessChecks } from './ops-routes.js';

export interface HttpAppOptions {
  /** How the process part is named in 5xx replies: "service", "bridge". */
  component: string;
  logger: Logger;
  metrics: { registry: Registry; http: HttpMetrics };
  readiness: ReadinessChecks;
  /** Reported by /readyz without gating it (see createOpsRoutes). */
  dependencies?: ReadinessChecks;
  /** Where to look instead, in the 404 for a path no route claims. */
  notFoundHint: string;
  /** See ErrorHandlerOptions.translate. */
  translateError?: (error: unknown) => TimemarkError | undefined;
}

/**
 * The frame every HTTP app of Timemark shares: a trace id, a log line and metrics per request
 * first; /healthz, /readyz and /metrics; then the part's own routes (`mount`); then the 404 for
 * unclaimed paths and the one error handler. It never listens: see listenHttp.
 */
export function createHttpApp(options: HttpAppOptions, mount: (app: Express) => void): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(observeRequests({ logger: options.logger, metrics: options.metrics.http }));
  app.use(
    createOpsRoutes({
      readiness: options.readiness,
      ...(options.dependencies ? { dependencies: options.dependencies } : {}),
      registry: options.metrics.registry,
    }),
  );
  mount(app);
  app.use(unknownPath(options.notFoundHint));
  app.use(createErrorHandler({ logger: options.logger, component: options.component, ...(options.translateError ? { translate: options.translateError } : {}) }));
  return app;
}
