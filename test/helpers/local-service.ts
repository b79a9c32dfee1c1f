import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '../../src/service/server.js';

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

/** Starts the real local service in this process on a free port with a fresh data dir. */
export async function startLocalService(options: { dataDir?: string } = {}): Promise<LocalService> {
  const dataDir = options.dataDir ?? makeTempDir('service');
  const service = await startService({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    tokens: [TEST_TOKEN, TEST_PERSONAL_TOKEN],
    orgId: TEST_ORG,
  });
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
