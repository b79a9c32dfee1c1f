import { rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { burstUntilKilled } from '../helpers/burst.js';
import { exited, startServeProcess } from '../helpers/child-process.js';
import { openTestStore } from '../helpers/event-store.js';
import { makeTempDir, TEST_TOKEN } from '../helpers/local-service.js';

const dataDir = makeTempDir('ingest-durability');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const startServe = () => startServeProcess(dataDir, TEST_TOKEN);

const EVENTS_PER_REQUEST = 200;

/** Request `n`'s events: each names its request and position; every seventh request brings a new field (a schema change). */
function body(n: number): Buffer {
  const lines = Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => {
    const event: Record<string, unknown> = { request: n, position: i, value: n % 3 === 0 ? i : `v${i}` };
    if (n % 7 === 0) event[`field_${n}`] = true;
    return JSON.stringify(event);
  });
  return gzipSync(lines.join('\n'));
}

describe('ingest durability', () => {
  it('keeps every acknowledged event exactly once after kill -9 in the middle of a burst, and no part of any other request', async () => {
    const first = await startServe();
    const killAfter = 120;
    const acknowledged = await burstUntilKilled({
      child: first.child,
      total: 400,
      killAfter,
      concurrency: 8,
      send: async (n) => {
        const response = await fetch(`${first.url}/v1/datasets/durable/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
          body: body(n),
        });
        return response.status === 200 && ((await response.json()) as { ingested: number }).ingested === EVENTS_PER_REQUEST;
      },
    });
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.size).toBeGreaterThanOrEqual(killAfter);

    // The restarted service replays the WAL and serves the dataset again.
    const second = await startServe();
    const fields = await fetch(`${second.url}/v2/datasets/durable/fields`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(fields.status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);

    const handle = await openTestStore({ dataDir });
    try {
      const schema = handle.store.schema('durable');
      const columnOf = new Map(schema?.fields.map((field) => [field.name, field.column]));
      const perRequest = await handle.query(
        `SELECT ${columnOf.get('request')} AS request, count(*) AS events, count(DISTINCT ${columnOf.get('position')}) AS positions, count(DISTINCT _rowid) AS row_ids
         FROM ${schema?.table} GROUP BY 1 ORDER BY 1`,
      );
      const stored = new Map(perRequest.map((row) => [Number(row.request), row]));
      for (const n of acknowledged) {
        expect(stored.get(n), `request ${n}`).toEqual({ request: BigInt(n), events: 200n, positions: 200n, row_ids: 200n });
      }
      // A request that was not acknowledged is either wholly there (committed just before the kill) or not at all.
      for (const [n, row] of stored) {
        expect(row, `request ${n}`).toEqual({ request: BigInt(n), events: 200n, positions: 200n, row_ids: 200n });
      }
      // Schema changes made in the burst survived with their data.
      for (const n of acknowledged) {
        if (n % 7 !== 0) continue;
        const [row] = await handle.query(`SELECT count(*) AS n FROM ${schema?.table} WHERE ${columnOf.get(`field_${n}`)} = true`);
        expect(row?.n, `field_${n}`).toBe(200n);
      }
    } finally {
      await handle.close({ keep: true });
    }
  }, 120_000);
});
