import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDiskWatch, isDiskFull } from '../../src/common/disk-full.js';
import { InsufficientStorageError } from '../../src/common/errors.js';
import { createLogger } from '../../src/common/logger.js';

describe('isDiskFull', () => {
  it.each([
    ['Node (ENOSPC)', Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })],
    ['a quota (EDQUOT)', Object.assign(new Error('EDQUOT: disk quota exceeded, write'), { code: 'EDQUOT' })],
    ['SQLite', Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })],
    ['DuckDB', new Error('IO Error: Could not write file "/data/events.duckdb.wal": No space left on device')],
    ['a wrapped cause', new Error('Acknowledged events could not be loaded', { cause: new Error('Could not write file: No space left on device') })],
  ])('recognises %s', (_name, error) => {
    expect(isDiskFull(error)).toBe(true);
  });

  it.each([
    ['another file error', Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })],
    ['a busy database', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })],
    ['not an error', 'disk'],
  ])('leaves %s alone', (_name, error) => {
    expect(isDiskFull(error)).toBe(false);
  });
});

describe('the disk watch', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'timemark-disk-watch-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('logs one error per episode, answers a 507 naming the setting, and ends the episode once a probe fits', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ name: 'test', level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    let spaceBack = 0;
    const watch = createDiskWatch({ dataDir, setting: '--data-dir / TIMEMARK_DATA_DIR', logger, onSpaceBack: () => spaceBack++ });
    try {
      const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      expect(watch.translate(new Error('something else'))).toBeUndefined();
      const reply = watch.translate(full);
      expect(reply).toBeInstanceOf(InsufficientStorageError);
      expect(reply?.message).toContain('(--data-dir / TIMEMARK_DATA_DIR)');
      watch.translate(full);
      expect(watch.noteBackground(full)).toBe(true);
      expect(lines.filter((line) => line.level === 50)).toHaveLength(1);
      // This disk has room: the probe fits, the episode ends, and a later failure is a new episode.
      await watch.check();
      expect(spaceBack).toBe(1);
      expect(lines.map((line) => line.msg)).toContain('disk space available again: writes are taken again');
      watch.translate(full);
      expect(lines.filter((line) => line.level === 50)).toHaveLength(2);
    } finally {
      watch.close();
    }
  });
});
