import { AggregationOp, FilterOp } from '@axiomhq/js';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpLogs } from '../../bench/lib/http-logs.mjs';
import { groupBy, ingestedRows, newestFirst } from '../engine/helpers/reference.js';
import { useLocalService } from '../helpers/local-service.js';

/**
 * The structured query endpoint over HTTP on the real local service: the official JavaScript
 * client's queryLegacy() unchanged, a request in the Go client's style with every key, and the
 * refusals with the path of what is wrong.
 */

const EVENTS = [...httpLogs({ seed: 5, count: 1500 })] as unknown as Record<string, unknown>[];
const ROWS = ingestedRows(EVENTS);
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };

/** Events shaped like the Go client's integration test data (a response code and a remote address). */
const ACCESS_EVENTS = Array.from({ length: 14 }, (_, i) => ({
  _time: `2024-01-01T00:${String(10 + i).padStart(2, '0')}:00Z`,
  remote_ip: i % 2 === 0 ? '93.180.71.1' : '217.168.17.5',
  response: i % 7 === 3 ? 404 : 304,
  request: 'GET /downloads/product_1 HTTP/1.1',
}));

const service = useLocalService();

beforeAll(async () => {
  expect(await service.axiom.ingest('http-logs', EVENTS)).toMatchObject({ ingested: EVENTS.length, failed: 0 });
  expect(await service.axiom.ingest('access', ACCESS_EVENTS)).toMatchObject({ ingested: ACCESS_EVENTS.length, failed: 0 });
});

async function post(path: string, body: unknown, init: { contentType?: string; token?: string | null } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'Content-Type': init.contentType ?? 'application/json' };
  if (init.token !== null) headers.Authorization = `Bearer ${init.token ?? service.token}`;
  const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: await response.json() };
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z$/;

describe('@axiomhq/js 2.0.0 queryLegacy()', () => {
  it('reads a time series and its totals by group', async () => {
    const result = await service.axiom.queryLegacy(
      'http-logs',
      {
        ...WINDOW,
        resolution: '6h',
        aggregations: [{ op: AggregationOp.Count, field: '*' }, { op: AggregationOp.Avg, field: 'req_duration_ms' }],
        groupBy: ['method'],
        filter: { op: FilterOp.NotEqual, field: 'status', value: '200' },
      },
      { noCache: true, streamingDuration: '1s' },
    );
    const rows = ROWS.filter((r) => r.status !== '200');
    const counts = new Map([...groupBy(rows, (r) => String(r.method))].map(([method, group]) => [method, group.length]));
    expect(new Map(result.buckets.totals?.map((group) => [group.group.method, group.aggregations?.[0]?.value]))).toEqual(counts);
    expect(result.buckets.totals?.[0]?.aggregations?.map((aggregation) => aggregation.op)).toEqual(['count', 'avg']);
    expect(result.buckets.series?.map((interval) => interval.startTime)).toEqual(['2024-01-01T00:00:00Z', '2024-01-01T06:00:00Z', '2024-01-01T12:00:00Z', '2024-01-01T18:00:00Z']);
    const seriesTotal = (result.buckets.series ?? []).flatMap((interval) => interval.groups ?? []).reduce((sum, group) => sum + (group.aggregations?.[0]?.value as number), 0);
    expect(seriesTotal).toBe(rows.length);
    expect(result.status).toMatchObject({ rowsExamined: ROWS.length, rowsMatched: rows.length, numGroups: counts.size, isPartial: false });
  });

  it('pages through matches with limit, includeCursor and the cursor it returns', async () => {
    const query = { ...WINDOW, resolution: 'auto', limit: 40, includeCursor: true, filter: { op: FilterOp.StartsWith, field: 'uri', value: '/auth' } };
    const seen: string[] = [];
    let result = await service.axiom.queryLegacy('http-logs', query);
    seen.push(...(result.matches ?? []).map((match) => match.data.trace_id as string));
    while (result.status.continuationToken) {
      result = await service.axiom.queryLegacy('http-logs', { ...query, cursor: result.status.continuationToken });
      seen.push(...(result.matches ?? []).map((match) => match.data.trace_id as string));
    }
    expect(seen).toEqual(newestFirst(ROWS.filter((r) => String(r.uri).startsWith('/auth'))).map((r) => r.trace_id));
    expect(seen.length).toBeGreaterThan(80);
  });

  it('surfaces a refusal as an error naming what is wrong', async () => {
    const refused = service.axiom.queryLegacy('http-logs', { ...WINDOW, resolution: 'auto', aggregations: [{ op: AggregationOp.Count, field: '*' }, { op: 'avgg' as AggregationOp, field: 'x' }] });
    await expect(refused).rejects.toThrow('Invalid aggregations[1].op "avgg"');
  });
});

