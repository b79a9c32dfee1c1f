import { describe, expect, it } from 'vitest';
import { httpLogs } from '../../../bench/lib/http-logs.mjs';
import { runStructured } from '../../../src/engine/query/run-structured.js';
import type { GroupResult, StructuredResult } from '../../../src/engine/results/structured.js';
import { parseStructuredQuery } from '../../../src/engine/structured/request.js';
import { useTestStore } from '../../helpers/event-store.js';
import { compareAsc, equalWidthHistogram, floorTo, groupBy, hasTerm, ingestedRows, isoOfNs, nearestRank, newestFirst, type Row } from '../helpers/reference.js';

/**
 * Golden tests: structured queries over the generated HTTP-log dataset, each checked against the
 * same rows computed in plain JavaScript (../helpers/reference.ts), never against the engine.
 */

const EVENTS = [...httpLogs({ seed: 11, count: 3000 })] as unknown as Record<string, unknown>[];
const ROWS = ingestedRows(EVENTS);
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T01:00:00Z' };
const WINDOW_SECONDS = 25 * 3600;
const HOUR = 3_600_000_000_000n;

const fixture = useTestStore((store) => store.load('logs', EVENTS, { nowMs: Date.parse('2024-03-01T00:00:00Z') }));

async function query(body: Record<string, unknown>): Promise<StructuredResult> {
  const { result } = await runStructured('logs', parseStructuredQuery({ ...WINDOW, ...body }), { reader: fixture.store });
  return result;
}

/** The totals' aggregation values by group key (the JSON of the group object), by label. */
async function totals(body: Record<string, unknown>): Promise<Map<string, Record<string, unknown>>> {
  const result = await query(body);
  return new Map(result.buckets.totals.map((group) => [JSON.stringify(group.group), Object.fromEntries(group.aggregations.map((a) => [a.op, a.value]))]));
}

