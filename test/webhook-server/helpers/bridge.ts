import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, parseLogLevel } from '../../../src/common/logger.js';
import type { BridgeConfig } from '../../../webhook-server/src/config.js';
import { DEFAULT_TYPES } from '../../../webhook-server/src/mapping/mapping.js';
import { DELIVERY_DEFAULTS } from '../../../webhook-server/src/outbox/worker.js';
import { startBridge, type RunningBridge } from '../../../webhook-server/src/server.js';
import { SOURCE_NAMES, type SourceName } from '../../../webhook-server/src/sources/types.js';
import type { OutboxCounts } from '../../../webhook-server/src/store/types.js';
import { TEST_DATABASE_URL } from './postgres.js';

export type StoreKind = 'sqlite' | 'postgres';

export const TEST_SECRET = 'It\'s a Secret to Everybody';
export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

/** Every source on, with the same secret, so fixtures can be signed without a table of secrets. */
export function allSecrets(secret = TEST_SECRET): Partial<Record<SourceName, string[]>> {
  return Object.fromEntries(SOURCE_NAMES.map((name) => [name, [secret]]));
}

export interface TestBridge extends RunningBridge {
  dataDir: string;
  config: BridgeConfig;
  post(source: string, body: Buffer | string, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
}

/**
 * The real bridge, in process on port 0, with fast retries so that backoff paths finish within a test.
 * `schema` picks the PostgreSQL store; without it the SQLite store lives in a fresh temp dir.
 */
export async function startTestBridge(options: {
  serviceUrl: string;
  token: string;
  schema?: string;
  dataDir?: string;
  secrets?: Partial<Record<SourceName, string[]>>;
  config?: Partial<BridgeConfig>;
  delivery?: Partial<BridgeConfig['delivery']>;
  /** Receives every log line (JSON text); by default logs are dropped. */
  logLines?: string[];
}): Promise<TestBridge> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'timemark-bridge-'));
  const config: BridgeConfig = {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    dataDirOption: '--data-dir / TIMEMARK_BRIDGE_DATA_DIR',
    service: { url: options.serviceUrl, token: options.token },
    secrets: options.secrets ?? allSecrets(),
    adminToken: ADMIN_TOKEN,
    mapping: { datasets: ['deploys'], types: DEFAULT_TYPES, rules: [] },
    delivery: { ...DELIVERY_DEFAULTS, pollMs: 50, baseDelayMs: 50, maxDelayMs: 400, maxAttempts: 6, leaseMs: 15_000, ...options.delivery },
    bodyLimitBytes: 1024 * 1024,
    logLevel: 'silent',
    ...options.config,
  };
  if (options.schema) config.database = { url: TEST_DATABASE_URL, schema: options.schema };
  const logger = options.logLines
    ? createLogger({ name: 'timemark-bridge', level: 'debug', destination: { write: (line: string) => void options.logLines?.push(line) } })
    : createLogger({ name: 'timemark-bridge', level: parseLogLevel('TIMEMARK_TEST_LOG', process.env.TIMEMARK_TEST_LOG ?? 'silent') });
  const bridge = await startBridge(config, { logger });
  return {
    ...bridge,
    dataDir,
    config,
    close: async () => {
      await bridge.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    post: async (source, body, headers = {}) => {
      const response = await fetch(`${bridge.url}/webhooks/${source}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
  };
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Resolves once no episode is pending — every recorded change applied or given up — the state
 * after which the bridge does nothing more on its own. Tests that prove something did not happen
 * wait for it instead of sleeping.
 */
export function outboxDrained(counts: () => Promise<OutboxCounts>, timeoutMs = 10_000): Promise<OutboxCounts> {
  return eventually(async () => {
    const current = await counts();
    return current.pending === 0 ? current : undefined;
  }, 'no pending episode in the outbox', timeoutMs);
}

/** The outbox counts of a running bridge, read through its admin API as an operator would. */
export function adminOutbox(bridgeUrl: string, adminToken = ADMIN_TOKEN): () => Promise<OutboxCounts> {
  return async () => {
    const response = await fetch(`${bridgeUrl}/admin/outbox`, { headers: { authorization: `Bearer ${adminToken}` } });
    if (!response.ok) throw new Error(`GET /admin/outbox answered ${response.status}`);
    return (await response.json()) as OutboxCounts;
  };
}
