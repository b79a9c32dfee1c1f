/**
 * The bridge's HTTP app. It never listens (server.ts does), so tests run it on port 0 with
 * real stores and a real annotation service.
 */
import type { Express } from 'express';
import { createHttpApp } from '../../src/common/http/app.js';
import { createAdminRoutes } from './admin/routes.js';
import { createWebhookRoutes, type WebhookRoutesDeps } from './transport/webhook-route.js';

export interface BridgeAppDeps extends Omit<WebhookRoutesDeps, 'now' | 'recordTimeoutMs'> {
  adminToken: string;
  /** Throws when the annotation service cannot be reached with the configured token. */
  checkService: () => Promise<void>;
  now?: () => number;
}

export function createBridgeApp(deps: BridgeAppDeps): Express {
  const now = deps.now ?? Date.now;
  const frame = {
    component: 'bridge',
    logger: deps.logger,
    metrics: deps.metrics,
    // Ready means able to record deliveries; the annotation service is only reported, because
    // the bridge keeps recording (and later applies) while it is down.
    readiness: { store: () => deps.store.ping() },
    dependencies: { service: deps.checkService },
    notFoundHint: 'Webhooks go to POST /webhooks/<source>.',
  };
  return createHttpApp(frame, (app) => {
    app.use(createWebhookRoutes({ ...deps, now }));
    app.use(createAdminRoutes({ store: deps.store, adminToken: deps.adminToken, onRetry: deps.onRecorded, now }));
  });
}