async function countWhere(filter: unknown): Promise<number> {
  const result = await query({ filter, aggregations: [{ op: 'count' }] });
  return result.buckets.totals[0]?.aggregations[0]?.value as number;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const number = (value: unknown): number => value as number;
const count = (predicate: (row: Row) => boolean): number => ROWS.filter(predicate).length;
const close = (actual: unknown, expected: number): void => {
  expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
};

describe('filters', () => {
  it.each([
    [{ op: '==', field: 'status', value: '500' }, (r: Row) => r.status === '500'],
    [{ op: 'eq', field: 'status', value: 404 }, (r: Row) => r.status === '404'],
    [{ op: '!=', field: 'method', value: 'GET' }, (r: Row) => r.method !== 'GET'],
    [{ op: 'ne', field: 'method', value: 'get' }, (r: Row) => r.method !== 'get'],
    [{ op: '==', field: 'user_id', value: null }, (r: Row) => r.user_id === undefined],
    [{ op: '!=', field: 'user_id', value: null }, (r: Row) => r.user_id !== undefined],
    [{ op: 'exists', field: 'referrer' }, (r: Row) => r.referrer !== undefined],
    [{ op: 'not-exists', field: 'referrer' }, (r: Row) => r.referrer === undefined],
    [{ op: '>', field: 'req_duration_ms', value: 100 }, (r: Row) => number(r.req_duration_ms) > 100],
    [{ op: 'gte', field: 'resp_body_size_bytes', value: 40_000 }, (r: Row) => number(r.resp_body_size_bytes) >= 40_000],
    [{ op: '<', field: 'req_duration_ms', value: 5.5 }, (r: Row) => number(r.req_duration_ms) < 5.5],
    [{ op: 'lte', field: 'req_duration_ms', value: '10.5' }, (r: Row) => number(r.req_duration_ms) <= 10.5],
    [{ op: '>', field: 'status', value: '400' }, (r: Row) => text(r.status) > '400'],
    [{ op: '>=', field: '_time', value: '2024-01-01T06:00:00Z' }, (r: Row) => r._timeNs >= 1_704_088_800_000_000_000n],
    [{ op: 'starts-with', field: 'uri', value: '/API/V1/USERS' }, (r: Row) => text(r.uri).toLowerCase().startsWith('/api/v1/users')],
    [{ op: 'starts-with', field: 'uri', value: '/API/V1/USERS', caseSensitive: true }, (r: Row) => text(r.uri).startsWith('/API/V1/USERS')],
    [{ op: 'starts-with', field: 'uri', value: '/api/v2', caseSensitive: true }, (r: Row) => text(r.uri).startsWith('/api/v2')],
    [{ op: 'not-starts-with', field: 'uri', value: '/API' }, (r: Row) => !text(r.uri).toLowerCase().startsWith('/api')],
    [{ op: 'ends-with', field: 'uri', value: '.JS' }, (r: Row) => text(r.uri).toLowerCase().endsWith('.js')],
    [{ op: 'not-ends-with', field: 'uri', value: '.js', caseSensitive: true }, (r: Row) => !text(r.uri).endsWith('.js')],
    [{ op: 'contains', field: 'user_agent', value: 'GECKO' }, (r: Row) => text(r.user_agent).toLowerCase().includes('gecko')],
    [{ op: 'contains', field: 'user_agent', value: 'Gecko', caseSensitive: true }, (r: Row) => text(r.user_agent).includes('Gecko')],
    [{ op: 'not-contains', field: 'message', value: 'ANSWERED 2' }, (r: Row) => !text(r.message).toLowerCase().includes('answered 2')],
    [{ op: 'regexp', field: 'uri', value: '^/API/v[12]/orders/[0-9]{4}$' }, (r: Row) => /^\/api\/v[12]\/orders\/[0-9]{4}$/i.test(text(r.uri))],
    [{ op: 'regexp', field: 'uri', value: '^/API/', caseSensitive: true }, (r: Row) => /^\/API\//.test(text(r.uri))],
    [{ op: 'not-regexp', field: 'status', value: '^[23]' }, (r: Row) => !/^[23]/.test(text(r.status))],
    [{ op: '==', field: 'geo.city', value: 'São Paulo' }, (r: Row) => r['geo.city'] === 'São Paulo'],
    [{ op: '==', field: 'is_tls', value: false }, (r: Row) => r.is_tls === false],
    [{ op: 'contains', field: 'tags', value: 'beta' }, (r: Row) => Array.isArray(r.tags) && (r.tags as string[]).some((tag) => tag.includes('beta'))],
    [
      { op: 'and', children: [{ op: '==', field: 'method', value: 'POST' }, { op: 'or', children: [{ op: '==', field: 'status', value: '201' }, { op: '>', field: 'req_duration_ms', value: 200 }] }] },
      (r: Row) => r.method === 'POST' && (r.status === '201' || number(r.req_duration_ms) > 200),
    ],
    [
      { op: 'not', children: [{ op: '==', field: 'method', value: 'GET' }, { op: '==', field: 'is_tls', value: true }] },
      (r: Row) => !(r.method === 'GET' && r.is_tls === true),
    ],
    [{ op: 'exists', field: 'user_id', children: [{ op: 'starts-with', field: 'uri', value: '/auth' }] }, (r: Row) => r.user_id !== undefined && text(r.uri).startsWith('/auth')],
    [{ op: 'and', children: [] }, () => true],
  ])('%j', async (filter, predicate) => {
    expect(await countWhere(filter)).toBe(count(predicate));
  });

  it('counts the rows examined and the rows that matched', async () => {
    const result = await query({ filter: { op: '==', field: 'method', value: 'PUT' }, aggregations: [{ op: 'count' }] });
    expect(result.status).toMatchObject({ rowsExamined: ROWS.length, rowsMatched: count((r) => r.method === 'PUT'), numGroups: 1 });
  });
});

describe('matches', () => {
  it('lists the newest rows first with _time, _sysTime, a _rowId cursor, and the fields that have a value', async () => {
    const result = await query({ limit: 7 });
    const expected = newestFirst(ROWS)
      .slice(0, 7)
      .map((row) => {
        const data: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(row)) if (!['_time', '_index', '_timeNs'].includes(name)) data[name] = value;
        return { _time: isoOfNs(row._timeNs), _sysTime: '2024-03-01T00:00:00Z', _rowId: `${row._timeNs}-${row._index}`, data };
      });
    expect(result.matches).toEqual(expected);
    expect(result.buckets).toEqual({ series: [], totals: [] });
    expect(result.status).toMatchObject({ rowsExamined: ROWS.length, rowsMatched: ROWS.length, numGroups: 0, continuationToken: '' });
  });

  it('says when the default limit left matches out, and not when the limit was given', async () => {
    const byDefault = await query({ project: [{ field: 'status' }] });
    expect(byDefault.matches).toHaveLength(1000);
    expect(byDefault.status.messages).toEqual([
      { priority: 'warn', count: 1, code: 'default_limit_warning', msg: 'More than the default limit of 1000 matches; only the first 1000 are returned. Set limit, or page with includeCursor.' },
    ]);
    expect(byDefault.status.isPartial).toBe(false);
    const given = await query({ project: [{ field: 'status' }], limit: 1000 });
    expect(given.matches).toHaveLength(1000);
    expect(given.status.messages).toEqual([]);
  });

  it('projects fields under their aliases, virtual fields included', async () => {
    const result = await query({
      limit: 5,
      filter: { op: '==', field: 'method', value: 'DELETE' },
      virtualFields: [{ alias: 'slow', expr: 'req_duration_ms > 50' }],
      project: [{ field: 'uri', alias: 'path' }, { field: 'slow' }, { field: 'referrer' }],
    });
    const expected = newestFirst(ROWS.filter((r) => r.method === 'DELETE'))
      .slice(0, 5)
      .map((r) => ({ path: r.uri, slow: number(r.req_duration_ms) > 50, ...(r.referrer === undefined ? {} : { referrer: r.referrer }) }));
    expect(result.matches.map((match) => match.data)).toEqual(expected);
  });

  it('orders by a field, nulls first ascending, ties newest first', async () => {
    const result = await query({ limit: 30, order: [{ field: 'referrer', desc: false }], project: [{ field: 'referrer' }] });
    const expected = newestFirst(ROWS)
      .sort((a, b) => compareAsc(a.referrer, b.referrer))
      .slice(0, 30)
      .map((r) => `${r._timeNs}-${r._index}`);
    expect(result.matches.map((match) => match._rowId)).toEqual(expected);
  });

  it('lists oldest first when ordered by _time ascending', async () => {
    const result = await query({ limit: 4, order: [{ field: '_time', desc: false }] });
    const expected = [...ROWS].sort((a, b) => (a._timeNs === b._timeNs ? a._index - b._index : a._timeNs < b._timeNs ? -1 : 1)).slice(0, 4);
    expect(result.matches.map((match) => match._rowId)).toEqual(expected.map((r) => `${r._timeNs}-${r._index}`));
  });

  it.each([['desc'], ['asc']])('pages through every matching row once, %s, following continuationToken', async (direction) => {
    const filter = { op: 'starts-with', field: 'uri', value: '/auth' };
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    do {
      const result = await query({ filter, limit: 13, includeCursor: true, cursor, order: [{ field: '_time', desc: direction === 'desc' }] });
      seen.push(...result.matches.map((match) => match._rowId));
      cursor = result.status.continuationToken;
      pages++;
    } while (cursor !== '' && pages < 100);
    const rows = newestFirst(ROWS.filter((r) => text(r.uri).startsWith('/auth')));
    const expected = (direction === 'desc' ? rows : rows.reverse()).map((r) => `${r._timeNs}-${r._index}`);
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.max(1, Math.ceil(expected.length / 13)));
  });
});

