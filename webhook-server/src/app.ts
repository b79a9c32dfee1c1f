/**
 * The bridge's HTTP app. It never listens (server.ts does), so tests run it on port 0 with
 * real stores and a real annotation service.
 */
import express, { type Express } from 'express';
import { createAdminRoutes } from './admin/routes.js';
import { createErrorHandler, reply } from './transport/replies.js';
import { createWebhookRoutes, type WebhookRoutesDeps } from './transport/webhook-route.js';

export interface BridgeAppDeps extends Omit<WebhookRoutesDeps, 'now' | 'recordTimeoutMs'> {
  adminToken: string;
  /** Throws when the annotation service cannot be reached with the configured token. */
  checkService: () => Promise<void>;
  now?: () => number;
}

export function createBridgeApp(deps: BridgeAppDeps): Express {
  const now = deps.now ?? Date.now;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(createWebhookRoutes({ ...deps, now }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, string> = {};
    await Promise.all([
      deps.store.ping().then(
        () => (checks.store = 'ok'),
        (error: unknown) => (checks.store = messageOf(error)),
      ),
      deps.checkService().then(
        () => (checks.service = 'ok'),
        (error: unknown) => (checks.service = messageOf(error)),
      ),
    ]);
    const ready = checks.store === 'ok' && checks.service === 'ok';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks });
  });

  app.get('/metrics', async (_req, res) => {
    res.type('text/plain; version=0.0.4').send(await deps.metrics.registry.render());
  });

  app.use(createAdminRoutes({ store: deps.store, adminToken: deps.adminToken, onRetry: deps.onRecorded, now }));

  app.use((req, res) => {
    reply(res, 404, `Path ${req.path} not found. Webhooks go to POST /webhooks/<source>.`);
  });
  app.use(createErrorHandler(deps.logger));
  return app;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
