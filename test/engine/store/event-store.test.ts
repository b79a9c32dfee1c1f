import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { httpLogs } from '../../../bench/lib/http-logs.mjs';
import { decodeBody } from '../../../src/engine/ingest/decode.js';
import { ingestEvents } from '../../../src/engine/ingest/ingest-events.js';
import { INGEST_LIMITS } from '../../../src/engine/ingest/limits.js';
import { parseIngestOptions } from '../../../src/engine/ingest/options.js';
import { stagingFile } from '../../../src/engine/ingest/staging-file.js';
import { joinFieldTypes } from '../../../src/engine/schema.js';
import { QueryCancelledError, QueryMemoryError, QueryTimeoutError, StoreClosedError, StoreLockedError } from '../../../src/engine/store/errors.js';
import { openEventStore } from '../../../src/engine/store/event-store.js';
import { openTestStore, type TestEventStore } from '../../helpers/event-store.js';

const open: TestEventStore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((handle) => handle.close()));
});

async function fresh(options: Parameters<typeof openTestStore>[0] = {}): Promise<TestEventStore> {
  const handle = await openTestStore(options);
  open.push(handle);
  return handle;
}

function fieldsOf(handle: TestEventStore, dataset: string): Record<string, { column: string; storage: string; types: string }> {
  const schema = handle.store.schema(dataset);
  return Object.fromEntries((schema?.fields ?? []).map((field) => [field.name, { column: field.column, storage: field.storage, types: joinFieldTypes(field.types) }]));
}

