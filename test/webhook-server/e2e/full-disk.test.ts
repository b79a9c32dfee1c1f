/**
 * The bridge with its SQLite data dir on a small filesystem (a 16 MB tmpfs mounted for the test),
 * filled up: a delivery is refused with 503 and Retry-After, so the sender retries, and the same
 * delivery is recorded once space is back, without a restart.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../helpers/local-service.js';
import { runOnlyIf } from '../../helpers/requirements.js';
import { SQLITE_FILE_NAME } from '../../../webhook-server/src/store/sqlite.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { githubDelivery, withDeploymentId } from '../helpers/github.js';

/** Writes zeros until the filesystem refuses even one more byte. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe('the bridge on a full disk', () => {
  const mountPoint = mkdtempSync(join(tmpdir(), 'timemark-bridge-full-'));
  const dataDir = join(mountPoint, 'data');
  const filler = join(mountPoint, 'filler');
  let mounted = false;
  let service: LocalService | undefined;
  let bridge: TestBridge | undefined;

  beforeAll(async () => {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint], { stdio: 'ignore' });
      mounted = true;
    } catch {
      return;
    }
    mkdirSync(dataDir);
    service = await startLocalService();
    bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, dataDir });
  });
  afterAll(async () => {
    await bridge?.close();
    await service?.close();
    if (mounted) execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After, and records the retried delivery once space is back', async (context) => {
    runOnlyIf(context, mounted, 'it mounts a 16 MB tmpfs, which needs root');
    const running = bridge as TestBridge;
    const before = githubDelivery('deployment.created', { change: withDeploymentId(910_001), delivery: 'full-before' });
    expect((await running.post('github', before.body, before.headers)).status).toBe(202);

    // The WAL handed back to the filesystem, so that no commit can reuse its pages.
    const db = new Database(join(dataDir, SQLITE_FILE_NAME));
    expect(db.pragma('wal_checkpoint(TRUNCATE)', { simple: true })).toBe(0);
    db.close();
    fill(filler);

    const refused = githubDelivery('deployment.created', { change: withDeploymentId(910_002), delivery: 'full-refused' });
    const response = await fetch(`${running.url}/webhooks/github`, { method: 'POST', body: refused.body, headers: { 'content-type': 'application/json', ...refused.headers } });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({ code: 503, message: 'The bridge cannot serve this request right now. Retry later.' });

    rmSync(filler);
    const retried = await running.post('github', refused.body, refused.headers);
    expect(retried.status).toBe(202);
    expect(await running.store.episodes('github:acme/shop:deployment:910002')).toHaveLength(1);
    expect(await running.store.episodes('github:acme/shop:deployment:910001')).toHaveLength(1);
  });
});
