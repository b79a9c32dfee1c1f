import { describe, expect, it } from 'vitest';
import { httpLogs } from '../../../bench/lib/http-logs.mjs';
import { runApl, type AplRequest } from '../../../src/engine/query/run-apl.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { useTestStore } from '../../helpers/event-store.js';
import { compareAsc, equalWidthHistogram, floorTo, groupBy, hasTerm, ingestedRows, isoOfNs, nearestRank, newestFirst, tableRows, type Row } from '../helpers/reference.js';

/**
 * Golden tests: queries over a generated HTTP-log dataset, each checked against the same rows
 * computed in plain JavaScript (../helpers/reference.ts), never against the engine itself.
 */

const EVENTS = [...httpLogs({ seed: 7, count: 3000 })] as unknown as Record<string, unknown>[];
const ROWS = ingestedRows(EVENTS);
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T01:00:00Z' };
const HOUR = 3_600_000_000_000n;

const fixture = useTestStore((store) => store.load('logs', EVENTS, { nowMs: Date.parse('2024-03-01T00:00:00Z') }));

async function query(apl: string, window: Partial<AplRequest> = WINDOW): Promise<TabularResult> {
  const { result } = await runApl({ apl, format: 'tabular', ...window }, { reader: fixture.store });
  return result as TabularResult;
}

async function rowsOf(apl: string): Promise<Record<string, unknown>[]> {
  const result = await query(apl);
  return tableRows(result.tables[0] as TabularResult['tables'][number]);
}

async function countOf(apl: string): Promise<number> {
  const [row] = await rowsOf(`${apl} | count`);
  return row?.count as number;
}

const where = (predicate: (row: Row) => boolean): number => ROWS.filter(predicate).length;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

