/**
 * The bridge with its SQLite data dir on a small filesystem (a 16 MB tmpfs mounted for the test),
 * filled up: a delivery is refused with 503 and Retry-After, so the sender retries, and the same
 * delivery is recorded once space is back, without a restart.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../helpers/local-service.js';
import { runOnlyIf } from '../../helpers/requirements.js';
import { mountSmallFilesystem, type SmallFilesystem } from '../../helpers/small-filesystem.js';
import { SQLITE_FILE_NAME } from '../../../webhook-server/src/store/sqlite.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { githubDelivery, withDeploymentId } from '../helpers/github.js';

describe('the bridge on a full disk', () => {
  // Mounted in beforeAll, so that a run that skips these tests mounts nothing.
  let disk: SmallFilesystem | undefined;
  let mounted = false;
  let dataDir = '';
  let service: LocalService | undefined;
  let bridge: TestBridge | undefined;

  beforeAll(async () => {
    disk = mountSmallFilesystem('timemark-bridge-full-', 16);
    mounted = disk.mounted;
    if (!mounted) return;
    dataDir = join(disk.mountPoint, 'data');
    mkdirSync(dataDir);
    service = await startLocalService();
    bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, dataDir });
  });
  afterAll(async () => {
    await bridge?.close();
    await service?.close();
    disk?.remove();
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
    disk?.fill();

    const refused = githubDelivery('deployment.created', { change: withDeploymentId(910_002), delivery: 'full-refused' });
    const response = await fetch(`${running.url}/webhooks/github`, { method: 'POST', body: refused.body, headers: { 'content-type': 'application/json', ...refused.headers } });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({ code: 503, message: 'The bridge cannot serve this request right now. Retry later.' });

    disk?.free();
    const retried = await running.post('github', refused.body, refused.headers);
    expect(retried.status).toBe(202);
    expect(await running.store.episodes('github:acme/shop:deployment:910002')).toHaveLength(1);
    expect(await running.store.episodes('github:acme/shop:deployment:910001')).toHaveLength(1);
  });
});
