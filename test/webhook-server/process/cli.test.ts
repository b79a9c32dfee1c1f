import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, runTimemark, startTimemark } from '../../helpers/child-process.js';
import { startLocalService } from '../../helpers/local-service.js';
import { ADMIN_TOKEN, eventually, TEST_SECRET } from '../helpers/bridge.js';
import { githubDelivery } from '../helpers/github.js';

const READY = /Timemark bridge listening on (http:\/\/\S+)/;

describe('timemark bridge', () => {
  const dir = mkdtempSync(join(tmpdir(), 'timemark-bridge-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start with a message naming the missing variable', async () => {
    const result = await runTimemark(['bridge', '--port', '0', '--data-dir', dir], { TIMEMARK_URL: 'http://127.0.0.1:1', TIMEMARK_TOKEN: 'xaat-x', GITHUB_WEBHOOK_SECRET: 's' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('TIMEMARK_DATASETS is not set');
  });

  it('refuses a second bridge on a data dir another bridge is using', async () => {
    const env = { TIMEMARK_URL: 'http://127.0.0.1:1', TIMEMARK_TOKEN: 'xaat-x', TIMEMARK_DATASETS: 'd', GITHUB_WEBHOOK_SECRET: 's', TIMEMARK_BRIDGE_LOG_LEVEL: 'silent' };
    const dataDir = join(dir, 'owned');
    const first = await startTimemark(['bridge', '--port', '0', '--data-dir', dataDir], READY, env);
    try {
      const second = await runTimemark(['bridge', '--port', '0', '--data-dir', dataDir], env);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`Another bridge (pid ${first.child.pid}) is using the data dir`);
    } finally {
      first.child.kill('SIGTERM');
      expect(await exited(first.child)).toBe(0);
    }
    const third = await startTimemark(['bridge', '--port', '0', '--data-dir', dataDir], READY, env);
    third.child.kill('SIGTERM');
    expect(await exited(third.child)).toBe(0);
  });

  it('names the file of a generated admin token and never prints the token', async () => {
    const dataDir = join(dir, 'generated-admin');
    const env = { TIMEMARK_URL: 'http://127.0.0.1:1', TIMEMARK_TOKEN: 'xaat-x', TIMEMARK_DATASETS: 'd', GITHUB_WEBHOOK_SECRET: TEST_SECRET, TIMEMARK_BRIDGE_LOG_LEVEL: 'info' };
    const bridge = await startTimemark(['bridge', '--port', '0', '--data-dir', dataDir], READY, env);
    try {
      await eventually(async () => (/admin:/.test(bridge.output()) ? true : undefined), 'the banner');
      const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
      expect(bridge.output()).toContain(`admin:    bearer token generated and saved in ${join(dataDir, 'admin-token')}`);
      expect(bridge.output()).not.toContain(token);
      expect(bridge.output()).not.toContain(TEST_SECRET);
    } finally {
      bridge.child.kill('SIGTERM');
      expect(await exited(bridge.child)).toBe(0);
    }
    expect(bridge.output()).not.toContain(readFileSync(join(dataDir, 'admin-token'), 'utf8').trim());
  });

  it('lists dead letters from the command line', async () => {
    const service = await startLocalService();
    const config = join(dir, 'bridge.json');
    writeFileSync(config, JSON.stringify({ datasets: ['deploys'], delivery: { maxAttempts: 1 } }));
    const bridge = await startTimemark(['bridge', '--port', '0', '--data-dir', join(dir, 'data'), '--config', config], READY, {
      TIMEMARK_URL: service.url,
      TIMEMARK_TOKEN: 'xaat-a-token-the-service-refuses',
      GITHUB_WEBHOOK_SECRET: TEST_SECRET,
      TIMEMARK_BRIDGE_ADMIN_TOKEN: ADMIN_TOKEN,
      TIMEMARK_BRIDGE_LOG_LEVEL: 'silent',
    });
    const url = bridge.match[1]!;
    try {
      const { body, headers } = githubDelivery('deployment.created', { delivery: 'cli-dead-letter' });
      expect((await fetch(`${url}/webhooks/github`, { method: 'POST', body, headers })).status).toBe(202);
      const listed = await eventually(async () => {
        const result = await runTimemark(['bridge', 'dead-letters', '--url', url, '--admin-token', ADMIN_TOKEN]);
        return result.code === 0 && result.stdout.includes('github:acme/shop:deployment:1234567890') ? result : undefined;
      }, 'the dead letter listed');
      expect(JSON.parse(listed.stdout).deadLetters[0]).toMatchObject({ source: 'github', status: 'dead', attempts: 1 });
      const refused = await runTimemark(['bridge', 'dead-letters', '--url', url, '--admin-token', 'wrong-token']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('401');
    } finally {
      bridge.child.kill('SIGTERM');
      await exited(bridge.child);
      await service.close();
    }
  });
});
