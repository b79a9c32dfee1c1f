import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTimemark } from '../helpers/child-process.js';
import { makeTempDir } from '../helpers/local-service.js';
import { runOnlyIf } from '../helpers/requirements.js';

/** The account that owns nothing here; only root can start a process as it. */
const NOBODY = { uid: 65534, gid: 65534 };
const asRoot = process.getuid?.() === 0;

const root = makeTempDir('data-dir');
// Open for traversal, so that another user reaches the directories made inside it.
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bridgeEnv = { TIMEMARK_URL: 'http://127.0.0.1:1', TIMEMARK_TOKEN: 'xaat-x', TIMEMARK_DATASETS: 'd', GITHUB_WEBHOOK_SECRET: 's' };

/** A regular file where a directory is wanted. */
function fileAt(name: string): string {
  const path = join(root, name);
  writeFileSync(path, 'not a directory');
  return path;
}

/** A directory only root may write. */
function rootOnlyDir(name: string): string {
  const path = join(root, name);
  mkdirSync(path, { mode: 0o755 });
  return path;
}

describe('a data dir that cannot be used ends the process at once, with exit 1 and a sentence naming the option', () => {
  it.each([
    ['on the proc pseudo file system', () => '/proc/timemark-x', /\/proc is on the proc pseudo file system, which cannot keep files/],
    ['a file in the way', () => fileAt('serve-file'), /is a file, not a directory/],
    ['under a file', () => join(fileAt('serve-parent'), 'below'), /is a file, not a directory/],
  ])('serve: %s', async (_what, path, problem) => {
    const dataDir = path();
    const result = await runTimemark(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`timemark serve: Cannot use the data dir ${dataDir} (--data-dir / TIMEMARK_DATA_DIR): `);
    expect(result.stderr).toMatch(problem);
    expect(result.stderr).toMatch(/Expected a directory this user can create and write, on a disk, e\.g\. --data-dir \.\/data\.\n$/);
  });

  it('serve: a directory this user may not create or write', async (context) => {
    runOnlyIf(context, asRoot, 'it runs the command as another user, which needs root');
    const notCreatable = join(rootOnlyDir('serve-locked'), 'inside');
    const created = await runTimemark(['serve', '--port', '0'], { TIMEMARK_DATA_DIR: notCreatable }, NOBODY);
    expect(created.code).toBe(1);
    expect(created.stderr).toContain(`Cannot use the data dir ${notCreatable} (--data-dir / TIMEMARK_DATA_DIR): this user may not write in`);
    expect(created.stderr).not.toMatch(/EACCES: permission denied, mkdir/);

    const notWritable = rootOnlyDir('serve-read-only');
    const written = await runTimemark(['serve', '--port', '0', '--data-dir', notWritable], {}, NOBODY);
    expect(written.code).toBe(1);
    expect(written.stderr).toContain(`this user may not write in ${notWritable} (permission denied)`);
  });

  it('bridge: names --data-dir and TIMEMARK_BRIDGE_DATA_DIR', async () => {
    const result = await runTimemark(['bridge', '--port', '0'], { ...bridgeEnv, TIMEMARK_BRIDGE_DATA_DIR: '/proc/timemark-y' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^timemark bridge: Cannot use the data dir \/proc\/timemark-y \(--data-dir \/ TIMEMARK_BRIDGE_DATA_DIR\): \/proc is on the proc pseudo file system/);
  });

  it('bridge: a directory this user may not write', async (context) => {
    runOnlyIf(context, asRoot, 'it runs the command as another user, which needs root');
    const dataDir = rootOnlyDir('bridge-read-only');
    const result = await runTimemark(['bridge', '--port', '0', '--data-dir', dataDir], bridgeEnv, NOBODY);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Cannot use the data dir ${dataDir} (--data-dir / TIMEMARK_BRIDGE_DATA_DIR): this user may not write in ${dataDir}`);
  });

  it('start: names the option of the data dir at fault', async () => {
    const service = await runTimemark(['start', '--port', '0', '--bridge-port', '0', '--data-dir', fileAt('start-service')]);
    expect(service.code).toBe(1);
    expect(service.stderr).toContain('(--data-dir / TIMEMARK_DATA_DIR): ');

    const bridge = await runTimemark(['start', '--port', '0', '--bridge-port', '0', '--data-dir', join(root, 'start-ok'), '--bridge-data-dir', '/proc/timemark-z']);
    expect(bridge.code).toBe(1);
    expect(bridge.stderr).toContain('Cannot use the data dir /proc/timemark-z (--bridge-data-dir / TIMEMARK_BRIDGE_DATA_DIR): ');
  });
});
