import { describe, expect, it } from 'vitest';
import { httpLogs } from '../../../bench/lib/http-logs.mjs';
import { runApl } from '../../../src/engine/query/run-apl.js';
import { runStructured } from '../../../src/engine/query/run-structured.js';
import type { LegacyResult } from '../../../src/engine/results/legacy.js';
import type { StructuredResult } from '../../../src/engine/results/structured.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { parseStructuredQuery } from '../../../src/engine/structured/request.js';
import { useTestStore } from '../../helpers/event-store.js';
import { tableRows } from '../helpers/reference.js';

/**
 * The same question asked in APL and as a structured query gets the same numbers: both become one
 * logical plan, compiled and run by the same code.
 */

const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };

const fixture = useTestStore((store) => store.load('logs', [...httpLogs({ seed: 23, count: 2000 })], { nowMs: Date.parse('2024-03-01T00:00:00Z') }));

async function apl(text: string): Promise<TabularResult> {
  const { result } = await runApl({ apl: text, format: 'tabular', ...WINDOW }, { reader: fixture.store });
  return result as TabularResult;
}

async function legacy(text: string): Promise<LegacyResult> {
  const { result } = await runApl({ apl: text, format: 'legacy', ...WINDOW }, { reader: fixture.store });
  return result as LegacyResult;
}

async function structured(body: Record<string, unknown>): Promise<StructuredResult> {
  const { result } = await runStructured('logs', parseStructuredQuery({ ...WINDOW, ...body }), { reader: fixture.store });
  return result;
}

/** APL's time series as `time|keys… → aggregate values`, and its totals as `keys… → values`. */
function aplSeries(result: TabularResult, keys: readonly string[]): { series: Map<string, unknown[]>; totals: Map<string, unknown[]> } {
  const [table, totalsTable] = result.tables;
  const split = (row: Record<string, unknown>, withTime: boolean): [string, unknown[]] => {
    const names = [...(withTime ? ['_time'] : []), ...keys];
    return [JSON.stringify(names.map((name) => row[name])), Object.entries(row).filter(([name]) => !names.includes(name)).map(([, value]) => value)];
  };
  return {
    series: new Map(tableRows(table as TabularResult['tables'][number]).map((row) => split(row, true))),
    totals: new Map(tableRows(totalsTable as TabularResult['tables'][number]).map((row) => split(row, false))),
  };
}

/** The structured result in the same form. */
function structuredSeries(result: StructuredResult, keys: readonly string[]): { series: Map<string, unknown[]>; totals: Map<string, unknown[]> } {
  const series = new Map<string, unknown[]>();
  for (const interval of result.buckets.series) {
    for (const group of interval.groups) {
      series.set(JSON.stringify([interval.startTime, ...keys.map((key) => group.group[key])]), group.aggregations.map((a) => a.value));
    }
  }
  const totals = new Map(result.buckets.totals.map((group) => [JSON.stringify(keys.map((key) => group.group[key])), group.aggregations.map((a) => a.value)]));
  return { series, totals };
}

describe('the same question in APL and as a structured query', () => {
  it.each([
    [
      'logs | where status == "500" or req_duration_ms > 250 | summarize count(), avg(req_duration_ms), dcount(uri), percentile(req_duration_ms, 95), sum(resp_body_size_bytes) by bin(_time, 1h), method',
      {
        resolution: '1h',
        filter: { op: 'or', children: [{ op: '==', field: 'status', value: '500' }, { op: '>', field: 'req_duration_ms', value: 250 }] },
        groupBy: ['method'],
        aggregations: [
          { op: 'count' },
          { op: 'avg', field: 'req_duration_ms' },
          { op: 'distinct', field: 'uri' },
          { op: 'percentiles', field: 'req_duration_ms', argument: 95 },
          { op: 'sum', field: 'resp_body_size_bytes' },
        ],
      },
      ['method'],
    ],
    [
      'logs | where uri contains "USERS" and isnull(referrer) and uri !endswith "orders" | summarize min(req_duration_ms), max(resp_header_size_bytes), stdev(req_duration_ms), variance(req_duration_ms) by bin(_time, 6h), server_datacenter, is_tls',
      {
        resolution: '6h',
        filter: {
          op: 'and',
          children: [
            { op: 'contains', field: 'uri', value: 'USERS' },
            { op: 'not-exists', field: 'referrer' },
            { op: 'not-ends-with', field: 'uri', value: 'orders' },
          ],
        },
        groupBy: ['server_datacenter', 'is_tls'],
        aggregations: [
          { op: 'min', field: 'req_duration_ms' },
          { op: 'max', field: 'resp_header_size_bytes' },
          { op: 'stdev', field: 'req_duration_ms' },
          { op: 'variance', field: 'req_duration_ms' },
        ],
      },
      ['server_datacenter', 'is_tls'],
    ],
    [
      'logs | extend slow = req_duration_ms > 100 | where method matches regex "^P" | summarize rate(resp_body_size_bytes), topk(geo.city, 2), make_set(status), countif(status startswith "2") by bin(_time, 3h), slow',
      {
        resolution: '3h',
        virtualFields: [{ alias: 'slow', expr: 'req_duration_ms > 100' }],
        filter: { op: 'regexp', field: 'method', value: '^P', caseSensitive: true },
        groupBy: ['slow'],
        aggregations: [
          { op: 'rate', field: 'resp_body_size_bytes' },
          { op: 'topk', field: 'geo.city', argument: 2 },
          { op: 'makeset', field: 'status' },
          { op: 'countif', argument: { op: 'starts-with', field: 'status', value: '2' } },
        ],
      },
      ['slow'],
    ],
  ])('%s', async (text, body, keys) => {
    const [viaApl, viaStructured] = await Promise.all([apl(text), structured(body)]);
    const expected = aplSeries(viaApl, keys);
    const actual = structuredSeries(viaStructured, keys);
    expect(actual.totals).toEqual(expected.totals);
    expect(actual.series).toEqual(expected.series);
    expect(actual.totals.size).toBeGreaterThan(0);
    expect(viaStructured.status).toMatchObject({ rowsExamined: viaApl.status.rowsExamined, rowsMatched: viaApl.status.rowsMatched });
  });

  it('lists the same rows in the same order', async () => {
    const [viaApl, viaStructured] = await Promise.all([
      apl('logs | where method == "DELETE" | project uri, status, req_duration_ms | take 25'),
      structured({ filter: { op: '==', field: 'method', value: 'DELETE' }, project: [{ field: 'uri' }, { field: 'status' }, { field: 'req_duration_ms' }], limit: 25 }),
    ]);
    expect(viaStructured.matches.map((match) => match.data)).toEqual(tableRows(viaApl.tables[0] as TabularResult['tables'][number]));
    expect(viaStructured.status).toMatchObject({ rowsExamined: viaApl.status.rowsExamined, rowsMatched: viaApl.status.rowsMatched });
  });

  it('gives each event the same _rowId in APL legacy matches and in structured matches, and either resumes a page', async () => {
    const [viaApl, viaStructured] = await Promise.all([
      legacy('logs | where method == "DELETE" | take 10'),
      structured({ filter: { op: '==', field: 'method', value: 'DELETE' }, limit: 10 }),
    ]);
    const ids = viaStructured.matches.map((match) => match._rowId);
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
    expect(viaApl.matches.map((match) => match._rowId)).toEqual(ids);
    const next = await structured({ filter: { op: '==', field: 'method', value: 'DELETE' }, limit: 5, cursor: viaApl.matches[4]?._rowId });
    expect(next.matches.map((match) => match._rowId)).toEqual(ids.slice(5));
  });
});