describe('filters', () => {
  it.each([
    ['logs | where status == "500"', (r: Row) => r.status === '500'],
    ['logs | where status != "200" and method == "GET"', (r: Row) => r.status !== '200' && r.method === 'GET'],
    ['logs | where method =~ "get"', (r: Row) => text(r.method).toLowerCase() === 'get'],
    ['logs | where method !~ "GET"', (r: Row) => text(r.method).toLowerCase() !== 'get'],
    ['logs | where req_duration_ms > 100', (r: Row) => (r.req_duration_ms as number) > 100],
    ['logs | where req_duration_ms <= 10.5 or resp_body_size_bytes == 0', (r: Row) => (r.req_duration_ms as number) <= 10.5 || r.resp_body_size_bytes === 0],
    ['logs | where resp_body_size_bytes between (1000 .. 2000)', (r: Row) => (r.resp_body_size_bytes as number) >= 1000 && (r.resp_body_size_bytes as number) <= 2000],
    ['logs | where resp_body_size_bytes !between (1000 .. 48000)', (r: Row) => (r.resp_body_size_bytes as number) < 1000 || (r.resp_body_size_bytes as number) > 48000],
    ['logs | where method in ("PUT", "DELETE")', (r: Row) => r.method === 'PUT' || r.method === 'DELETE'],
    ['logs | where method !in ("GET")', (r: Row) => r.method !== 'GET'],
    ['logs | where method in~ ("put", "Delete")', (r: Row) => r.method === 'PUT' || r.method === 'DELETE'],
    ['logs | where uri contains "USERS"', (r: Row) => text(r.uri).toLowerCase().includes('users')],
    ['logs | where uri contains_cs "USERS"', (r: Row) => text(r.uri).includes('USERS')],
    ['logs | where uri !contains "api"', (r: Row) => !text(r.uri).toLowerCase().includes('api')],
    ['logs | where uri startswith "/API/V1/USERS"', (r: Row) => text(r.uri).toLowerCase().startsWith('/api/v1/users')],
    ['logs | where uri startswith_cs "/api/v2"', (r: Row) => text(r.uri).startsWith('/api/v2')],
    ['logs | where uri endswith ".js"', (r: Row) => text(r.uri).toLowerCase().endsWith('.js')],
    ['logs | where uri !endswith ".js"', (r: Row) => !text(r.uri).toLowerCase().endsWith('.js')],
    ['logs | where user_agent has "okhttp"', (r: Row) => hasTerm(r.user_agent, 'okhttp')],
    ['logs | where user_agent has "Gecko"', (r: Row) => hasTerm(r.user_agent, 'gecko')],
    ['logs | where user_agent !has "mozilla"', (r: Row) => !hasTerm(r.user_agent, 'mozilla')],
    ['logs | where user_agent has_cs "gecko"', (r: Row) => text(r.user_agent).split(/[^\p{L}\p{N}]+/u).includes('gecko')],
    ['logs | where uri hasprefix "user"', (r: Row) => text(r.uri).toLowerCase().split(/[^\p{L}\p{N}]+/u).some((t) => t.startsWith('user'))],
    ['logs | where uri hassuffix "ers"', (r: Row) => text(r.uri).toLowerCase().split(/[^\p{L}\p{N}]+/u).some((t) => t.endsWith('ers'))],
    ['logs | where uri matches regex @"^/api/v[12]/orders/[0-9]{4}$"', (r: Row) => /^\/api\/v[12]\/orders\/[0-9]{4}$/.test(text(r.uri))],
    ['logs | where isnull(user_id)', (r: Row) => r.user_id === undefined],
    ['logs | where isnotempty(referrer)', (r: Row) => typeof r.referrer === 'string' && r.referrer !== ''],
    ['logs | where referrer != "https://t.co/"', (r: Row) => r.referrer !== 'https://t.co/'],
    ['logs | where referrer == "https://t.co/"', (r: Row) => r.referrer === 'https://t.co/'],
    ['logs | where not(is_tls)', (r: Row) => r.is_tls === false],
    ['logs | where geo.city == "São Paulo"', (r: Row) => r['geo.city'] === 'São Paulo'],
    ["logs | where ['geo.country'] == 'Germany' and status startswith '2'", (r: Row) => r['geo.country'] === 'Germany' && text(r.status).startsWith('2')],
    ['logs | where status == 404', (r: Row) => r.status === '404'],
    ['logs | where status > 400', (r: Row) => text(r.status) > '400'],
    ['logs | where _time >= datetime(2024-01-01T06:00:00Z) and _time < datetime("2024-01-01T07:30:00Z")', (r: Row) => r._timeNs >= 1_704_088_800_000_000_000n && r._timeNs < 1_704_094_200_000_000_000n],
    ['let threshold = 300; logs | where req_duration_ms > threshold', (r: Row) => (r.req_duration_ms as number) > 300],
    ['logs | search "okhttp"', (r: Row) => Object.values(r).some((value) => hasTerm(value, 'okhttp'))],
  ])('%s', async (apl, predicate) => {
    expect(await countOf(apl)).toBe(where(predicate));
  });

  it('restricts rows to the request window, start inclusive and end exclusive', async () => {
    const start = 1_704_088_800_000_000_000n;
    const end = 1_704_110_400_000_000_000n;
    const result = await query('logs | count', { startTime: '2024-01-01T06:00:00Z', endTime: '2024-01-01T12:00:00Z' });
    expect(result.tables[0]?.columns[0]).toEqual([where((r) => r._timeNs >= start && r._timeNs < end)]);
    expect(result.status.rowsExamined).toBe(where((r) => r._timeNs >= start && r._timeNs < end));
  });
});

