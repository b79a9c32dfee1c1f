import { AxiomWithoutBatching } from '@axiomhq/js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnnotationsClient, type AnnotationsClient } from '../../src/client/index.js';
import { loadServiceConfig, type ServiceConfig } from '../../src/service/config.js';
import type { MonitorRuntimeOptions } from '../../src/service/monitors/runtime.js';
import { startService, type RunningService } from '../../src/service/server.js';
import { aroundTests } from './around-tests.js';

export const TEST_TOKEN = 'xaat-test-token-0123456789abcdef';
export const TEST_PERSONAL_TOKEN = 'xapt-test-personal-0123456789abcdef';
export const TEST_ORG = 'test-org';

export interface LocalService {
  url: string;
  token: string;
  dataDir: string;
  service: RunningService;
  close(): Promise<void>;
}

export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `timemark-${prefix}-`));
}

/**
 * A configuration as `timemark serve` would load it: port 0 unless given, the test tokens and
 * org, and logs off (TIMEMARK_TEST_LOG=info shows them).
 */
export function testServiceConfig(options: { dataDir: string; port?: number; tokens?: string[] }): ServiceConfig {
  return loadServiceConfig(
    { port: options.port ?? 0, host: '127.0.0.1', dataDir: options.dataDir, tokens: options.tokens ?? [TEST_TOKEN, TEST_PERSONAL_TOKEN], orgId: TEST_ORG },
    { TIMEMARK_LOG_LEVEL: process.env.TIMEMARK_TEST_LOG ?? 'silent' },
  );
}

/** Starts the real local service in this process on a free port with a fresh data dir. */
export async function startLocalService(options: { dataDir?: string; monitors?: MonitorRuntimeOptions } = {}): Promise<LocalService> {
  const dataDir = options.dataDir ?? makeTempDir('service');
  const service = await startService(testServiceConfig({ dataDir }), options.monitors ? { monitors: options.monitors } : {});
  return {
    url: service.url,
    token: TEST_TOKEN,
    dataDir,
    service,
    close: async () => {
      await service.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The local service of a test file (or `describe` block), with the ways tests talk to it. */
export interface ServiceFixture extends LocalService {
  /** `TIMEMARK_URL` and `TIMEMARK_TOKEN` for the command line. */
  readonly cliEnv: NodeJS.ProcessEnv;
  /** The official client, `@axiomhq/js` 2.0.0, unmodified, pointed at the service. */
  readonly axiom: AxiomWithoutBatching;
  /** Timemark's own annotations client, without retries (a test sees every failure). */
  readonly annotations: AnnotationsClient;
}

/**
 * Starts the real local service before the tests of the file (or of the `describe` block it is
 * called in) and stops it after them. Read its members inside tests and hooks, once it runs.
 */
export function useLocalService(options: { monitors?: MonitorRuntimeOptions } = {}): ServiceFixture {
  let axiom: AxiomWithoutBatching | undefined;
  let annotations: AnnotationsClient | undefined;
  const current = aroundTests(
    'The local service',
    () => startLocalService(options),
    async (running) => {
      await annotations?.close();
      await running.close();
    },
  );
  return {
    get url() {
      return current().url;
    },
    get token() {
      return current().token;
    },
    get dataDir() {
      return current().dataDir;
    },
    get service() {
      return current().service;
    },
    close: () => current().close(),
    get cliEnv() {
      return { TIMEMARK_URL: current().url, TIMEMARK_TOKEN: current().token };
    },
    get axiom() {
      axiom ??= new AxiomWithoutBatching({ token: current().token, url: current().url });
      return axiom;
    },
    get annotations() {
      annotations ??= createAnnotationsClient({ url: current().url, token: current().token, retries: 0 });
      return annotations;
    },
  };
}
