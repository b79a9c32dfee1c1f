import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { restageBody } from '../../../src/engine/ingest/restage.js';
import { EVENTS_FILE, LOG_DIR } from '../../../src/engine/store/event-store.js';
import { exited, spawnChild } from '../../helpers/child-process.js';
import { openTestStore } from '../../helpers/event-store.js';
import { makeTempDir } from '../../helpers/local-service.js';

const CHILD = fileURLToPath(new URL('../../fixtures/engine/append-then-hang.mjs', import.meta.url));
const dataDir = makeTempDir('ingest-log-replay');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs the child until it printed `acked` for every batch, then kills it with SIGKILL. */
async function appendThenKill(batches: number, perBatch: number, loadRows?: number): Promise<void> {
  const args = [CHILD, dataDir, String(batches), String(perBatch), ...(loadRows ? [String(loadRows)] : [])];
  const child = spawnChild(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`acked ${batches - 1}\n`)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`The child exited (${code}) before acknowledging every batch: ${output}`)));
  });
  child.kill('SIGKILL');
  await exited(child);
}

describe('the ingest log', () => {
  it('loads at the next open, exactly once, every batch acknowledged before kill -9 but not yet loaded', async () => {
    const batches = 8;
    const perBatch = 250;
    await appendThenKill(batches, perBatch);
    // Batches 0-2 were loaded when batch 3's new field flushed them; 3-7 only ever reached the log.
    expect(readdirSync(`${dataDir}/${LOG_DIR}`).filter((name) => name.endsWith('.body')).length).toBeGreaterThan(0);

    const handle = await openTestStore({ dataDir, restage: restageBody });
    try {
      const table = handle.store.schema('replayed')?.table as string;
      const rows = await handle.query(`SELECT count(*) AS n, count(DISTINCT _rowid) AS ids, min(_rowid) AS first, max(_rowid) AS last FROM ${table}`);
      expect(rows).toEqual([{ n: BigInt(batches * perBatch), ids: BigInt(batches * perBatch), first: 0n, last: BigInt(batches * perBatch - 1) }]);
      const columnOf = new Map(handle.store.schema('replayed')?.fields.map((field) => [field.name, field.column]));
      const perBatchRows = await handle.query(
        `SELECT ${columnOf.get('batch')} AS batch, count(*) AS n, min(_rowid) AS first, count(${columnOf.get('added')}) AS added FROM ${table} GROUP BY 1 ORDER BY 1`,
      );
      expect(perBatchRows).toEqual(
        Array.from({ length: batches }, (_, batch) => ({ batch: BigInt(batch), n: BigInt(perBatch), first: BigInt(batch * perBatch), added: batch === 3 ? BigInt(perBatch) : 0n })),
      );
      // Row ids go on after the replayed ones; the log directory holds only what the new run wrote.
      await handle.load('replayed', [{ batch: 99 }]);
      expect(await handle.query(`SELECT max(_rowid) AS last FROM ${table}`)).toEqual([{ last: BigInt(batches * perBatch) }]);
    } finally {
      await handle.close({ keep: true });
    }
  });

  it('refuses to open when a kept body cannot be decoded again (no restage), naming the batch', async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await appendThenKill(6, 10);
    await expect(openTestStore({ dataDir })).rejects.toThrow(/The ingest log keeps request bodies \(batch \d+ of dataset "replayed"\)/);
    const handle = await openTestStore({ dataDir, restage: restageBody });
    expect(await handle.query(`SELECT count(*) AS n FROM ${handle.store.schema('replayed')?.table}`)).toEqual([{ n: 60n }]);
    await handle.close({ keep: true });
  });

  it('replays, exactly once, around batches that loads side by side recorded before kill -9', async () => {
    rmSync(dataDir, { recursive: true, force: true });
    const batches = 12;
    const perBatch = 250;
    await appendThenKill(batches, perBatch, perBatch);
    // The loads recorded their batches one by one, past the position (it only moves when the store idles).
    const instance = await DuckDBInstance.create(join(dataDir, EVENTS_FILE));
    const connection = await instance.connect();
    const recorded = (await connection.runAndReadAll('SELECT count(*) FROM timemark_loaded_batches')).getRowsJS()[0]?.[0];
    const position = (await connection.runAndReadAll('SELECT loaded_through FROM timemark_ingest_log')).getRowsJS()[0]?.[0];
    connection.closeSync();
    instance.closeSync();
    expect(Number(recorded)).toBeGreaterThanOrEqual(3);
    expect(position).toBe(0n);

    const handle = await openTestStore({ dataDir, restage: restageBody });
    try {
      const table = handle.store.schema('replayed')?.table as string;
      const rows = await handle.query(`SELECT count(*) AS n, count(DISTINCT _rowid) AS ids, max(_rowid) AS last FROM ${table}`);
      expect(rows).toEqual([{ n: BigInt(batches * perBatch), ids: BigInt(batches * perBatch), last: BigInt(batches * perBatch - 1) }]);
      await handle.load('replayed', [{ batch: 99 }]);
      expect(await handle.query(`SELECT count(*) AS n FROM ${table}`)).toEqual([{ n: BigInt(batches * perBatch + 1) }]);
    } finally {
      await handle.close({ keep: true });
    }
    // Once open, the position covers everything and the records are folded into it.
    const again = await openTestStore({ dataDir, restage: restageBody });
    try {
      expect(await again.query('SELECT count(*) AS n FROM timemark_loaded_batches')).toEqual([{ n: 0n }]);
      expect(await again.query(`SELECT count(*) AS n FROM ${again.store.schema('replayed')?.table}`)).toEqual([{ n: BigInt(batches * perBatch + 1) }]);
    } finally {
      await again.close({ keep: true });
    }
  });
});