describe('raw rows', () => {
  it('orders by _time descending and takes the first rows', async () => {
    const rows = await rowsOf('logs | project _time, uri, status | take 7');
    const expected = newestFirst(ROWS)
      .slice(0, 7)
      .map((r) => ({ _time: isoOfNs(r._timeNs), uri: r.uri, status: r.status }));
    expect(rows).toEqual(expected);
  });

  it('sorts by a key with ties in _time order, nulls last when descending', async () => {
    const rows = await rowsOf('logs | where status == "404" | sort by user_id | project user_id, _time | take 40');
    const expected = newestFirst(ROWS.filter((r) => r.status === '404'))
      .sort((a, b) => {
        const [x, y] = [a.user_id as string | undefined, b.user_id as string | undefined];
        if (x === y) return 0;
        if (x === undefined) return 1;
        if (y === undefined) return -1;
        return x < y ? 1 : -1;
      })
      .slice(0, 40)
      .map((r) => ({ user_id: r.user_id ?? null, _time: isoOfNs(r._timeNs) }));
    expect(rows).toEqual(expected);
  });

  it('top N by an expression ascending', async () => {
    const rows = await rowsOf('logs | top 5 by resp_body_size_bytes * 2 asc | project uri, resp_body_size_bytes');
    const expected = newestFirst(ROWS)
      .sort((a, b) => (a.resp_body_size_bytes as number) - (b.resp_body_size_bytes as number))
      .slice(0, 5)
      .map((r) => ({ uri: r.uri, resp_body_size_bytes: r.resp_body_size_bytes }));
    expect(rows).toEqual(expected);
  });

  it('returns at most 1,000 rows without a limit, with a default_limit_warning', async () => {
    const result = await query('logs | where method == "GET" | project _time');
    expect(result.tables[0]?.columns[0]).toHaveLength(1000);
    expect(result.status.messages).toEqual([expect.objectContaining({ code: 'default_limit_warning' })]);
    expect(result.status.rowsMatched).toBe(where((r) => r.method === 'GET'));
    expect(result.status.rowsExamined).toBe(ROWS.length);
  });

  it('lists the dataset fields sorted by name, then extended fields in order', async () => {
    const result = await query('logs | extend b = 1, a = 2 | take 1');
    const names = result.tables[0]?.fields.map((field) => field.name);
    const fields = [...new Set(ROWS.flatMap((r) => Object.keys(r).filter((k) => !k.startsWith('_'))))];
    expect(names).toEqual(['_sysTime', '_time', ...fields.sort(), 'b', 'a']);
    expect(result.tables[0]?.order).toEqual([{ field: '_time', desc: true }]);
  });

  it('extends with integer division that truncates', async () => {
    const rows = await rowsOf('logs | extend kb = resp_body_size_bytes / 1024, neg = -resp_body_size_bytes / 1000 | project kb, neg | take 20');
    const expected = newestFirst(ROWS)
      .slice(0, 20)
      .map((r) => ({ kb: Math.trunc((r.resp_body_size_bytes as number) / 1024), neg: Math.trunc(-(r.resp_body_size_bytes as number) / 1000) || 0 }));
    expect(rows).toEqual(expected);
  });
});

