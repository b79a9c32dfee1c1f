import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatementCache } from '../../../src/engine/store/statement-cache.js';

let instance: DuckDBInstance;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
});
afterAll(() => instance.closeSync());

describe('statement cache', () => {
  it('prepares a text once and binds it anew for each run', async () => {
    const connection = await instance.connect();
    const cache = new StatementCache(connection, 4);
    const sql = 'SELECT $1::BIGINT * 2 AS doubled';
    const first = await cache.prepare(sql);
    first.bind([21n]);
    expect((await first.runAndReadAll()).getRowsJS()).toEqual([[42n]]);
    const again = await cache.prepare(sql);
    expect(again).toBe(first);
    again.bind([5n]);
    expect((await again.runAndReadAll()).getRowsJS()).toEqual([[10n]]);
    connection.closeSync();
  });

  it('keeps the most recently used statements up to its capacity', async () => {
    const connection = await instance.connect();
    const cache = new StatementCache(connection, 2);
    const a = await cache.prepare('SELECT 1 + $1');
    const b = await cache.prepare('SELECT 2 + $1');
    expect(await cache.prepare('SELECT 1 + $1')).toBe(a);
    await cache.prepare('SELECT 3 + $1');
    // 2 was the least recently used: it was destroyed and is prepared afresh.
    expect(await cache.prepare('SELECT 1 + $1')).toBe(a);
    expect(await cache.prepare('SELECT 2 + $1')).not.toBe(b);
    connection.closeSync();
  });

  it('keeps no statement without parameters: DuckDB plans those once, with the statistics of that moment', async () => {
    const connection = await instance.connect();
    const cache = new StatementCache(connection, 2);
    const prepared = await cache.prepare('SELECT 1');
    expect(StatementCache.cacheable(prepared)).toBe(false);
    const again = await cache.prepare('SELECT 1');
    expect(again).not.toBe(prepared);
    prepared.destroySync();
    again.destroySync();
    connection.closeSync();
  });

  it('prepares a statement afresh after a failed run', async () => {
    const connection = await instance.connect();
    const cache = new StatementCache(connection, 2);
    const sql = "SELECT regexp_matches('a', $1::VARCHAR)";
    const prepared = await cache.prepare(sql);
    cache.forget(sql);
    expect(await cache.prepare(sql)).not.toBe(prepared);
    connection.closeSync();
  });
});
