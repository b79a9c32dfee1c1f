/**
 * Starts the bridge from a validated configuration: prepares the data dir, opens the store,
 * starts the outbox worker, listens. close() shuts down in order: stop accepting, finish
 * in-flight requests, let the outbox finish what it holds, close the client and the store.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ApiError, createAnnotationsClient } from '../../src/client/index.js';
import { prepareDataDir } from '../../src/common/data-dir.js';
import { listenHttp, type HttpListener } from '../../src/common/http/listen.js';
import { createLogger } from '../../src/common/logger.js';
import { redactUrl } from '../../src/common/redact-url.js';
import { loadOrCreateSecret } from '../../src/common/secret-file.js';
import { createBridgeApp } from './app.js';
import { adminTokenProblem, type BridgeConfig } from './config.js';
import { createBridgeMetrics } from './ops/metrics.js';
import { createOutboxWorker } from './outbox/worker.js';
import { SOURCES } from './sources/index.js';
import type { SourceName, WebhookSource } from './sources/types.js';
import { openPostgresStore } from './store/postgres.js';
import { openSqliteStoreOnThread } from './store/sqlite-thread.js';
import type { BridgeStore } from './store/types.js';

export interface RunningBridge {
  url: string;
  port: number;
  adminToken: string;
  /** Set when no admin token was configured and the bridge made (or reused) its own. */
  adminTokenFile: string | undefined;
  store: BridgeStore;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Defaults to every source of this build. */
  sources?: Partial<Record<SourceName, WebhookSource>>;
  /** How the user sets the port, for the "already in use" message (`--bridge-port` in `timemark start`). */
  portOption?: string;
}

export async function startBridge(config: BridgeConfig, options: StartOptions = {}): Promise<RunningBridge> {
  const logger = options.logger ?? createLogger({ name: 'timemark-bridge', level: config.logLevel });
  prepareDataDir(config.dataDir, config.dataDirOption);
  const adminTokenFile = config.adminToken === undefined ? join(config.dataDir, 'admin-token') : undefined;
  const adminToken =
    config.adminToken ?? loadOrCreateSecret(adminTokenFile as string, { what: 'admin token', problem: adminTokenProblem });

  const store = config.database
    ? await openPostgresStore({ connectionString: config.database.url, ...(config.database.schema ? { schema: config.database.schema } : {}) })
    : await openSqliteStoreOnThread(config.dataDir);
  // The SQLite file belongs to this one process, so leases left by a killed predecessor are void.
  if (store.kind === 'sqlite') await store.releaseLeases();

  const client = createAnnotationsClient({
    url: config.service.url,
    token: config.service.token,
    ...(config.service.orgId ? { orgId: config.service.orgId } : {}),
    // The outbox retries with its own backoff and keeps the state durable in between.
    retries: 0,
    timeoutMs: Math.min(10_000, Math.floor(config.delivery.leaseMs / 3)),
    userAgent: 'timemark-bridge',
  });
  const metrics = createBridgeMetrics({ outboxCounts: () => store.counts() });
  const worker = createOutboxWorker({ store, client, logger: logger.child({ component: 'outbox' }), metrics, settings: config.delivery });

  const app = createBridgeApp({
    sources: options.sources ?? SOURCES,
    secrets: config.secrets,
    mapping: config.mapping,
    store,
    metrics,
    logger,
    adminToken,
    bodyLimitBytes: config.bodyLimitBytes,
    onRecorded: () => worker.wake(),
    checkService: async () => {
      try {
        await client.get('ann_timemark_readiness_probe');
      } catch (error) {
        // A 404 for a made-up id proves the service answers and accepts the token.
        if (error instanceof ApiError && error.status === 404) return;
        throw error;
      }
    },
  });
  let listener: HttpListener;
  try {
    // Idle connections stay open longer than a load balancer's idle timeout (often 60 s) would keep them.
    listener = await listenHttp(app, {
      port: config.port,
      host: config.host,
      keepAliveTimeoutMs: 65_000,
      ...(options.portOption ? { portOption: options.portOption } : {}),
      // Once requests are answered (or, after the drain, cut off unacknowledged), the outbox finishes what it holds.
      afterClose: async () => {
        await worker.stop();
        await client.close();
        await store.close();
      },
    });
  } catch (error) {
    await store.close();
    await client.close();
    throw error;
  }
  worker.start();
  logger.info(
    { url: listener.url, store: store.kind, service: redactUrl(config.service.url), sources: Object.keys(config.secrets), datasets: config.mapping.datasets },
    'bridge listening',
  );

  return { url: listener.url, port: listener.port, adminToken, adminTokenFile, store, close: listener.close };
}
