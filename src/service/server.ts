import { join } from 'node:path';
import type { Logger } from 'pino';
import { prepareDataDir } from '../common/data-dir.js';
import { createDiskWatch } from '../common/disk-full.js';
import { listenHttp } from '../common/http/listen.js';
import { createLogger } from '../common/logger.js';
import { loadOrCreateSecret } from '../common/secret-file.js';
import { createServiceApp } from './app.js';
import { ROOT } from './access/capabilities.js';
import { createTokenStore } from './access/token-store.js';
import { createQueryHistory } from './query/history.js';
import { createQueryReaders } from './query/query-reader.js';
import { createVirtualFieldStore } from './vfields/store.js';
import { createAnnotationStore } from './annotations/store.js';
import { API_TOKEN_PREFIX, tokenShapeProblem } from './auth.js';
import type { ServiceConfig } from './config.js';
import { createDashboardStore } from './dashboards/store.js';
import { openServiceDatabase, serviceCreatedMs } from './database.js';
import { createDatasets } from './datasets/datasets.js';
import { createDatasetStore } from './datasets/store.js';
import { createDecodePool } from '../engine/ingest/decode-pool.js';
import { restageBody } from '../engine/ingest/restage.js';
import type { EventStore } from '../engine/store/event-store.js';
import { openReopeningEventStore } from '../engine/store/reopening-store.js';
import { availableParallelism } from 'node:os';
import { createServiceMetrics } from './ops/metrics.js';
import { serviceReadiness } from './ops/readiness.js';
import { createMonitorQueryEngine } from './monitors/engine.js';
import { createMonitorRuntime, type MonitorRuntimeOptions } from './monitors/runtime.js';
import { LOCAL_USER } from './users/local-user.js';

export interface RunningService {
  url: string;
  port: number;
  /** Present when no token was configured and the service made (or reused) its own. */
  generatedToken: string | undefined;
  tokenFile: string | undefined;
  /** The service's event store, for in-process tools and tests that look at what was stored. */
  events: EventStore;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Tests' knobs for monitors: a clock and timers to drive the schedule, faster delivery retries. */
  monitors?: MonitorRuntimeOptions;
}

/**
 * Prepares the data dir, opens the store, listens, starts the monitors, and returns a handle whose
 * close() drains connections (see listenHttp), stops the monitors and then closes the stores.
 */
export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger({ name: 'timemark-service', level: config.logLevel });
  prepareDataDir(config.dataDir, config.dataDirOption);
  const tokenFile = config.tokens.length === 0 ? join(config.dataDir, 'token') : undefined;
  const generatedToken = tokenFile
    ? loadOrCreateSecret(tokenFile, { prefix: API_TOKEN_PREFIX, what: 'service token', problem: tokenShapeProblem })
    : undefined;
  const db = openServiceDatabase(config.dataDir);
  let events: EventStore | undefined;
  // Once space is back, loads that failed for lack of it are retried at once, and a DuckDB
  // database that a failed checkpoint invalidated is opened again (reopening-store.ts).
  const disk = createDiskWatch({ dataDir: config.dataDir, setting: config.dataDirOption, logger, onSpaceBack: () => events?.resume() });
  try {
    events = await openReopeningEventStore({
      dataDir: config.dataDir,
      restage: restageBody,
      onBackgroundError: (error) => {
        if (!disk.noteBackground(error)) logger.warn({ err: error }, 'event store background work failed (a checkpoint, a load it retries, or measuring a table)');
      },
    });
  } catch (error) {
    db.close();
    throw error;
  }
  const datasets = createDatasets(createDatasetStore(db), events);
  await datasets.reconcile(LOCAL_USER.id, Date.now());
  // A decode thread per two cores: since requests are acknowledged from the ingest log, decoding
  // no longer waits on DuckDB, and the other cores go to loading (bench/README.md, "ingest log":
  // on 2 cores, 1 worker ingested faster than 2).
  const decoder = createDecodePool(Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2))));
  const annotations = createAnnotationStore(db);
  const vfields = createVirtualFieldStore(db);
  const metrics = createServiceMetrics({ countAnnotations: () => annotations.count() });
  // Annotation links point at the dashboard, whose address is known once the service listens.
  let serviceUrl = '';
  const monitors = createMonitorRuntime({
    db,
    annotations,
    // Monitors query as the service itself does, virtual fields included.
    engine: createMonitorQueryEngine({ reader: createQueryReaders(events, vfields)(ROOT), clock: options.monitors?.clock ?? Date.now }),
    logger,
    registry: metrics.registry,
    serviceUrl: () => serviceUrl,
    noteDiskFull: disk.noteBackground,
    ...options.monitors,
  });
  const closeStores = async (): Promise<void> => {
    disk.close();
    await monitors.stop();
    await decoder.close();
    await events.close();
    db.close();
  };
  const app = createServiceApp({
    annotations,
    monitors,
    datasets,
    events,
    decoder,
    dashboards: createDashboardStore(db),
    tokens: generatedToken ? [generatedToken] : config.tokens,
    apiTokens: createTokenStore(db),
    vfields,
    history: createQueryHistory(db),
    orgId: config.orgId,
    createdMs: serviceCreatedMs(db),
    logger,
    metrics,
    readiness: serviceReadiness(db, events, disk),
    disk,
  });
  let listener;
  try {
    listener = await listenHttp(app, { port: config.port, host: config.host, afterClose: closeStores });
  } catch (error) {
    await closeStores();
    throw error;
  }
  serviceUrl = listener.url;
  monitors.start();
  logger.info({ url: listener.url, dataDir: config.dataDir }, 'service listening');
  return { url: listener.url, port: listener.port, generatedToken, tokenFile, events, close: listener.close };
}
