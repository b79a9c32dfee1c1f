import { randomBytes } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import { createAnnotationRoutes } from './annotations/routes.js';
import type { AnnotationStore } from './annotations/store.js';
import { createTokenAuth } from './auth.js';
import { createDatasetRoutes } from './datasets/routes.js';
import type { DatasetStore } from './datasets/store.js';
import { createErrorHandler, methodNotAllowed, sendError, unknownPath } from './http-errors.js';

export interface ServiceDeps {
  annotations: AnnotationStore;
  datasets: DatasetStore;
  tokens: readonly string[];
  orgId: string;
  clock?: () => number;
  /** Largest accepted JSON body. */
  bodyLimitBytes?: number;
  logFault?: (error: unknown) => void;
}

export const LOCAL_USER = {
  id: 'local',
  name: 'Timemark local user',
  email: 'local@timemark.invalid',
  role: { id: 'owner', name: 'Owner' },
} as const;

const DEFAULT_BODY_LIMIT = 64 * 1024;

/** Builds the local service's HTTP app. It never listens: see server.ts. */
export function createServiceApp(deps: ServiceDeps): Express {
  const clock = deps.clock ?? Date.now;
  const bodyLimit = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // Every reply carries a trace id, as the hosted service's do, so that errors can be quoted.
  app.use((_req, res, next) => {
    res.set('X-Axiom-Trace-Id', randomBytes(8).toString('hex'));
    next();
  });

  app.route('/healthz').get((_req, res) => res.json({ status: 'ok' })).all(methodNotAllowed(['GET']));

  // Everything under the versioned prefixes needs a token and, for writes, a JSON body.
  app.use(['/v1', '/v2'], createTokenAuth({ tokens: deps.tokens, orgId: deps.orgId }), requireJsonBody);
  app.use(['/v1', '/v2'], express.json({ limit: bodyLimit, type: () => true }));
  app.use(createAnnotationRoutes(deps.annotations, clock));
  app.use(createDatasetRoutes(deps.datasets, clock, LOCAL_USER.id));
  app.route('/v2/user').get((_req, res) => res.json(LOCAL_USER)).all(methodNotAllowed(['GET']));

  app.use(unknownPath);
  app.use(createErrorHandler(deps.logFault ?? ((error) => console.error(error))));
  return app;
}

/** Bodies of writes must be JSON; an empty body is left to the route's own validation. */
const requireJsonBody: RequestHandler = (req, res, next) => {
  if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') {
    next();
    return;
  }
  const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
  if (hasBody && !req.is('application/json')) {
    sendError(res, 415, `Unsupported Content-Type ${JSON.stringify(req.get('content-type') ?? '')}. Expected application/json.`);
    return;
  }
  next();
};
