import type { Express } from 'express';
import type { Logger } from 'pino';
import type { DiskWatch } from '../common/disk-full.js';
import { createHttpApp } from '../common/http/app.js';
import { jsonBody } from '../common/http/json-body.js';
import type { ReadinessChecks } from '../common/http/ops-routes.js';
import type { DecodePool } from '../engine/ingest/decode-pool.js';
import type { EventStore } from '../engine/store/event-store.js';
import { createAccessGate } from './access/gate.js';
import { createTokenRoutes } from './access/token-routes.js';
import type { TokenStore } from './access/token-store.js';
import { createAnnotationRoutes } from './annotations/routes.js';
import type { AnnotationStore } from './annotations/store.js';
import { createTokenAuth } from './auth.js';
import { createDashboardPage } from './dashboards/page.js';
import { createDashboardRoutes } from './dashboards/routes.js';
import type { DashboardStore } from './dashboards/store.js';
import type { Datasets } from './datasets/datasets.js';
import { createDatasetRoutes } from './datasets/routes.js';
import { createIngestRoutes } from './ingest/routes.js';
import { createAplRoutes } from './query/apl-routes.js';
import { createHistoryRoutes, type QueryHistory } from './query/history.js';
import { createQueryReaders } from './query/query-reader.js';
import { createStructuredQueryRoutes } from './query/structured-routes.js';
import type { ServiceMetrics } from './ops/metrics.js';
import { createMonitorRoutes } from './monitors/routes.js';
import type { MonitorRuntime } from './monitors/runtime.js';
import { createNotifierRoutes } from './notifiers/routes.js';
import { createOtelRoutes } from './otel/routes.js';
import { LOCAL_USER } from './users/local-user.js';
import { createUserRoutes } from './users/routes.js';
import { createVirtualFieldRoutes } from './vfields/routes.js';
import type { VirtualFieldStore } from './vfields/store.js';

export interface ServiceDeps {
  annotations: AnnotationStore;
  /** Monitors and notifiers: their stores, schedule and deliveries. */
  monitors: MonitorRuntime;
  /** Dataset metadata (SQLite) and events (DuckDB), kept consistent. */
  datasets: Datasets;
  events: EventStore;
  /** Decodes ingest bodies off the main thread. */
  decoder: DecodePool;
  dashboards: DashboardStore;
  /** The tokens given at start-up (or generated at first start): all-powerful. */
  tokens: readonly string[];
  /** API tokens made with /v2/tokens, each holding only its capabilities. */
  apiTokens: TokenStore;
  vfields: VirtualFieldStore;
  history: QueryHistory;
  orgId: string;
  /** When this service's data dir was first used: the organization's creation time. */
  createdMs: number;
  logger: Logger;
  metrics: ServiceMetrics;
  /** What /readyz checks, by name (`store`, …). */
  readiness: ReadinessChecks;
  /** Turns a full disk, whichever store hit it, into a 507 (see src/common/disk-full.ts). */
  disk: DiskWatch;
  clock?: () => number;
}

/**
 * Builds the local service's HTTP app. It never listens: see server.ts.
 *
 * The API's route modules are mounted behind the token check. Each route reads its own body
 * (`jsonBody()` for the annotation-sized JSON routes; an ingest route brings its own parser and
 * limit), so nothing parses a body before the route that owns it.
 */
export function createServiceApp(deps: ServiceDeps): Express {
  const clock = deps.clock ?? Date.now;
  const json = jsonBody();
  const frame = {
    component: 'service',
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: deps.readiness,
    translateError: deps.disk.translate,
    notFoundHint: 'See the API reference, docs/local-service.md, for the routes this service serves.',
  };
  return createHttpApp(frame, (app) => {
    // The dashboard page's files: no token, they hold no data.
    app.use(createDashboardPage());
    app.use(['/v1', '/v2'], createTokenAuth({ tokens: deps.tokens, orgId: deps.orgId, apiTokens: deps.apiTokens, clock }));
    app.use(createAccessGate());
    const readers = createQueryReaders(deps.events, deps.vfields);
    // `/v1/datasets/{id}` answers 405 for methods it lacks: the routes under /v1/datasets that
    // are not a dataset (`_apl`, `_history`) go first.
    const api = [
      createHistoryRoutes({ history: deps.history }),
      createAplRoutes({ readers, history: deps.history, metrics: deps.metrics, clock }),
      createAnnotationRoutes({ store: deps.annotations, clock, json }),
      createDatasetRoutes({ datasets: deps.datasets, events: deps.events, clock, who: LOCAL_USER.id, json }),
      createIngestRoutes({ datasets: deps.datasets, events: deps.events, decoder: deps.decoder, metrics: deps.metrics, clock, who: LOCAL_USER.id }),
      createOtelRoutes({ datasets: deps.datasets, events: deps.events, metrics: deps.metrics, clock, who: LOCAL_USER.id }),
      createDashboardRoutes({ store: deps.dashboards, clock, who: LOCAL_USER.id, json }),
      createStructuredQueryRoutes({ readers, history: deps.history, metrics: deps.metrics, clock }),
      createVirtualFieldRoutes({ store: deps.vfields, datasets: deps.datasets, events: deps.events, clock }),
      createMonitorRoutes({ runtime: deps.monitors, json, who: LOCAL_USER.id }),
      createNotifierRoutes({ runtime: deps.monitors, json, who: LOCAL_USER.id }),
      createTokenRoutes({ store: deps.apiTokens, clock, json }),
      createUserRoutes({ orgId: deps.orgId, createdMs: deps.createdMs }),
    ];
    for (const routes of api) app.use(routes);
  });
}
