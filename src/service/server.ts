import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import { loadOrCreateSecret } from '../common/secret-file.js';
import { createServiceApp } from './app.js';
import { createAnnotationStore } from './annotations/store.js';
import { API_TOKEN_PREFIX, assertTokenShape } from './auth.js';
import { openServiceDatabase } from './database.js';
import { createDatasetStore } from './datasets/store.js';

export interface ServiceConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Empty: use the token saved in the data dir, creating it on first start. */
  tokens: readonly string[];
  orgId: string;
}

export interface RunningService {
  url: string;
  port: number;
  /** Present when no token was configured and the service made (or reused) its own. */
  generatedToken: string | undefined;
  tokenFile: string | undefined;
  close(): Promise<void>;
}

export const SERVICE_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: '.timemark',
  orgId: 'local',
} as const;

/** Opens the store, listens, and returns a handle whose close() drains connections and closes the store. */
export async function startService(config: ServiceConfig): Promise<RunningService> {
  config.tokens.forEach((token, index) => assertTokenShape(token, index + 1));
  const db = openServiceDatabase(config.dataDir);
  const tokenFile = config.tokens.length === 0 ? join(config.dataDir, 'token') : undefined;
  const generatedToken = tokenFile ? loadOrCreateSecret(tokenFile, { prefix: API_TOKEN_PREFIX }) : undefined;
  if (generatedToken) assertTokenShape(generatedToken, 1);
  const app = createServiceApp({
    annotations: createAnnotationStore(db),
    datasets: createDatasetStore(db),
    tokens: generatedToken ? [generatedToken] : config.tokens,
    orgId: config.orgId,
  });
  const server = createServer(app);
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    db.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl === '0.0.0.0' ? '127.0.0.1' : hostForUrl}:${port}`,
    port,
    generatedToken,
    tokenFile,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          db.close();
          resolve();
        });
        server.closeIdleConnections();
        // A request that never finishes must not keep the store open forever.
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      });
      return closing;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`Port ${port} on ${host} is already in use. Pass another --port, or --port 0 for any free one.`)
          : error,
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