describe('aggregations', () => {
  const byDatacenter = groupBy(ROWS, (r) => String(r.server_datacenter));
  const key = (datacenter: string): string => JSON.stringify({ server_datacenter: datacenter });
  const values = (rows: readonly Row[], field: string): number[] => rows.map((r) => r[field]).filter((v): v is number => typeof v === 'number');

  it('computes count, distinct, sum, avg, min, max, stdev and variance per group', async () => {
    const result = await totals({
      groupBy: ['server_datacenter'],
      aggregations: [
        { op: 'count' },
        { op: 'count', field: 'user_id', alias: 'with_user' },
        { op: 'distinct', field: 'uri' },
        { op: 'sum', field: 'resp_body_size_bytes' },
        { op: 'avg', field: 'req_duration_ms' },
        { op: 'min', field: 'req_duration_ms' },
        { op: 'max', field: 'resp_header_size_bytes' },
        { op: 'stdev', field: 'req_duration_ms' },
        { op: 'variance', field: 'req_duration_ms' },
      ],
    });
    expect(result.size).toBe(byDatacenter.size);
    for (const [datacenter, rows] of byDatacenter) {
      const got = result.get(key(datacenter)) as Record<string, unknown>;
      const durations = values(rows, 'req_duration_ms');
      const mean = durations.reduce((a, b) => a + b, 0) / durations.length;
      const variance = durations.reduce((a, b) => a + (b - mean) ** 2, 0) / (durations.length - 1);
      expect(got.count).toBe(rows.length);
      expect(got.with_user).toBe(rows.filter((r) => r.user_id !== undefined).length);
      expect(got.distinct).toBe(new Set(rows.map((r) => r.uri)).size);
      expect(got.sum).toBe(values(rows, 'resp_body_size_bytes').reduce((a, b) => a + b, 0));
      close(got.avg, mean);
      expect(got.min).toBe(Math.min(...durations));
      expect(got.max).toBe(Math.max(...values(rows, 'resp_header_size_bytes')));
      close(got.variance, variance);
      close(got.stdev, Math.sqrt(variance));
    }
  });

  it('computes nearest-rank percentiles, one or several', async () => {
    const result = await totals({
      groupBy: ['server_datacenter'],
      aggregations: [
        { op: 'percentiles', field: 'req_duration_ms', argument: 95, alias: 'p95' },
        { op: 'percentiles', field: 'req_duration_ms', argument: [50, 99.9] },
      ],
    });
    for (const [datacenter, rows] of byDatacenter) {
      const durations = values(rows, 'req_duration_ms');
      expect(result.get(key(datacenter))).toEqual({ p95: nearestRank(durations, 95), percentiles: [nearestRank(durations, 50), nearestRank(durations, 99.9)] });
    }
  });

  it('computes topk by count then value, and equal-width histograms from the minimum to the maximum', async () => {
    const result = await totals({
      groupBy: ['server_datacenter'],
      aggregations: [
        { op: 'topk', field: 'geo.city', argument: 3 },
        { op: 'histogram', field: 'req_duration_ms', argument: 4 },
      ],
    });
    for (const [datacenter, rows] of byDatacenter) {
      const counts = [...groupBy(rows, (r) => String(r['geo.city']))].map(([city, group]) => ({ key: city, count: group.length, error: 0 }));
      counts.sort((a, b) => b.count - a.count || compareAsc(a.key, b.key));
      expect(result.get(key(datacenter))).toEqual({ topk: counts.slice(0, 3), histogram: equalWidthHistogram(values(rows, 'req_duration_ms'), 4) });
    }
  });

  it('keeps makeset in first-seen order and makelist in ingest order, up to the limit given', async () => {
    const filter = { op: '==', field: 'uri', value: '/healthz' };
    const result = await totals({ filter, aggregations: [{ op: 'makeset', field: 'status' }, { op: 'makelist', field: 'user_id', argument: 5 }] });
    const rows = ROWS.filter((r) => r.uri === '/healthz');
    expect(result.get('{}')).toEqual({
      makeset: [...new Set(rows.map((r) => r.status))],
      makelist: rows.map((r) => r.user_id).filter((v) => v !== undefined).slice(0, 5),
    });
  });

  it('returns the extreme row\'s fields for argmin and argmax, ties to the first ingested', async () => {
    const result = await totals({
      aggregations: [
        { op: 'argmax', field: 'resp_header_size_bytes', argument: ['uri', 'method'] },
        { op: 'argmin', field: 'resp_header_size_bytes', argument: 'uri' },
      ],
    });
    const sizes = values(ROWS, 'resp_header_size_bytes');
    const largest = ROWS.find((r) => r.resp_header_size_bytes === Math.max(...sizes)) as Row;
    const smallest = ROWS.find((r) => r.resp_header_size_bytes === Math.min(...sizes)) as Row;
    expect(result.get('{}')).toEqual({
      argmax: { resp_header_size_bytes: largest.resp_header_size_bytes, uri: largest.uri, method: largest.method },
      argmin: { resp_header_size_bytes: smallest.resp_header_size_bytes, uri: smallest.uri },
    });
  });

  it('computes countif, distinctif and makesetif over the rows their condition holds for', async () => {
    const result = await totals({
      aggregations: [
        { op: 'countif', argument: { op: 'starts-with', field: 'status', value: '5' } },
        { op: 'distinctif', field: 'uri', argument: { op: '==', field: 'method', value: 'POST' } },
        { op: 'makesetif', field: 'status', argument: { op: '==', field: 'method', value: 'DELETE' } },
      ],
    });
    expect(result.get('{}')).toEqual({
      countif: count((r) => text(r.status).startsWith('5')),
      distinctif: new Set(ROWS.filter((r) => r.method === 'POST').map((r) => r.uri)).size,
      makesetif: [...new Set(ROWS.filter((r) => r.method === 'DELETE').map((r) => r.status))],
    });
  });

  it('groups by a virtual field', async () => {
    const result = await totals({
      virtualFields: [{ alias: 'class', expr: 'strcat(substring(status, 0, 1), "xx")' }],
      groupBy: ['class'],
      aggregations: [{ op: 'count' }],
    });
    const expected = new Map([...groupBy(ROWS, (r) => `${text(r.status).slice(0, 1)}xx`)].map(([name, rows]) => [JSON.stringify({ class: name }), { count: rows.length }]));
    expect(result).toEqual(expected);
  });
});

