import { describe, expect, it } from 'vitest';
import { AplError } from '../../../src/engine/apl/errors.js';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { useTestStore } from '../../helpers/event-store.js';
import { tableRows } from '../helpers/reference.js';
import { HTTP_LOGS, LOGS, PULL_REQUEST_EVENTS, PUSH_EVENTS, TRACES } from './multi-table.fixtures.js';

/**
 * Statements (let, set), the tables a query writes (print, datatable, getschema) and the
 * operators that read several tables (union, join, lookup), make-series and mv-expand, through
 * the whole engine on datasets shaped like the reference's samples. Expected values are worked
 * out by hand from the fixtures.
 */

const NOW = 1_714_608_000_000_000_000n; // 2024-05-02T00:00:00Z
const WINDOW = { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' };

const fixture = useTestStore(async (store) => {
  await store.load('sample-http-logs', HTTP_LOGS);
  await store.load('otel-demo-traces', TRACES);
  await store.load('otel-demo-logs', LOGS);
  await store.load('github-push-event', PUSH_EVENTS);
  await store.load('github-pull-request-event', PULL_REQUEST_EVENTS);
});

async function result(apl: string): Promise<TabularResult> {
  const { result: r } = await runApl({ apl, format: 'tabular', ...WINDOW }, { reader: fixture.store, now: () => NOW });
  return r as TabularResult;
}

async function rows(apl: string): Promise<Record<string, unknown>[]> {
  return tableRows((await result(apl)).tables[0] as never);
}

async function fields(apl: string): Promise<{ name: string; type: string }[]> {
  return ((await result(apl)).tables[0]?.fields ?? []).map(({ name, type }) => ({ name, type }));
}

async function errorOf(apl: string): Promise<string> {
  const failure = await result(apl).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure, apl).toBeInstanceOf(AplError);
  return (failure as AplError).message;
}

describe('let', () => {
  it('binds scalars, later lets seeing earlier ones', async () => {
    expect(await rows("let threshold = 100; let name = 'id'; ['sample-http-logs'] | where req_duration_ms > threshold | project id")).toEqual([{ id: 'u2' }]);
  });

  it('binds tabular expressions, which later lets and the query body read', async () => {
    expect(await rows("let T = ['sample-http-logs'] | where status == '500'; T | count")).toEqual([{ count: 2 }]);
    expect(await rows("let A = ['sample-http-logs'] | where method == 'GET'; let B = A | where status == '200'; B | count")).toEqual([{ count: 2 }]);
    expect(await rows("let T = ['sample-http-logs']; T | summarize n = count() by method | order by method asc")).toEqual([
      { method: 'GET', n: 3 },
      { method: 'POST', n: 1 },
      { method: 'PUT', n: 1 },
    ]);
  });

  it('binds functions with typed parameters, defaults and the caller’s columns', async () => {
    expect(await rows('let f = (a:long) { a * 2 }; print f(21)')).toEqual([{ print_0: 42 }]);
    expect(await fields('let f = (a:long) { a * 2 }; print f(21)')).toEqual([{ name: 'print_0', type: 'integer' }]);
    expect(await rows('let g = (a:long, b:long = 10) { a + b }; print g(1), g(1, 2)')).toEqual([{ print_0: 11, print_1: 3 }]);
    expect(await rows("let slow = (ms:real) { ms > 50 }; ['sample-http-logs'] | where slow(req_duration_ms) | count")).toEqual([{ count: 2 }]);
    expect(await rows('let h = (x:real) { let y = x * 2; y + 1 }; print h(1.5)')).toEqual([{ print_0: 4 }]);
  });

  it('refuses wrong arguments, recursion and unknown names, positioned', async () => {
    expect(await errorOf('let f = (a:long) { a }; print f("x")')).toBe('line 1, column 33: f() expects long for parameter a, got string');
    expect(await errorOf('let f = (a:long) { a }; print f(1, 2)')).toBe('line 1, column 31: f() expects 1 argument, got 2');
    expect(await errorOf('let f = (a:long) { f(a) }; print f(1)')).toMatch(/the function 'f' calls itself/);
    expect(await errorOf("let T = ['sample-http-logs'];\nT | where nope == 1")).toMatch(/^line 2, column 11: unknown field 'nope'/);
  });
});

