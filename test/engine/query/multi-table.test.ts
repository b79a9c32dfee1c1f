import { describe, expect, it } from 'vitest';
import { AplError } from '../../../src/engine/apl/errors.js';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { LegacyResult } from '../../../src/engine/results/legacy.js';
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
  it('runs with the documented option; another is ignored with a warning', async () => {
    expect(await rows("set stricttypes; let n = 1; ['sample-http-logs'] | count")).toEqual([{ count: 5 }]);
    const answer = await result("set nocache = true; ['sample-http-logs'] | count");
    expect(answer.tables[0]?.columns).toEqual([[5]]);
    expect(answer.status.messages.map((message) => message.msg)).toEqual([expect.stringContaining('nocache')]);
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

describe('union', () => {
  it('takes every row of every table, merging columns of one name', async () => {
    expect(await rows("['github-push-event'] | union ['github-pull-request-event'] | count")).toEqual([{ count: 5 }]);
    expect(await rows("['github-pull-request-event'] | union ['github-push-event'] | where actor == \"github-actions[bot]\" | project _time, repo, ['id'], commits, head")).toEqual([
      { _time: '2024-05-01T09:20:00Z', repo: 'axiomhq/docs', id: 11, commits: null, head: null },
      { _time: '2024-05-01T09:00:00Z', repo: 'axiomhq/axiom', id: 1, commits: 2, head: 'abc' },
    ]);
    // `id` is a string in one dataset and an integer in the other: merged, it is a string.
    expect(await rows("['sample-http-logs'] | union ['github-push-event'] | where id == '1' | project repo")).toEqual([{ repo: 'axiomhq/axiom' }]);
    expect((await fields("['sample-http-logs'] | union ['github-push-event'] | project id, commits")).map((field) => field.type)).toEqual(['string', 'integer']);
  });

  it('reports every dataset read and counts the rows of each', async () => {
    const answer = await result("['github-push-event'] | union ['github-pull-request-event'] | summarize count()");
    expect(answer.datasetNames).toEqual(['github-push-event', 'github-pull-request-event']);
    expect(answer.tables[0]?.sources).toEqual([{ name: 'github-push-event' }, { name: 'github-pull-request-event' }]);
    expect(answer.status.rowsExamined).toBe(5);
    expect(Object.keys(answer.fieldsMetaMap)).toEqual(['github-push-event', 'github-pull-request-event']);
  });

  it('reads tabular lets and parenthesised expressions', async () => {
    expect(await rows("let errors = ['otel-demo-logs'] | where severity == 'error'; ['otel-demo-traces'] | union errors | count")).toEqual([{ count: 5 }]);
    expect(await rows("['otel-demo-traces'] | union (['otel-demo-logs'] | where severity == 'warn' | project body) | where isnotempty(body) | project body")).toEqual([{ body: 'retrying' }]);
  });

  it('withsource names each row’s dataset; patterns match dataset names', async () => {
    expect(await rows('union withsource=origin github* | summarize count() by origin')).toEqual([
      { origin: 'github-pull-request-event', count_: 3 },
      { origin: 'github-push-event', count_: 2 },
    ]);
    expect(await rows('union * | count')).toEqual([{ count: 18 }]);
    expect(await rows("['github-push-event'] | union withsource=src ['github-pull-request-event'] | summarize count() by src | order by src asc")).toEqual([
      { src: 'github-pull-request-event', count_: 3 },
      { src: 'github-push-event', count_: 2 },
    ]);
    expect(await errorOf('union nothing* | count')).toBe('line 1, column 1: union matched no dataset; check the pattern, or name the datasets');
  });
});

describe('join', () => {
  const traces = "['otel-demo-traces']";
  const logs = "['otel-demo-logs']";
  const spans = async (kind: string): Promise<unknown[]> =>
    (await rows(`${traces} | join kind=${kind} ${logs} on trace_id | project span_id, body | order by span_id asc, body asc`)).map((row) => [row.span_id, row.body]);

  it('inner (the default) pairs every match', async () => {
    const both = [
      ['s1', 'cart loaded'],
      ['s2', 'cart loaded'],
      ['s3', 'checkout failed'],
      ['s3', 'retrying'],
    ];
    expect(await spans('inner')).toEqual(both);
    expect((await rows(`${traces} | join ${logs} on trace_id | count`))[0]).toEqual({ count: 4 });
    expect(await fields(`${traces} | join ${logs} on trace_id | project trace_id, trace_id1, _time, _time1`)).toEqual([
      { name: 'trace_id', type: 'string' },
      { name: 'trace_id1', type: 'string' },
      { name: '_time', type: 'datetime' },
      { name: '_time1', type: 'datetime' },
    ]);
  });

  it('innerunique takes the first match of the right side for each left row', async () => {
    expect(await spans('innerunique')).toEqual([
      ['s1', 'cart loaded'],
      ['s2', 'cart loaded'],
      ['s3', 'retrying'],
    ]);
  });

  it('the outer kinds keep unmatched rows with nulls', async () => {
    expect(await spans('leftouter')).toEqual([
      ['s1', 'cart loaded'],
      ['s2', 'cart loaded'],
      ['s3', 'checkout failed'],
      ['s3', 'retrying'],
      ['s4', null],
    ]);
    expect(await spans('rightouter')).toEqual([
      [null, 'orphan'],
      ['s1', 'cart loaded'],
      ['s2', 'cart loaded'],
      ['s3', 'checkout failed'],
      ['s3', 'retrying'],
    ]);
    expect((await spans('fullouter')).length).toBe(6);
  });

  it('anti and semi kinds keep one side’s rows and columns', async () => {
    expect(await rows(`${traces} | join kind=leftanti ${logs} on trace_id | project span_id`)).toEqual([{ span_id: 's4' }]);
    expect(await rows(`${traces} | join kind=rightanti ${logs} on trace_id | project body`)).toEqual([{ body: 'orphan' }]);
    expect(await rows(`${traces} | join kind=leftsemi ${logs} on trace_id | order by span_id asc | project span_id`)).toEqual([{ span_id: 's1' }, { span_id: 's2' }, { span_id: 's3' }]);
    expect((await fields(`${traces} | join kind=leftsemi ${logs} on trace_id`)).map((field) => field.name)).not.toContain('body');
    expect(await rows(`${traces} | join kind=rightsemi ${logs} on trace_id | order by body asc | project body`)).toEqual([{ body: 'cart loaded' }, { body: 'checkout failed' }, { body: 'retrying' }]);
  });

  it('joins on $left/$right columns of other names and on expressions', async () => {
    const users = "datatable(user:string, name:string) ['u1', 'Ann', 'U2', 'Bob']";
    expect(await rows(`['sample-http-logs'] | join kind=leftouter (${users}) on $left.id == $right.user | order by _time asc | project id, name`)).toEqual([
      { id: 'u1', name: 'Ann' },
      { id: 'u2', name: null },
      { id: 'u3', name: null },
      { id: 'u1', name: 'Ann' },
      { id: 'u4', name: null },
    ]);
    expect(await rows(`['sample-http-logs'] | join (${users}) on $left.id == tolower($right.user) | summarize count() by name | order by name asc`)).toEqual([
      { name: 'Ann', count_: 2 },
      { name: 'Bob', count_: 1 },
    ]);
  });

  it('refuses unknown kinds and keys of different types', async () => {
    expect(await errorOf(`${traces} | join kind=outer ${logs} on trace_id`)).toBe(
      "line 1, column 34: unknown join kind 'outer'; expected one of inner, innerunique, leftouter, rightouter, fullouter, leftanti, rightanti, leftsemi, rightsemi",
    );
    expect(await errorOf(`${traces} | join ${logs} on $left.trace_id == $right._time`)).toMatch(/join keys must have the same type, got string on the left and datetime on the right/);
    expect(await errorOf(`${traces} | join ${logs} on nope`)).toMatch(/unknown field 'nope'/);
  });
});

describe('lookup', () => {
  it('runs the reference’s example: a datatable let, $left.[…] == $right.…', async () => {
    const apl = `let LookupTable=datatable(serviceName:string, humanreadableServiceName:string)[
  'frontend', 'Frontend',
  'loadgenerator', 'Load generator',
  'cartservice', 'Cart',
];
['otel-demo-traces']
| lookup kind=leftouter LookupTable on $left.['service.name'] == $right.serviceName
| project _time, span_id, ['service.name'], humanreadableServiceName`;
    expect(await rows(apl)).toEqual([
      { _time: '2024-05-01T10:00:03Z', span_id: 's4', 'service.name': 'loadgenerator', humanreadableServiceName: 'Load generator' },
      { _time: '2024-05-01T10:00:02Z', span_id: 's3', 'service.name': 'frontend', humanreadableServiceName: 'Frontend' },
      { _time: '2024-05-01T10:00:01Z', span_id: 's2', 'service.name': 'cartservice', humanreadableServiceName: 'Cart' },
      { _time: '2024-05-01T10:00:00Z', span_id: 's1', 'service.name': 'frontend', humanreadableServiceName: 'Frontend' },
    ]);
  });

  it('shows the key once; kind=inner drops rows without a match', async () => {
    const table = "datatable(id:string, tier:string) ['u1', 'gold', 'u3', 'silver']";
    const names = (await fields(`['sample-http-logs'] | lookup (${table}) on id`)).map((field) => field.name);
    expect(names.filter((name) => name.startsWith('id'))).toEqual(['id']);
    expect(await rows(`['sample-http-logs'] | lookup kind=inner (${table}) on id | order by _time asc | project id, tier`)).toEqual([
      { id: 'u1', tier: 'gold' },
      { id: 'u3', tier: 'silver' },
      { id: 'u1', tier: 'gold' },
    ]);
    expect(await rows(`['sample-http-logs'] | lookup (${table}) on id | count`)).toEqual([{ count: 5 }]);
  });
});

describe('make-series', () => {
  const range = 'from datetime(2024-05-01T10:00:00Z) to datetime(2024-05-01T10:05:00Z) step 1m';
  const bins = ['10:00', '10:01', '10:02', '10:03', '10:04'].map((minute) => `2024-05-01T${minute}:00Z`);

  it('makes arrays over every bin of the range, a bin without rows taking the default', async () => {
    const apl = `['sample-http-logs'] | make-series count() default=0 on _time ${range}`;
    expect(await rows(apl)).toEqual([{ count_: [1, 1, 1, 0, 2], time: bins }]);
    expect(await fields(apl)).toEqual([
      { name: 'count_', type: 'array' },
      { name: 'time', type: 'array' },
    ]);
  });

  it('makes one row per group, and takes named aggregations', async () => {
    expect(await rows(`['sample-http-logs'] | make-series avg(req_duration_ms) on _time ${range} by ['geo.city']`)).toEqual([
      { 'geo.city': 'Berlin', avg_req_duration_ms: [0, 200, 0, 0, 80], time: bins },
      { 'geo.city': 'London', avg_req_duration_ms: [10.5, 0, 0, 0, 5], time: bins },
      { 'geo.city': 'Paris', avg_req_duration_ms: [0, 0, 30, 0, 0], time: bins },
    ]);
    expect(await rows(`['sample-http-logs'] | make-series errors = countif(status == '500'), total = count() default = -1 on _time ${range}`)).toEqual([
      { errors: [0, 1, 0, -1, 1], total: [1, 1, 1, -1, 2], time: bins },
    ]);
  });

  it('takes the range as in range(from, to, step) too', async () => {
    expect(await rows("['sample-http-logs'] | make-series count() on _time in range(datetime(2024-05-01T10:00:00Z), datetime(2024-05-01T10:05:00Z), 1m)")).toEqual([
      { count_: [1, 1, 1, 0, 2], time: bins },
    ]);
  });

  it('without a range, spans the data’s first to last bin (bins aligned to the epoch)', async () => {
    expect(await rows("['sample-http-logs'] | make-series count() on _time step 2m")).toEqual([
      { count_: [2, 1, 2], time: ['2024-05-01T10:00:00Z', '2024-05-01T10:02:00Z', '2024-05-01T10:04:00Z'] },
    ]);
    expect(await rows("['sample-http-logs'] | where status == 'none' | make-series count() on _time step 2m")).toEqual([]);
  });

  it('runs the reference’s example shape: now()-24h to now(), then mv-expand back to rows', async () => {
    const apl =
      "['sample-http-logs'] | make-series count() on _time from now()-24h to now() step 5m " +
      '| mv-expand count_ to typeof(long), time to typeof(datetime) | project-rename _time=time | where count_ > 0';
    expect(await rows(apl)).toEqual([{ count_: 5, _time: '2024-05-01T10:00:00Z' }]);
    expect((await rows("['sample-http-logs'] | make-series count() on _time from now()-24h to now() step 5m | mv-expand count_ | count"))[0]).toEqual({ count: 288 });
  });

  it('runs the reference’s first example whole: series_fir over the counts, expanded back to rows', async () => {
    const apl =
      "['sample-http-logs'] | make-series count() on _time from now()-24h to now() step 5m " +
      '| extend moving_avg_count=series_fir(count_, dynamic([1, 1, 1, 1, 1])) ' +
      '| mv-expand moving_avg_count to typeof(long), count_ to typeof(long), time to typeof(datetime) ' +
      '| project-rename _time=time | summarize avg(moving_avg_count), avg(count_) by bin(_time, 5m) | where avg_count_ > 0 or avg_moving_avg_count > 0';
    // The 10:00 bin holds all five events; the moving average (normalised, 5 taps) spreads them over 10:00–10:20.
    const out = await rows(apl);
    expect(out.map((row) => [row._time, row.avg_count_])).toEqual([
      ['2024-05-01T10:00:00Z', 5],
      ['2024-05-01T10:05:00Z', 0],
      ['2024-05-01T10:10:00Z', 0],
      ['2024-05-01T10:15:00Z', 0],
      ['2024-05-01T10:20:00Z', 0],
    ]);
    expect(out.every((row) => row.avg_moving_avg_count === 1)).toBe(true);
  });

  it('refuses what it cannot bin', async () => {
    expect(await errorOf("['sample-http-logs'] | make-series count() on id step 1m")).toBe("line 1, column 47: make-series needs a datetime after 'on', got string");
    expect(await errorOf("['sample-http-logs'] | make-series count() on _time step req_duration_ms")).toMatch(/make-series needs a constant timespan here/);
    expect(await errorOf("['sample-http-logs'] | make-series count() on _time from ago(1h) step 1m")).toMatch(/needs both 'from' and 'to'/);
    expect(await errorOf("['sample-http-logs'] | make-series count() on _time from ago(1000d) to now() step 1s")).toMatch(/more than 100000; use a larger step/);
  });
});

describe('mv-expand', () => {
  it('gives one row per element, none for an empty array and one for a missing value', async () => {
    expect(await rows("['sample-http-logs'] | take 100 | mv-expand territories | summarize n = count() by territory = tostring(territories)")).toEqual([
      { territory: 'United States', n: 2 },
      { territory: '', n: 1 },
      { territory: 'India', n: 1 },
      { territory: 'Japan', n: 1 },
    ]);
  });

  it('expands in parallel, with_itemindex, to typeof() and limit', async () => {
    expect(await rows('print a = dynamic([1, 2, 3]), b = dynamic(["x"]) | mv-expand a, b')).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: null },
      { a: 3, b: null },
    ]);
    const typed = 'datatable(a:dynamic) [dynamic([10, 20])] | mv-expand with_itemindex=i a to typeof(long)';
    expect(await rows(typed)).toEqual([
      { a: 10, i: 0 },
      { a: 20, i: 1 },
    ]);
    expect(await fields(typed)).toEqual([
      { name: 'a', type: 'integer' },
      { name: 'i', type: 'integer' },
    ]);
    expect(await rows('print a = dynamic([1, 2, 3]) | mv-expand a limit 2')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await rows('print a = dynamic([1, 2]) | mv-expand b = a | project a, b')).toEqual([
      { a: [1, 2], b: 1 },
      { a: [1, 2], b: 2 },
    ]);
  });

  it('expands a property bag by property: [key, value] by default, a one-property bag with kind=bag', async () => {
    expect(await rows('print b = dynamic({"x": 1, "y": "z"}) | mv-expand b')).toEqual([{ b: ['x', 1] }, { b: ['y', 'z'] }]);
    expect(await rows('print b = dynamic({"x": 1, "y": "z"}) | mv-expand kind=bag b')).toEqual([{ b: { x: 1 } }, { b: { y: 'z' } }]);
  });

  it('turns each element to text once, a null element into "" like a missing value', async () => {
    const query = 'print a = dynamic(["x", null, 1.5, {"k": [1]}, true]) | mv-expand a | project t = tostring(a), n = isnull(a)';
    expect(await rows(query)).toEqual([
      { t: 'x', n: false },
      { t: '', n: true },
      { t: '1.5', n: false },
      { t: '{"k":[1]}', n: false },
      { t: 'true', n: false },
    ]);
  });

  it('refuses a value that is not dynamic', async () => {
    expect(await errorOf('print a = 1 | mv-expand a')).toBe('line 1, column 25: mv-expand needs a dynamic array or property bag, got long; convert text with parse_json()');
  });
});

describe('the legacy result shape', () => {
  it('carries rows of a join and of print, and names the datasets read', async () => {
    const legacy = async (apl: string): Promise<LegacyResult> =>
      (await runApl({ apl, format: 'legacy', ...WINDOW }, { reader: fixture.store, now: () => NOW })).result as LegacyResult;
    const joined = await legacy("['otel-demo-traces'] | join kind=leftanti ['otel-demo-logs'] on trace_id | project span_id");
    expect(joined.matches.map((match) => match.data)).toEqual([{ span_id: 's4' }]);
    expect(joined.datasetNames).toEqual(['otel-demo-traces', 'otel-demo-logs']);
    const printed = await legacy('print a = 1');
    expect(printed.matches.map((match) => match.data)).toEqual([{ a: 1 }]);
    const series = await legacy("['sample-http-logs'] | make-series count() on _time step 2m");
    expect(series.buckets.totals).toEqual([{ id: 0, group: {}, aggregations: [{ op: 'count_', value: [2, 1, 2] }] }]);
  });
});