describe('event store', () => {
  it('names tables and columns itself, so fields that differ only in case are two fields', async () => {
    const handle = await fresh();
    await handle.load('Logs', [{ status: 200, Status: 'OK', 'a"; DROP TABLE x; --': 'hostile', 'nul\u0000name': 1 }]);
    const schema = handle.store.schema('Logs');
    expect(schema?.table).toMatch(/^ds_\d+$/);
    expect(schema?.fields.map((field) => field.column)).toEqual(['_time', '_systime', 'f1', 'f2', 'f3', 'f4']);
    expect(schema?.fields.map((field) => field.name)).toEqual(['_time', '_sysTime', 'status', 'Status', 'a"; DROP TABLE x; --', 'nul\u0000name']);
    const [row] = await handle.query(`SELECT f1, f2, f3, f4 FROM ${schema?.table}`);
    expect(row).toEqual({ f1: 200n, f2: 'OK', f3: 'hostile', f4: 1n });
    // A dataset name that differs only in case is another dataset.
    await handle.load('logs', [{ status: 1 }]);
    expect(handle.store.datasets()).toEqual(['Logs', 'logs']);
    expect(handle.store.schema('logs')?.table).not.toBe(schema?.table);
  });

  it('widens integer to float and anything mixed to string, converting stored values, and reports joined types', async () => {
    const handle = await fresh();
    await handle.load('mixed', [{ n: 1, flag: true, list: [1, 2] }]);
    expect(fieldsOf(handle, 'mixed')).toMatchObject({ n: { storage: 'integer', types: 'integer' }, flag: { storage: 'boolean' }, list: { storage: 'json', types: 'array' } });
    await handle.load('mixed', [{ n: 2.5 }]);
    expect(fieldsOf(handle, 'mixed').n).toMatchObject({ storage: 'float', types: 'integer|float' });
    await handle.load('mixed', [{ n: 'three', flag: 'yes', list: 'none' }]);
    expect(fieldsOf(handle, 'mixed')).toMatchObject({
      n: { storage: 'string', types: 'string|integer|float' },
      flag: { storage: 'string', types: 'string|boolean' },
      list: { storage: 'string', types: 'string|array' },
    });
    const table = handle.store.schema('mixed')?.table;
    const rows = await handle.query(`SELECT f1 AS n, f2 AS flag, f3 AS list FROM ${table} ORDER BY _rowid`);
    expect(rows).toEqual([
      { n: '1', flag: 'true', list: '[1,2]' },
      { n: '2.5', flag: null, list: null },
      { n: 'three', flag: 'yes', list: 'none' },
    ]);
  });

  it('widens within one batch without rejecting any event for its types', async () => {
    const handle = await fresh();
    const result = await ingestEvents(handle.store, 'batch', [{ v: 1 }, { v: 1.5 }, { v: 'x' }, { v: false }, { v: { nested: true } }, { v: [1] }]);
    expect(result.ingested).toBe(6);
    expect(fieldsOf(handle, 'batch').v).toMatchObject({ storage: 'string', types: 'string|integer|float|boolean|array' });
    expect(fieldsOf(handle, 'batch')['v.nested']).toMatchObject({ storage: 'boolean' });
    const rows = await handle.query(`SELECT f1 FROM ${handle.store.schema('batch')?.table} ORDER BY _rowid`);
    expect(rows.map((row) => row.f1)).toEqual(['1', '1.5', 'x', 'false', null, '[1]']);
  });

  it('numbers rows per dataset in ingest order across batches and reopenings, never reusing a number', async () => {
    const handle = await fresh();
    await handle.load('seq', [{ i: 0 }, { i: 1 }]);
    await handle.load('seq', [{ i: 2 }]);
    await handle.store.trim('seq', BigInt(Date.now() + 60_000) * 1_000_000n);
    await handle.close({ keep: true });
    open.splice(open.indexOf(handle), 1);
    const again = await fresh({ dataDir: handle.dataDir });
    await again.load('seq', [{ i: 3 }, { i: 4 }]);
    const rows = await again.query(`SELECT _rowid, f1 FROM ${again.store.schema('seq')?.table} ORDER BY _rowid`);
    expect(rows).toEqual([
      { _rowid: 3n, f1: 3n },
      { _rowid: 4n, f1: 4n },
    ]);
    rmSync(handle.dataDir, { recursive: true, force: true });
  });

  it('keeps schemas and rows across a reopen', async () => {
    const handle = await fresh();
    const events = [...httpLogs({ count: 500 })];
    await handle.load('http', events);
    const before = handle.store.schema('http');
    await handle.close({ keep: true });
    open.splice(open.indexOf(handle), 1);
    const again = await fresh({ dataDir: handle.dataDir });
    expect(again.store.schema('http')).toEqual(before);
    const [row] = await again.query(`SELECT count(*) AS n, count(DISTINCT _rowid) AS ids FROM ${before?.table}`);
    expect(row).toEqual({ n: 500n, ids: 500n });
    rmSync(handle.dataDir, { recursive: true, force: true });
  });

  it('trims events older than a time and drops datasets with their table', async () => {
    const handle = await fresh();
    await handle.load('trim', [
      { _time: '2024-01-01T00:00:00Z', k: 'old' },
      { _time: '2024-01-02T00:00:00Z', k: 'new' },
    ]);
    expect(await handle.store.trim('trim', BigInt(Date.parse('2024-01-01T12:00:00Z')) * 1_000_000n)).toBe(1);
    expect((await handle.query(`SELECT f1 FROM ${handle.store.schema('trim')?.table}`)).map((row) => row.f1)).toEqual(['new']);
    expect(await handle.store.trim('missing', 0n)).toBe(0);
    const table = handle.store.schema('trim')?.table;
    expect(await handle.store.dropDataset('trim')).toBe(true);
    expect(await handle.store.dropDataset('trim')).toBe(false);
    expect(handle.store.schema('trim')).toBeUndefined();
    const tables = await handle.query("SELECT table_name FROM duckdb_tables() WHERE table_name = $1", [table ?? '']);
    expect(tables).toEqual([]);
  });

  it('fails events that would add fields past the dataset limit and stores the others', async () => {
    const handle = await fresh({ maxFieldsPerDataset: 3 });
    await handle.load('narrow', [{ a: 1, b: 2 }]);
    const result = await ingestEvents(handle.store, 'narrow', [{ a: 3 }, { c: 1, d: 2 }, { b: 4, c: 5 }]);
    expect(result.ingested).toBe(2);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]?.error).toMatch(/limit of 3 fields.*"d"/);
    expect(Object.keys(fieldsOf(handle, 'narrow'))).toEqual(['_time', '_sysTime', 'a', 'b', 'c']);
  });

  it('serialises concurrent appends to one dataset that change its schema, and runs other datasets alongside', async () => {
    const handle = await fresh();
    await Promise.all(
      Array.from({ length: 24 }, (_, i) => handle.load(`ds${i % 3}`, [{ [`field${i}`]: i, shared: i % 2 === 0 ? i : `s${i}` }])),
    );
    for (let d = 0; d < 3; d++) {
      const [row] = await handle.query(`SELECT count(*) AS n FROM ${handle.store.schema(`ds${d}`)?.table}`);
      expect(row?.n).toBe(8n);
      expect(fieldsOf(handle, `ds${d}`).shared).toMatchObject({ storage: 'string', types: 'string|integer' });
    }
  });

  it('runs appends that keep the schema alongside each other, numbering each batch apart', async () => {
    const handle = await fresh();
    await handle.load('parallel', [{ batch: -1, i: 0 }]);
    await Promise.all(Array.from({ length: 12 }, (_, batch) => handle.load('parallel', Array.from({ length: 100 }, (__, i) => ({ batch, i })))));
    const rows = await handle.query(
      `SELECT f1 AS batch, count(*) AS n, max(_rowid) - min(_rowid) AS span FROM ${handle.store.schema('parallel')?.table} WHERE f1 >= 0 GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toEqual(Array.from({ length: 12 }, (_, batch) => ({ batch: BigInt(batch), n: 100n, span: 99n })));
    const [all] = await handle.query(`SELECT count(DISTINCT _rowid) AS ids, max(_rowid) AS top FROM ${handle.store.schema('parallel')?.table}`);
    expect(all).toEqual({ ids: 1201n, top: 1200n });
  });

  it('reads inside one snapshot and caps the rows read', async () => {
    const handle = await fresh();
    await handle.load('snap', Array.from({ length: 50 }, (_, i) => ({ i })));
    const table = handle.store.schema('snap')?.table;
    const result = await handle.store.read({ timeoutMs: 5000, maxRows: 10 }, async (run) => {
      const first = await run(`SELECT count(*) AS n FROM ${table}`, []);
      await handle.load('snap', [{ i: 99 }]);
      const second = await run(`SELECT count(*) AS n FROM ${table}`, []);
      const capped = await run(`SELECT f1 FROM ${table} ORDER BY f1`, []);
      return { first: first.columns[0]?.[0], second: second.columns[0]?.[0], capped };
    });
    expect(result.first).toBe(50n);
    expect(result.second).toBe(50n);
    expect(result.capped.rowCount).toBe(10);
    expect(result.capped.truncated).toBe(true);
    expect(result.capped.columnTypes).toEqual(['BIGINT']);
  });

  it('reads one statement without a transaction, and runs a repeated text on the statement prepared first', async () => {
    const handle = await fresh({ connections: 1 });
    await handle.load('one', [{ n: 1 }, { n: 2 }, { n: 3 }]);
    const table = handle.store.schema('one')?.table;
    const sql = `SELECT count(*) AS c, current_transaction_id() AS tx FROM ${table} WHERE f1 >= $1`;
    const budget = { timeoutMs: 5000, maxRows: 10 };
    const first = await handle.store.readOne(budget, sql, [2]);
    const second = await handle.store.readOne(budget, sql, [3]);
    expect([first.columns[0]?.[0], second.columns[0]?.[0]]).toEqual([2n, 1n]);
    // Each statement commits on its own: no transaction stays open across reads.
    expect(second.columns[1]?.[0]).not.toBe(first.columns[1]?.[0]);
    await expect(handle.store.readOne(budget, 'SELECT 1; SELECT 2', [])).rejects.toThrow();
  });

  it('keeps a prepared statement right when its table changes: a widened column reads as its new type', async () => {
    const handle = await fresh({ connections: 1 });
    await handle.load('widen', [{ n: 1 }]);
    const sql = `SELECT f1 FROM ${handle.store.schema('widen')?.table} ORDER BY _rowid`;
    const budget = { timeoutMs: 5000, maxRows: 10 };
    expect((await handle.store.readOne(budget, sql, [])).columns[0]).toEqual([1n]);
    await handle.load('widen', [{ n: 'two' }]);
    const widened = await handle.store.readOne(budget, sql, []);
    expect(widened.columnTypes).toEqual(['VARCHAR']);
    expect(widened.columns[0]).toEqual(['1', 'two']);
  });

  it('reads what was appended since a text last ran: plans never keep the statistics of an older table', async () => {
    // A plan made for one row (5,000,000 ns) once packed the column into the bits that row needs,
    // and read the appended 0 back as 5000192 on the next run of the same parameterless text.
    const handle = await fresh({ connections: 1 });
    await handle.load('one', [{}], { nowMs: 5 });
    await handle.load('two', [{}], { nowMs: 5 });
    const budget = { timeoutMs: 5000, maxRows: 10 };
    const times = async (dataset: string, params: readonly bigint[]) => {
      const table = handle.store.schema(dataset)?.table;
      const where = params.length > 0 ? 'WHERE _time >= $1' : '';
      const rows = await handle.store.readOne(budget, `SELECT _time FROM ${table} ${where} ORDER BY _rowid`, params);
      return rows.columns[0]?.map(String);
    };
    for (const params of [[], [-1n]]) {
      expect([await times('one', params), await times('two', params)]).toEqual([['5000000'], ['5000000']]);
    }
    await handle.load('one', [{ _time: 0 }]);
    await handle.load('two', [{ _time: 0 }]);
    for (const params of [[], [-1n]]) {
      expect([await times('one', params), await times('two', params)]).toEqual([['5000000', '0'], ['5000000', '0']]);
    }
  });

  it('binds parameters as data: a hostile string matches itself and runs nothing', async () => {
    const handle = await fresh();
    const hostile = `x'); DROP TABLE ds_1; --"\u0000`;
    await handle.load('bind', [{ s: hostile }, { s: 'other' }]);
    const rows = await handle.query(`SELECT count(*) AS n FROM ${handle.store.schema('bind')?.table} WHERE f1 = $1`, [hostile]);
    expect(rows).toEqual([{ n: 1n }]);
  });

  it('stores strings exactly as sent: quotes, backslashes, controls, line separators, emoji', async () => {
    const handle = await fresh();
    const tricky = ['say "hi"', 'C:\\path', 'tab\tnew\nline', 'nul\u0000byte', 'bell\u0007', 'sep\u2028arator', 'emoji 😀', ''];
    await handle.load('exact', tricky.map((s) => ({ s })));
    const rows = await handle.query(`SELECT f1 FROM ${handle.store.schema('exact')?.table} ORDER BY _rowid`);
    expect(rows.map((row) => row.f1)).toEqual(tricky);
  });

  it('interrupts a query past its time budget and the connection keeps working', async () => {
    const handle = await fresh({ connections: 1 });
    const slow = `SELECT count(DISTINCT a.range * b.range) FROM range(100000000) a, range(100) b`;
    await expect(handle.store.read({ timeoutMs: 100, maxRows: 10 }, (run) => run(slow, []))).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(await handle.query('SELECT 42 AS answer')).toEqual([{ answer: 42 }]);
  });

  it('cancels a query when its signal aborts', async () => {
    const handle = await fresh();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const slow = `SELECT count(DISTINCT a.range * b.range) FROM range(100000000) a, range(100) b`;
    await expect(handle.store.read({ timeoutMs: 60_000, maxRows: 10, signal: controller.signal }, (run) => run(slow, []))).rejects.toBeInstanceOf(QueryCancelledError);
  });

  it('answers a query over the memory limit with a typed error, not a crash', async () => {
    const handle = await fresh({ memoryLimit: '64MB', threads: 1 });
    const hungry = `SELECT list(range) FROM range(50000000)`;
    await expect(handle.store.read({ timeoutMs: 60_000, maxRows: 10 }, (run) => run(hungry, []))).rejects.toBeInstanceOf(QueryMemoryError);
    expect(await handle.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('is ready while open with its staging directory in place, and not once either is gone (/readyz)', async () => {
    const handle = await fresh();
    await expect(handle.store.check()).resolves.toBeUndefined();
    rmSync(handle.store.stagingDir, { recursive: true });
    await expect(handle.store.check()).rejects.toThrow(`the staging directory ${handle.store.stagingDir} is not writable`);
    await handle.store.close();
    await expect(handle.store.check()).rejects.toBeInstanceOf(StoreClosedError);
  });

  it('loads on one DuckDB thread and gives queries every thread back once no load runs or waits', async () => {
    const handle = await fresh({ threads: 2 });
    const threads = async () => (await handle.query("SELECT current_setting('threads') AS threads"))[0]?.threads;
    await handle.load('busy', [{ a: 1 }]);
    // This read loads the batch accepted a moment ago, on one thread, then runs on both.
    expect(await threads()).toBe(2n);
  });

  it('keeps vacuum off, and vacuums in the checkpoint after a trim', async () => {
    const handle = await fresh({ threads: 2 });
    const vacuumTasks = async () => (await handle.query("SELECT current_setting('max_vacuum_tasks') AS tasks"))[0]?.tasks;
    expect(await vacuumTasks()).toBe(0n);
    // Three row groups' worth (122,880 rows each), every other event older than the trim.
    const lines = Array.from({ length: 300_000 }, (_, i) => `{"_time":${i % 2 === 0 ? 1_000 : 2_000_000_000},"i":${i}}`);
    const options = parseIngestOptions({ contentType: 'application/x-ndjson' });
    for (let start = 0; start < lines.length; start += 10_000) {
      const body = Buffer.from(lines.slice(start, start + 10_000).join('\n'));
      const decoded = decodeBody(body, options, { file: stagingFile(handle.store.stagingDir), nowMs: 0, limits: INGEST_LIMITS });
      await handle.store.append('trimmed', decoded.batch);
    }
    const table = handle.store.schema('trimmed')?.table as string;
    const stored = async () => (await handle.query(`SELECT sum(count) AS n FROM pragma_storage_info('${table}') WHERE column_path = '[0]'`))[0]?.n;
    await vi.waitFor(async () => expect(await stored()).toBe(300_000n), { timeout: 10_000, interval: 200 });
    expect(await handle.store.trim('trimmed', 1_000_000_000n * 1_000_000_000n)).toBe(150_000);
    // Without vacuum every row group would keep its deleted half (none is wholly deleted): all
    // 300,000 rows would stay stored. Vacuum rewrites those it can merge into fewer; how many it
    // can depends on how the loads cut the row groups (about 225,000 rows stay, a few thousand
    // more when the loads were grouped differently), so fewer than 300,000 is what shows it ran.
    await vi.waitFor(async () => expect(await stored()).toBeLessThan(290_000n), { timeout: 30_000, interval: 200 });
    // Vacuum is switched back off once that checkpoint is over.
    await vi.waitFor(async () => expect(await vacuumTasks()).toBe(0n), { timeout: 30_000, interval: 200 });
  });

  it('refuses a second store on the same data dir and new work once closed', async () => {
    const handle = await fresh();
    await expect(openEventStore({ dataDir: handle.dataDir })).rejects.toBeInstanceOf(StoreLockedError);
    await handle.store.close();
    await expect(handle.store.trim('x', 0n)).rejects.toBeInstanceOf(StoreClosedError);
    await expect(handle.store.read({ timeoutMs: 10, maxRows: 1 }, async () => 1)).rejects.toBeInstanceOf(StoreClosedError);
  });

  it('deletes staged files once loaded, and leftovers at open', async () => {
    const handle = await fresh();
    await handle.load('staged', [{ a: 1 }]);
    // A read loads what the ingest log holds; the staged file goes right after.
    expect(await handle.query(`SELECT count(*) AS n FROM ${handle.store.schema('staged')?.table}`)).toEqual([{ n: 1n }]);
    await vi.waitFor(() => expect(readdirSync(handle.store.stagingDir).filter((name) => !name.startsWith('log-'))).toEqual([]));
    writeFileSync(join(handle.store.stagingDir, 'left-by-a-crash.ndjson'), '{"r":0}\n');
    await handle.close({ keep: true });
    open.splice(open.indexOf(handle), 1);
    const again = await fresh({ dataDir: handle.dataDir });
    expect(readdirSync(again.store.stagingDir)).toEqual([]);
    rmSync(handle.dataDir, { recursive: true, force: true });
  });
});