describe('set', () => {
  it('accepts the documented option and refuses others', async () => {
    expect(await rows("set stricttypes; ['sample-http-logs'] | count")).toEqual([{ count: 5 }]);
    expect(await errorOf("set nocache = true; ['sample-http-logs'] | count")).toBe("line 1, column 5: unknown query option 'nocache'; the set statement takes stricttypes");
  });
});

describe('print, datatable and getschema', () => {
  it('print writes one row; unnamed columns are print_<position>', async () => {
    const apl = 'print x = 1, s = "a", d = datetime(2024-01-01), b = true, 2.5, strlen("abc")';
    expect(await rows(apl)).toEqual([{ x: 1, s: 'a', d: '2024-01-01T00:00:00Z', b: true, print_4: 2.5, print_5: 3 }]);
    expect(await fields(apl)).toEqual([
      { name: 'x', type: 'integer' },
      { name: 's', type: 'string' },
      { name: 'd', type: 'datetime' },
      { name: 'b', type: 'boolean' },
      { name: 'print_4', type: 'float' },
      { name: 'print_5', type: 'integer' },
    ]);
    const answer = await result('print 1');
    expect(answer.datasetNames).toEqual([]);
    expect(answer.status.rowsExamined).toBe(0);
  });

  it('datatable keeps its rows in order, each value of its column’s type', async () => {
    const apl = "datatable(name:string, n:long, r:real, d:dynamic) ['a', 1, 1.5, dynamic([1]), 'b', 2, 2, dynamic({\"k\": 1}),]";
    expect(await rows(apl)).toEqual([
      { name: 'a', n: 1, r: 1.5, d: [1] },
      { name: 'b', n: 2, r: 2, d: { k: 1 } },
    ]);
    expect((await fields(apl)).map((field) => field.type)).toEqual(['string', 'integer', 'float', 'object']);
    expect(await rows('datatable(a:long) [3, 1, 2]')).toEqual([{ a: 3 }, { a: 1 }, { a: 2 }]);
    expect(await rows('datatable(a:long) [3, 1, 2] | sort by a asc')).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(await rows('datatable(a:long) [] | count')).toEqual([{ count: 0 }]);
  });

  it('datatable refuses values of another type and incomplete rows', async () => {
    expect(await errorOf("datatable(a:long) ['x']")).toBe("line 1, column 20: datatable column 'a' is long, got string");
    expect(await errorOf('datatable(a:long, b:long) [1, 2, 3]')).toBe('line 1, column 1: datatable has 2 columns, so its 3 values do not make whole rows; expected a multiple of 2');
    expect(await errorOf('datatable(a:int4) [1]')).toMatch(/^line 1, column 13: unknown type 'int4'/);
  });

  it('getschema lists the input’s columns: ColumnName, DataType, ColumnOrdinal, ColumnType', async () => {
    const apl = "['sample-http-logs'] | project id, req_duration_ms, at = _time, ok = status == '200' | getschema";
    expect(await rows(apl)).toEqual([
      { ColumnName: 'id', DataType: 'string', ColumnOrdinal: 0, ColumnType: 'string' },
      { ColumnName: 'req_duration_ms', DataType: 'real', ColumnOrdinal: 1, ColumnType: 'real' },
      { ColumnName: 'at', DataType: 'datetime', ColumnOrdinal: 2, ColumnType: 'datetime' },
      { ColumnName: 'ok', DataType: 'bool', ColumnOrdinal: 3, ColumnType: 'bool' },
    ]);
    expect(await fields(apl)).toEqual([
      { name: 'ColumnName', type: 'string' },
      { name: 'DataType', type: 'string' },
      { name: 'ColumnOrdinal', type: 'integer' },
      { name: 'ColumnType', type: 'string' },
    ]);
    const names = (await rows("['sample-http-logs'] | getschema")).map((row) => row.ColumnName);
    expect(names.slice(0, 3)).toEqual(['_sysTime', '_time', 'geo.city']);
  });
});

describe('externaldata', () => {
  it('says it is hosted-only', async () => {
    expect(await errorOf('externaldata (a:string) ["https://example.com/x.csv"] with (format="csv") | take 1')).toMatch(
      /^line 1, column 1: externaldata is not available on the local service/,
    );
    expect(await errorOf('let employees = externaldata (id:string, name:string) ["http://example.com/t.csv"] with (format="csv", ignoreFirstRecord=true);\n[\'sample-http-logs\'] | lookup employees on id')).toMatch(
      /^line 1, column 17: externaldata is not available/,
    );
  });
});