describe('summarize', () => {
  it('counts by a key, ordered by the count descending then the key', async () => {
    const rows = await rowsOf('logs | summarize count() by method');
    const expected = [...groupBy(ROWS, (r) => r.method as string)]
      .map(([method, group]) => ({ method, count_: group.length }))
      .sort((a, b) => b.count_ - a.count_ || compareAsc(a.method, b.method));
    expect(rows).toEqual(expected);
  });

  it('computes avg, max, min and sum per key', async () => {
    const rows = await rowsOf('logs | summarize avg(req_duration_ms), max(resp_body_size_bytes), min(resp_body_size_bytes), sum(resp_body_size_bytes) by server_datacenter');
    const groups = groupBy(ROWS, (r) => r.server_datacenter as string);
    expect(rows.map((row) => row.server_datacenter).sort()).toEqual([...groups.keys()].sort());
    for (const row of rows) {
      const group = groups.get(row.server_datacenter as string) ?? [];
      const sizes = group.map((r) => r.resp_body_size_bytes as number);
      expect(row.avg_req_duration_ms as number).toBeCloseTo(group.reduce((s, r) => s + (r.req_duration_ms as number), 0) / group.length, 9);
      expect(row.max_resp_body_size_bytes).toBe(Math.max(...sizes));
      expect(row.min_resp_body_size_bytes).toBe(Math.min(...sizes));
      expect(row.sum_resp_body_size_bytes).toBe(sizes.reduce((s, v) => s + v, 0));
    }
  });

  it('computes nearest-rank percentiles exactly', async () => {
    const rows = await rowsOf('logs | summarize percentile(req_duration_ms, 95), percentile(req_duration_ms, 50), percentile(resp_header_size_bytes, 99.9) by method');
    const groups = groupBy(ROWS, (r) => r.method as string);
    for (const row of rows) {
      const group = groups.get(row.method as string) ?? [];
      expect(row.percentile_req_duration_ms_95).toBe(nearestRank(group.map((r) => r.req_duration_ms as number), 95));
      expect(row.percentile_req_duration_ms_50).toBe(nearestRank(group.map((r) => r.req_duration_ms as number), 50));
      expect(row.percentile_resp_header_size_bytes_99_9).toBe(nearestRank(group.map((r) => r.resp_header_size_bytes as number), 99.9));
    }
  });

  it('counts distinct values exactly, ignoring missing ones', async () => {
    const [row] = await rowsOf('logs | summarize dcount(uri), dcount(user_id), dcountif(uri, status == "404")');
    expect(row).toEqual({
      dcount_uri: new Set(ROWS.map((r) => r.uri)).size,
      dcount_user_id: new Set(ROWS.filter((r) => r.user_id !== undefined).map((r) => r.user_id)).size,
      dcountif_uri: new Set(ROWS.filter((r) => r.status === '404').map((r) => r.uri)).size,
    });
  });

  it('counts conditionally with countif and sums conditionally with sumif', async () => {
    const rows = await rowsOf('logs | extend slow = req_duration_ms > 200 | summarize countif(slow), sumif(resp_body_size_bytes, status == "999"), count() by method');
    for (const row of rows) {
      const group = ROWS.filter((r) => r.method === row.method);
      expect(row).toEqual({ method: row.method, countif_: group.filter((r) => (r.req_duration_ms as number) > 200).length, sumif_resp_body_size_bytes: 0, count_: group.length });
    }
  });

  it('keeps make_set in first-seen order and topk by count then key', async () => {
    const [row] = await rowsOf('logs | summarize make_set(server_datacenter), topk(geo.city, 3)');
    const seen = [...new Set(ROWS.map((r) => r.server_datacenter))];
    const counts = [...groupBy(ROWS, (r) => r['geo.city'] as string)].map(([key, group]) => ({ key, count: group.length, error: 0 }));
    counts.sort((a, b) => b.count - a.count || compareAsc(a.key, b.key));
    expect(row).toEqual({ make_set_server_datacenter: seen, 'topk_geo.city': counts.slice(0, 3) });
  });

  it('computes equal-width histograms per group, and histogramif over the rows its condition holds for', async () => {
    const result = await query('logs | summarize histogram(req_duration_ms, 4), histogramif(req_duration_ms, 3, method == "GET") by server_datacenter');
    const table = result.tables[0] as TabularResult['tables'][number];
    expect(table.fields.slice(1).map((field) => [field.name, field.type, field.agg])).toEqual([
      ['histogram_req_duration_ms', 'array', { name: 'histogram', fields: ['req_duration_ms'], args: [4] }],
      ['histogramif_req_duration_ms', 'array', { name: 'histogramif', fields: ['req_duration_ms'], args: [3] }],
    ]);
    const durations = (rows: readonly Row[]): number[] => rows.map((r) => r.req_duration_ms as number);
    const expected = [...groupBy(ROWS, (r) => r.server_datacenter as string)].map(([datacenter, group]) => ({
      server_datacenter: datacenter,
      histogram_req_duration_ms: equalWidthHistogram(durations(group), 4),
      histogramif_req_duration_ms: equalWidthHistogram(durations(group.filter((r) => r.method === 'GET')), 3),
    }));
    const byKey = (a: { server_datacenter: string }, b: { server_datacenter: string }): number => compareAsc(a.server_datacenter, b.server_datacenter);
    expect((tableRows(table) as typeof expected).sort(byKey)).toEqual(expected.sort(byKey));
  });

  it('gives a histogram of no values as an empty list', async () => {
    const [row] = await rowsOf('logs | where status == "no such status" | summarize histogram(req_duration_ms, 10)');
    expect(row).toEqual({ histogram_req_duration_ms: [] });
  });

  it('returns the row with the largest value with arg_max, ties to the first ingested', async () => {
    const [row] = await rowsOf('logs | summarize arg_max(resp_header_size_bytes, uri, method)');
    const max = Math.max(...ROWS.map((r) => r.resp_header_size_bytes as number));
    const first = ROWS.find((r) => r.resp_header_size_bytes === max);
    expect(row).toEqual({ resp_header_size_bytes: max, uri: first?.uri, method: first?.method });
  });

  it('computes the sample stdev and variance', async () => {
    const [row] = await rowsOf('logs | summarize stdev(req_duration_ms), variance(req_duration_ms)');
    const values = ROWS.map((r) => r.req_duration_ms as number);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1);
    expect(row?.variance_req_duration_ms as number).toBeCloseTo(variance, 6);
    expect(row?.stdev_req_duration_ms as number).toBeCloseTo(Math.sqrt(variance), 9);
  });

  it('bins time by the hour into table 0 and totals into _totals', async () => {
    const result = await query('logs | summarize count() by bin(_time, 1h), method');
    const [series, totals] = result.tables;
    const expectedSeries = [...groupBy(ROWS, (r) => `${floorTo(r._timeNs, HOUR)}|${String(r.method)}`)]
      .map(([key, group]) => ({ _time: isoOfNs(BigInt(key.split('|')[0] ?? '0')), method: group[0]?.method, count_: group.length }))
      .sort((a, b) => compareAsc(a._time, b._time) || b.count_ - a.count_ || compareAsc(a.method, b.method));
    expect(tableRows(series as never)).toEqual(expectedSeries);
    expect(series?.buckets).toEqual({ field: '_time', size: 3_600_000_000_000 });
    expect(series?.groups).toEqual([{ name: 'method' }]);
    expect(series?.range).toEqual({ field: '_time', start: '2024-01-01T00:00:00Z', end: '2024-01-02T01:00:00Z' });
    expect(series?.order).toEqual([
      { field: '_time', desc: false },
      { field: 'count_', desc: true },
      { field: 'method', desc: false },
    ]);
    const expectedTotals = [...groupBy(ROWS, (r) => r.method as string)]
      .map(([method, group]) => ({ method, count_: group.length }))
      .sort((a, b) => b.count_ - a.count_ || compareAsc(a.method, b.method));
    expect(totals?.name).toBe('_totals');
    expect(tableRows(totals as never)).toEqual(expectedTotals);
    expect(totals?.buckets).toBeUndefined();
    expect(series?.fields.find((field) => field.name === 'count_')?.agg).toEqual({ name: 'count', fields: [], args: [] });
  });

  it('picks the bin_auto size from the ladder and reports it', async () => {
    const result = await query('logs | summarize count() by bin_auto(_time)');
    // 25 hours: 10m makes 150 buckets, 30m makes 50, the first step with at most 100.
    const size = 30n * 60_000_000_000n;
    expect(result.tables[0]?.buckets?.size).toBe(Number(size));
    const expected = [...groupBy(ROWS, (r) => String(floorTo(r._timeNs, size)))].map(([key, group]) => [isoOfNs(BigInt(key)), group.length]);
    expect(tableRows(result.tables[0] as never).map((row) => [row._time, row.count_])).toEqual(expected.sort((a, b) => compareAsc(a[0], b[0])));
  });

  it('widens the reported range to whole buckets', async () => {
    const result = await query('logs | summarize count() by bin(_time, 1h)', { startTime: '2024-01-01T05:30:00Z', endTime: '2024-01-01T07:15:00Z' });
    expect(result.tables[0]?.range).toEqual({ field: '_time', start: '2024-01-01T05:00:00Z', end: '2024-01-01T08:00:00Z' });
    expect(result.tables[0]?.columns[0]).toEqual(['2024-01-01T05:00:00Z', '2024-01-01T06:00:00Z', '2024-01-01T07:00:00Z']);
  });

  it('summarizes with no by into exactly one row, even over no rows', async () => {
    const rows = await rowsOf('logs | where status == "999" | summarize count(), sum(resp_body_size_bytes), avg(req_duration_ms), dcount(uri)');
    expect(rows).toEqual([{ count_: 0, sum_resp_body_size_bytes: 0, avg_req_duration_ms: null, dcount_uri: 0 }]);
  });

  it('lists distinct combinations in ascending order', async () => {
    const rows = await rowsOf('logs | distinct method, is_tls');
    const expected = [...new Set(ROWS.map((r) => JSON.stringify([r.method, r.is_tls])))]
      .map((key) => JSON.parse(key) as [string, boolean])
      .sort((a, b) => compareAsc(a[0], b[0]) || compareAsc(a[1], b[1]))
      .map(([method, is_tls]) => ({ method, is_tls }));
    expect(rows).toEqual(expected);
  });

  it('groups by two keys and takes the top ones', async () => {
    const rows = await rowsOf('logs | summarize n = count() by geo.country, method | top 4 by n');
    const expected = [...groupBy(ROWS, (r) => `${String(r['geo.country'])}|${String(r.method)}`)]
      .map(([key, group]) => ({ 'geo.country': key.split('|')[0], method: key.split('|')[1], n: group.length }))
      .sort((a, b) => b.n - a.n || compareAsc(a['geo.country'], b['geo.country']) || compareAsc(a.method, b.method))
      .slice(0, 4);
    expect(rows).toEqual(expected);
  });

  it('computes rate per second over each bin and over the whole window for the totals', async () => {
    const result = await query('logs | summarize rate(resp_body_size_bytes) by bin(_time, 6h)');
    const [series, totals] = result.tables;
    const sum = (group: readonly Row[]): number => group.reduce((s, r) => s + (r.resp_body_size_bytes as number), 0);
    const bins = [...groupBy(ROWS, (r) => String(floorTo(r._timeNs, 6n * HOUR)))].sort((a, b) => compareAsc(BigInt(a[0]), BigInt(b[0])));
    const rates = (series?.columns[1] ?? []) as number[];
    bins.forEach(([, group], index) => expect(rates[index]).toBeCloseTo(sum(group) / (6 * 3600), 9));
    expect(totals?.columns[0]?.[0] as number).toBeCloseTo(sum(ROWS) / (25 * 3600), 9);
  });

  it('names aggregates by the Kusto rule and appends _1 on a clash', async () => {
    const result = await query('logs | summarize count(), count(), sum(resp_body_size_bytes * 2), avg(req_duration_ms) by method');
    expect(result.tables[0]?.fields.map((field) => field.name)).toEqual(['method', 'count_', 'count__1', 'sum_', 'avg_req_duration_ms']);
    expect(result.tables[0]?.fields.map((field) => field.agg?.name)).toEqual([undefined, 'count', 'count', 'sum', 'avg']);
  });
});

describe('status counters', () => {
  const all = ROWS.length;
  const errors = where((r) => r.status === '500');
  it.each([
    ['logs | take 3', all, all],
    ['logs | where status == "500" | take 3', all, errors],
    ['logs | summarize count() by method', all, all],
    ['logs | summarize count() by bin(_time, 1h), method', all, all],
    ['logs | where status == "500" | summarize count() by method | top 2 by count_', all, errors],
    ['logs | where status == "500" | count', all, errors],
    ['logs | where status == "999" | summarize count() by method', all, 0],
    ['logs | where status == "999"', all, 0],
    ['logs | summarize n = count() by method | where n > 100000', all, all],
    ['logs | take 10 | where status == "500"', all, all],
  ])('counts real rows for %s', async (apl, examined, matched) => {
    const { status } = await query(apl);
    expect([status.rowsExamined, status.rowsMatched]).toEqual([examined, matched]);
  });
});
