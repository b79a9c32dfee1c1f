import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirError } from '../../../src/common/errors.js';
import { eventRecord } from '../../../webhook-server/src/store/ingest-group.js';
import { openSqliteStoreOnThread, packRecords, unpackRecords } from '../../../webhook-server/src/store/sqlite-thread.js';
import { StoreUnavailableError, type PreparedEvent } from '../../../webhook-server/src/store/types.js';

/** The SQLite store on its own thread (sqlite-thread.ts): what the bridge process runs. */
const T0 = Date.parse('2024-06-28T14:55:57Z');

function event(phase: 'start' | 'finish', key: string): PreparedEvent {
  return {
    event: {
      source: 'github',
      dedupeKey: `${key}:${phase}`,
      correlationKey: key,
      phase,
      occurredAt: phase === 'start' ? T0 : T0 + 60_000,
      category: 'deploy',
      title: 'Deploy',
      context: { environment: 'production' },
      ...(phase === 'finish' ? { outcome: 'success' as const } : {}),
    },
    target: { datasets: ['prod'], type: 'deploy', title: 'Deploy' },
  };
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'timemark-thread-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('the SQLite store on its own thread', () => {
  it('gets a delivery\'s event rows as flat text that unpacks to the same rows, whatever their strings', () => {
    const record = fc.record({ source: fc.string(), dedupeKey: fc.string(), correlationKey: fc.string(), event: fc.string({ unit: 'binary' }), target: fc.string({ unit: 'binary' }) });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 20 }), (records) => {
        const packed = packRecords(records);
        expect(packed.every((field) => typeof field === 'string')).toBe(true);
        expect(unpackRecords(packed)).toEqual(records);
      }),
    );
    // The row's text is the event's and its target's JSON, made once on the HTTP thread.
    const prepared = event('start', 'thread:pack');
    expect(unpackRecords(packRecords([eventRecord(prepared)]))).toEqual([
      { source: 'github', dedupeKey: 'thread:pack:start', correlationKey: 'thread:pack', event: JSON.stringify(prepared.event), target: JSON.stringify(prepared.target) },
    ]);
  });

  it('records, folds and reads as the store in place does, and counts the deliveries it is recording', async () => {
    const store = await openSqliteStoreOnThread(dataDir());
    cleanup.push(() => store.close());
    expect(store.kind).toBe('sqlite');
    const both = [store.ingest([event('start', 'thread:a')], T0), store.ingest([event('finish', 'thread:a'), event('start', 'thread:b')], T0 + 1)];
    expect(store.recording).toBe(2);
    expect(await Promise.all(both)).toEqual([
      { accepted: 1, duplicates: 0 },
      { accepted: 2, duplicates: 0 },
    ]);
    expect(store.recording).toBe(0);
    expect(await store.ingest([event('start', 'thread:a')], T0 + 2)).toEqual({ accepted: 0, duplicates: 1 });
    expect(await store.episodes('thread:a')).toMatchObject([{ seq: 1, version: 2, state: { startedAt: T0, endedAt: T0 + 60_000, outcome: 'success' } }]);
    expect(await store.counts()).toEqual({ pending: 2, synced: 0, dead: 0 });
    const [claimed] = await store.claimBatch('w', Date.now(), 1);
    expect(claimed).toMatchObject({ status: 'pending' });
  });

  it('refuses a data dir another live bridge holds, with the data dir error the command line reports', async () => {
    const dir = dataDir();
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    cleanup.push(() => void other.kill());
    writeFileSync(join(dir, 'bridge.pid'), `${other.pid}\n`);
    const opening = openSqliteStoreOnThread(dir);
    await expect(opening).rejects.toBeInstanceOf(DataDirError);
    await expect(opening).rejects.toThrow(`Another bridge (pid ${other.pid}) is using the data dir`);
  });

  it('answers a call made after it closed as the store being unavailable', async () => {
    const store = await openSqliteStoreOnThread(dataDir());
    await store.close();
    await expect(store.counts()).rejects.toBeInstanceOf(StoreUnavailableError);
    await store.close();
  });
});