describe('the Go client\'s request style', () => {
  const goRequest = JSON.parse(readFileSync(new URL('../fixtures/engine/structured-go-request.json', import.meta.url), 'utf8')) as Record<string, unknown>;

  it('answers a request with every key, zero values meaning not given, and query parameters it has no use for', async () => {
    const { status, body } = await post('/v1/datasets/access/query?streaming-duration=1s&nocache=true&saveAsKind=analytics', goRequest);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['buckets', 'fieldsMeta', 'matches', 'status']);
    expect(body.status.rowsExamined).toBe(14);
    expect(body.status.rowsMatched).toBe(14);
    expect(body.buckets.totals).toEqual([
      { id: 0, group: { success: true, remote_ip: '217.168.17.5' }, aggregations: [{ op: 'event_count', value: 6 }] },
      { id: 1, group: { success: true, remote_ip: '93.180.71.1' }, aggregations: [{ op: 'event_count', value: 6 }] },
      { id: 2, group: { success: false, remote_ip: '217.168.17.5' }, aggregations: [{ op: 'event_count', value: 1 }] },
      { id: 3, group: { success: false, remote_ip: '93.180.71.1' }, aggregations: [{ op: 'event_count', value: 1 }] },
    ]);
    expect(body.buckets.series).toHaveLength(60);
  });

  it('answers in the types the Go client decodes: integer counters, RFC 3339 times, known message codes', async () => {
    const { body } = await post('/v1/datasets/access/query', { ...goRequest, aggregations: [], groupBy: [], order: [], limit: 3, includeCursor: true });
    const { status } = body;
    for (const name of ['elapsedTime', 'blocksExamined', 'rowsExamined', 'rowsMatched', 'numGroups', 'cacheStatus']) expect(Number.isInteger(status[name])).toBe(true);
    for (const name of ['isPartial', 'isEstimate']) expect(typeof status[name]).toBe('boolean');
    for (const name of ['minBlockTime', 'maxBlockTime']) expect(status[name]).toMatch(RFC3339);
    for (const name of ['continuationToken', 'minCursor', 'maxCursor']) expect(typeof status[name]).toBe('string');
    expect(status.messages).toEqual([]);
    expect(body.matches).toHaveLength(3);
    for (const match of body.matches) {
      expect(match._time).toMatch(RFC3339);
      expect(match._sysTime).toMatch(RFC3339);
      expect(match._rowId).toMatch(/^\d+-\d+$/);
      expect(Object.keys(match.data).sort()).toEqual(['ip']);
    }
    expect(status.continuationToken).toBe(body.matches[2]._rowId);
    expect(status.maxCursor).toBe(body.matches[0]._rowId);
    expect(status.minCursor).toBe(body.matches[2]._rowId);
  });
});

describe('refusals', () => {
  it.each([
    [{ aggregations: [{ op: 'count' }, { op: 'median', field: 'x' }] }, 'aggregations[1].op'],
    [{ aggregations: [{ op: 'avg' }] }, 'aggregations[0].field'],
    [{ filter: { op: 'and', children: [{ op: '==', field: 'status', value: { a: 1 } }] } }, 'filter.children[0].value'],
    [{ filter: { op: 'or', children: [{ op: 'exists', field: 'status' }, { op: 'exists', field: 'statuss' }] } }, 'filter.children[1].field'],
    [{ groupBy: 'method', aggregations: [{ op: 'count' }] }, 'groupBy'],
    [{ limit: 100_000 }, 'limit'],
    [{ virtualFields: [{ alias: 'v', expr: 'strlen(' }] }, 'virtualFields[0].expr'],
    [{ aggregations: [{ op: 'sum', field: 'method' }] }, 'aggregations[0]'],
  ])('refuses %j with a 400 naming %s', async (query, path) => {
    const { status, body } = await post('/v1/datasets/http-logs/query', { ...WINDOW, ...query });
    expect(status).toBe(400);
    expect(body.code).toBe(400);
    expect(body.message).toContain(path);
    expect(body.detail.path).toBe(path);
  });

  it('refuses an unknown dataset with 404, a body that is not JSON with 400, another method with 405, another content type with 415', async () => {
    expect((await post('/v1/datasets/no-such/query', WINDOW)).status).toBe(404);
    expect((await post('/v1/datasets/http-logs/query', '{"aggregations": [')).status).toBe(400);
    expect((await post('/v1/datasets/http-logs/query', 'x=1', { contentType: 'application/x-www-form-urlencoded' })).status).toBe(415);
    const get = await fetch(`${service.url}/v1/datasets/http-logs/query`, { headers: { Authorization: `Bearer ${service.token}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('refuses a request without a token, and a save kind other than analytics or stream', async () => {
    expect((await post('/v1/datasets/http-logs/query', WINDOW, { token: null })).status).toBe(401);
    const apl = await post('/v1/datasets/http-logs/query?saveAsKind=apl', WINDOW);
    expect(apl.status).toBe(400);
    expect(apl.body.message).toContain('saveAsKind');
  });

  it('answers an empty result for a dataset that has no events yet', async () => {
    expect((await post('/v2/datasets', { name: 'empty-one' })).status).toBe(200);
    const { status, body } = await post('/v1/datasets/empty-one/query', { ...WINDOW, aggregations: [{ op: 'count' }], resolution: '12h' });
    expect(status).toBe(200);
    expect(body.buckets.totals).toEqual([{ id: 0, group: {}, aggregations: [{ op: 'count', value: 0 }] }]);
    expect(body.buckets.series.map((interval: { groups: unknown[] }) => interval.groups)).toEqual([[], []]);
  });
});