describe('buckets', () => {
  it('has one interval per resolution step, each with its groups, and the totals over the window', async () => {
    const result = await query({ resolution: '1h', groupBy: ['method'], aggregations: [{ op: 'count' }, { op: 'rate', field: 'resp_body_size_bytes' }] });
    expect(result.buckets.series).toHaveLength(25);
    const start = 1_704_067_200_000_000_000n;
    result.buckets.series.forEach((interval, index) => {
      expect(interval.startTime).toBe(isoOfNs(start + BigInt(index) * HOUR));
      expect(interval.endTime).toBe(isoOfNs(start + BigInt(index + 1) * HOUR));
      const rows = ROWS.filter((r) => floorTo(r._timeNs, HOUR) === start + BigInt(index) * HOUR);
      const expected = new Map([...groupBy(rows, (r) => String(r.method))].map(([method, group]) => [method, group.length]));
      expect(new Map(interval.groups.map((group) => [group.group.method, group.aggregations[0]?.value]))).toEqual(expected);
      for (const group of interval.groups) {
        const sum = rows.filter((r) => r.method === group.group.method).reduce((a, r) => a + number(r.resp_body_size_bytes), 0);
        close(group.aggregations[1]?.value, sum / 3600);
      }
    });
    expect(result.buckets.series[24]?.groups).toEqual([]);
    const ids = new Map(result.buckets.totals.map((group) => [group.group.method, group.id]));
    for (const interval of result.buckets.series) for (const group of interval.groups) expect(group.id).toBe(ids.get(group.group.method));
    for (const group of result.buckets.totals) {
      const rows = ROWS.filter((r) => r.method === group.group.method);
      expect(group.aggregations[0]).toEqual({ op: 'count', value: rows.length });
      close(group.aggregations[1]?.value, rows.reduce((a, r) => a + number(r.resp_body_size_bytes), 0) / WINDOW_SECONDS);
    }
    expect(result.status.numGroups).toBe(ids.size);
  });

  it('keeps the first `limit` groups of the totals in the order asked, and only those in each interval', async () => {
    const result = await query({ resolution: '6h', groupBy: ['status'], aggregations: [{ op: 'count', alias: 'n' }], order: [{ field: 'n', desc: false }], limit: 3 });
    const counts = [...groupBy(ROWS, (r) => String(r.status))].map(([status, rows]) => ({ status, n: rows.length }));
    counts.sort((a, b) => a.n - b.n || compareAsc(a.status, b.status));
    const kept = counts.slice(0, 3);
    expect(result.buckets.totals).toEqual(kept.map((c, id): GroupResult => ({ id, group: { status: c.status }, aggregations: [{ op: 'n', value: c.n }] })));
    for (const interval of result.buckets.series) {
      const counted = interval.groups.map((group) => group.aggregations[0]?.value as number);
      expect(counted).toEqual([...counted].sort((a, b) => a - b));
      for (const group of interval.groups) expect(kept.map((c) => c.status)).toContain(group.group.status);
    }
    expect(result.status.numGroups).toBe(3);
  });

  it('keeps the first 1000 groups by default and says so', async () => {
    const result = await query({ resolution: '6h', groupBy: ['trace_id'], aggregations: [{ op: 'count' }] });
    expect(new Set(ROWS.map((r) => r.trace_id)).size).toBeGreaterThan(1000);
    expect(result.buckets.totals).toHaveLength(1000);
    expect(result.status.numGroups).toBe(1000);
    expect(result.status.messages.map((message) => message.code)).toEqual(['default_limit_warning']);
  });

  it('picks the resolution automatically from the ladder, at most 100 intervals', async () => {
    const result = await query({ aggregations: [{ op: 'count' }] });
    expect(result.buckets.series).toHaveLength(50);
    expect(result.buckets.series[0]).toMatchObject({ startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-01T00:30:00Z' });
    expect(result.buckets.totals).toEqual([{ id: 0, group: {}, aggregations: [{ op: 'count', value: ROWS.length }] }]);
  });

  it('answers one group of zeros over no rows', async () => {
    const result = await query({ filter: { op: '==', field: 'method', value: 'TRACE' }, aggregations: [{ op: 'count' }, { op: 'sum', field: 'resp_body_size_bytes' }, { op: 'avg', field: 'req_duration_ms' }] });
    expect(result.buckets.totals).toEqual([{ id: 0, group: {}, aggregations: [{ op: 'count', value: 0 }, { op: 'sum', value: 0 }, { op: 'avg', value: null }] }]);
    expect(result.buckets.series.every((interval) => interval.groups.length === 0)).toBe(true);
  });
});

describe('text matching', () => {
  it('matches whole terms the way APL does, through a virtual field', async () => {
    const result = await totals({ virtualFields: [{ alias: 'okhttp', expr: 'user_agent has "okhttp"' }], groupBy: ['okhttp'], aggregations: [{ op: 'count' }] });
    expect(result.get(JSON.stringify({ okhttp: true }))).toEqual({ count: count((r) => hasTerm(r.user_agent, 'okhttp')) });
  });
});
