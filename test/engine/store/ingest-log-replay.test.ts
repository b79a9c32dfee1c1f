import { spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { restageBody } from '../../../src/engine/ingest/restage.js';
import { LOG_DIR } from '../../../src/engine/store/event-store.js';
import { exited } from '../../helpers/child-process.js';
import { openTestStore } from '../../helpers/event-store.js';
import { makeTempDir } from '../../helpers/local-service.js';

const CHILD = fileURLToPath(new URL('../../fixtures/engine/append-then-hang.mjs', import.meta.url));
const dataDir = makeTempDir('ingest-log-replay');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs the child until it printed `acked` for every batch, then kills it with SIGKILL. */
async function appendThenKill(batches: number, perBatch: number): Promise<void> {
  const child = spawn(process.execPath, [CHILD, dataDir, String(batches), String(perBatch)], { stdio: ['ignore', 'pipe', 'inherit'] });
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
});
