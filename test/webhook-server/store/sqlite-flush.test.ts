import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, syncInPlace, syncOnPool, type FileSync } from '../../../webhook-server/src/store/sqlite.js';
import type { BridgeStore, PreparedEvent } from '../../../webhook-server/src/store/types.js';

const NOW = Date.parse('2024-06-28T16:00:00Z');

function start(key: string): PreparedEvent {
  return {
    event: { source: 'github', dedupeKey: `${key}-start`, correlationKey: key, phase: 'start', occurredAt: NOW, category: 'deploy', title: 'Deploy', context: {} },
    target: { datasets: ['prod'], type: 'deploy', title: 'Deploy' },
  };
}

/** A flush the test lets through one at a time, counting them. */
function heldFlush() {
  const pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  const sync: FileSync = () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
  return { sync, pending, release: () => pending.shift()?.resolve(), fail: (error: Error) => pending.shift()?.reject(error) };
}

const settledYet = async (promise: Promise<unknown>): Promise<boolean> => {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup) await step();
  cleanup = [];
});

function open(sync: FileSync): BridgeStore {
  const dir = mkdtempSync(join(tmpdir(), 'timemark-flush-'));
  const store = openSqliteStore(dir, sync);
  cleanup.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

describe('the SQLite store flushes before it tells', () => {
  it('acknowledges a delivery, and shows what it wrote to a read, only once the WAL is on disk', async () => {
    const flush = heldFlush();
    const store = open(flush.sync);
    const ingest = store.ingest([start('flush:a')], NOW);
    expect(await settledYet(ingest)).toBe(false);
    // A read after the commit folds the delivery's event into its episode first, and the fold
    // that read an event still on its way to the disk is told nothing before it gets there.
    const read = store.episodes('flush:a');
    expect(await settledYet(read)).toBe(false);
    expect(flush.pending).toHaveLength(1);
    flush.release();
    expect(await ingest).toEqual({ accepted: 1, duplicates: 0 });
    // The fold's own commit is flushed before the read answers, too.
    expect(await settledYet(read)).toBe(false);
    expect(flush.pending).toHaveLength(1);
    flush.release();
    expect(await read).toHaveLength(1);
  });

  it('settles every commit made during one flush with the next single flush', async () => {
    const flush = heldFlush();
    const store = open(flush.sync);
    const first = store.ingest([start('flush:b1')], NOW);
    await settledYet(first);
    const later = Array.from({ length: 5 }, (_, index) => store.ingest([start(`flush:b${index + 2}`)], NOW));
    await settledYet(Promise.all(later));
    expect(flush.pending).toHaveLength(1);
    flush.release();
    await first;
    expect(await settledYet(Promise.all(later))).toBe(false);
    expect(flush.pending).toHaveLength(1);
    flush.release();
    expect((await Promise.all(later)).every((result) => result.accepted === 1)).toBe(true);
  });

  it('answers a read at once when nothing it could see is waiting for the disk', async () => {
    const flush = heldFlush();
    const store = open(flush.sync);
    expect(await store.episodes('flush:none')).toEqual([]);
    expect(flush.pending).toHaveLength(0);
  });

  it('reports a failed flush to those waiting on it, and a retry of the delivery is a harmless duplicate', async () => {
    const flush = heldFlush();
    const store = open(flush.sync);
    const ingest = store.ingest([start('flush:c')], NOW);
    await settledYet(ingest);
    flush.fail(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await expect(ingest).rejects.toThrow(/EIO/);
    const retry = store.ingest([start('flush:c')], NOW);
    await settledYet(retry);
    flush.release();
    expect(await retry).toEqual({ accepted: 0, duplicates: 1 });
  });

  it('flushes in place on the store thread as it does on the pool: what it acknowledged is in the file when the store reopens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timemark-flush-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const flushes: number[] = [];
    const counted: FileSync = (fd) => {
      flushes.push(fd);
      return syncInPlace(fd);
    };
    const store = openSqliteStore(dir, counted);
    expect(await store.ingest([start('flush:d')], NOW)).toEqual({ accepted: 1, duplicates: 0 });
    expect(flushes).toHaveLength(1);
    await store.close();
    const reopened = openSqliteStore(dir, syncInPlace);
    cleanup.push(() => reopened.close());
    expect(await reopened.ingest([start('flush:d')], NOW)).toEqual({ accepted: 0, duplicates: 1 });
    expect(await reopened.episodes('flush:d')).toHaveLength(1);
  });

  it('turns a failed in-place flush into a rejection, as on the pool, never a throw from inside the commit', async () => {
    // A descriptor number no file has here: fsync fails with EBADF on either path.
    await expect(syncInPlace(1_000_000)).rejects.toMatchObject({ code: 'EBADF' });
    await expect(syncOnPool(1_000_000)).rejects.toMatchObject({ code: 'EBADF' });
  });
});
