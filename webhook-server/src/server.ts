/**
 * Starts the bridge from a validated configuration: opens the store, starts the outbox worker,
 * listens. close() shuts down in order: stop accepting, finish in-flight requests, let the outbox
 * finish what it holds, close the client and the store.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ApiError, createAnnotationsClient } from '../../src/client/index.js';
import { loadOrCreateSecret } from '../../src/common/secret-file.js';
import { createBridgeApp } from './app.js';
import type { BridgeConfig } from './config.js';
import { createBridgeLogger } from './logger.js';
import { createBridgeMetrics } from './ops/metrics.js';
import { createOutboxWorker } from './outbox/worker.js';
import { SOURCES } from './sources/index.js';
import type { SourceName, WebhookSource } from './sources/types.js';
import { openPostgresStore } from './store/postgres.js';
import { openSqliteStore } from './store/sqlite.js';
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
}

export async function startBridge(config: BridgeConfig, options: StartOptions = {}): Promise<RunningBridge> {
  const logger = options.logger ?? createBridgeLogger();
  mkdirSync(config.dataDir, { recursive: true });
  const adminTokenFile = config.adminToken === undefined ? join(config.dataDir, 'admin-token') : undefined;
  const adminToken = config.adminToken ?? loadOrCreateSecret(adminTokenFile as string);

  const store = config.database
    ? await openPostgresStore({ connectionString: config.database.url, ...(config.database.schema ? { schema: config.database.schema } : {}) })
    : openSqliteStore(config.dataDir);
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
  const metrics = createBridgeMetrics();
  metrics.registry.gauge('timemark_bridge_outbox_depth', 'Episodes by outbox status: pending (not yet applied), dead (given up), synced.', async () => {
    const counts = await store.counts();
    return Object.entries(counts).map(([status, value]) => ({ labels: { status }, value }));
  });
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
  let closing: Promise<void> | undefined;
  const server = createServer((req, res) => {
    // Once stopping, answer what arrives on open keep-alive connections and close them after:
    // a sender that keeps its connection busy must not hold the shutdown open.
    if (closing) res.setHeader('Connection', 'close');
    app(req, res);
  });
  server.keepAliveTimeout = 65_000;
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    await store.close();
    await client.close();
    throw error;
  }
  worker.start();
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info(
    { port, store: store.kind, sources: Object.keys(config.secrets), datasets: config.mapping.datasets },
    'bridge listening',
  );

  return {
    url: `http://${host}:${port}`,
    port,
    adminToken,
    adminTokenFile,
    store,
    close: () => {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // Requests still running after this long lose their connection (their deliveries are not acknowledged).
          setTimeout(() => server.closeAllConnections(), 10_000).unref();
        });
        await worker.stop();
        await client.close();
        await store.close();
      })();
      return closing;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} on ${host} is already in use. Pass another --port, or --port 0 for any free one.`) : error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Reads a secret saved by an earlier run, or makes one and saves it readable by the owner only. */
