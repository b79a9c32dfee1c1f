import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpLogs } from '../../bench/lib/http-logs.mjs';
import { aplQueries, aplTokenSoup } from '../engine/helpers/apl-arbitraries.js';
import { compareAsc, groupBy, ingestedRows, isoOfNs, newestFirst } from '../engine/helpers/reference.js';
import { useLocalService } from '../helpers/local-service.js';

/**
 * The APL endpoints over HTTP on the real local service, read by the official JavaScript
 * client unchanged: data goes in with `ingest`, comes back with `query` and `aplQuery`.
 */

const EVENTS = [...httpLogs({ seed: 11, count: 2000 })] as unknown as Record<string, unknown>[];
const ROWS = ingestedRows(EVENTS);
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T01:00:00Z' };

const service = useLocalService();

beforeAll(async () => {
  const status = await service.axiom.ingest('http-logs', EVENTS);
  expect(status).toMatchObject({ ingested: EVENTS.length, failed: 0 });
});

async function post(path: string, body: unknown, init: { contentType?: string; token?: string | null } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'Content-Type': init.contentType ?? 'application/json' };
  if (init.token !== null) headers.Authorization = `Bearer ${init.token ?? service.token}`;
  const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('@axiomhq/js 2.0.0 queries', () => {
  it('reads a summary with query(), and its rows with tables[0].events()', async () => {
    const result = await service.axiom.query("['http-logs'] | summarize count(), avg(req_duration_ms) by method", WINDOW);
    const events = [...result.tables[0]!.events()];
    const expected = [...groupBy(ROWS, (r) => r.method as string)]
      .map(([method, group]) => ({ method, count_: group.length }))
      .sort((a, b) => b.count_ - a.count_ || compareAsc(a.method, b.method));
    expect(events.map((event) => ({ method: event.method, count_: event.count_ }))).toEqual(expected);
    expect(result.format).toBe('tabular');
    expect(result.datasetNames).toEqual(['http-logs']);
    expect(result.status).toMatchObject({ rowsExamined: ROWS.length, rowsMatched: ROWS.length, isPartial: false });
    expect(result.tables[0]?.fields[1]).toEqual({ name: 'count_', type: 'integer', agg: { name: 'count', fields: [], args: [] } });
  });

  it('reads raw rows with aplQuery(), newest first', async () => {
    const result = await service.axiom.aplQuery("['http-logs'] | where status == '404' | project _time, uri | take 5", WINDOW);
    const events = [...result.tables[0]!.events()];
    const expected = newestFirst(ROWS.filter((r) => r.status === '404'))
      .slice(0, 5)
      .map((r) => ({ _time: isoOfNs(r._timeNs), uri: r.uri }));
    expect(events).toEqual(expected);
  });

  it('reads a time series and its _totals table', async () => {
    const result = await service.axiom.query("['http-logs'] | summarize count() by bin(_time, 6h)", WINDOW);
    expect(result.tables.map((table) => table.name)).toEqual(['0', '_totals']);
    expect([...result.tables[1]!.events()]).toEqual([{ count_: ROWS.length }]);
    expect([...result.tables[0]!.events()].map((event) => event._time)).toEqual([
      '2024-01-01T00:00:00Z',
      '2024-01-01T06:00:00Z',
      '2024-01-01T12:00:00Z',
      '2024-01-01T18:00:00Z',
    ]);
  });

  it('reads the legacy format', async () => {
    const result = (await service.axiom.query("['http-logs'] | where method == 'DELETE' | take 3", { ...WINDOW, format: 'legacy' })) as unknown as {
      matches: { _time: string; _rowId: string; data: Record<string, unknown> }[];
    };
    expect(result.matches).toHaveLength(3);
    expect(result.matches[0]?.data.method).toBe('DELETE');
    expect(result.matches[0]?._rowId).toMatch(/^\d+-\d+$/);
  });

  it('takes relative times', async () => {
    const result = await service.axiom.query("['http-logs'] | count", { startTime: 'now-1h', endTime: 'now' });
    expect([...result.tables[0]!.events()]).toEqual([{ count: 0 }]);
  });

  it('surfaces a query error with its message', async () => {
    await expect(service.axiom.query("['http-logs'] | where statsu == 1", WINDOW)).rejects.toThrow("line 1, column 23: unknown field 'statsu'; did you mean 'status'?");
  });
});

describe('POST /v1/datasets/_apl and /v1/query/_apl', () => {
  it('answers both paths, ignoring the parameters that have no local meaning', async () => {
    const body = { apl: "['http-logs'] | count", ...WINDOW, cursor: 'c', includeCursor: true, variables: { a: 1 }, queryOptions: { quickRange: '1h' } };
    for (const path of ['/v1/datasets/_apl?format=tabular&nocache=true&streaming-duration=5s&cursor=x', '/v1/query/_apl']) {
      const reply = await post(path, body);
      expect(reply.status).toBe(200);
      expect(reply.body.tables).toEqual([expect.objectContaining({ name: '0', columns: [[ROWS.length]] })]);
    }
  });

  it("carries the checker's warnings in status.messages, in both formats", async () => {
    const warning = {
      priority: 'warn',
      count: 1,
      code: 'apl_whereclausealwaysevaluatestoTRUEwhichwillincludealldata_1',
      msg: 'where clause always evaluates to TRUE, which will include all data',
    };
    for (const format of ['tabular', 'legacy']) {
      const reply = await post(`/v1/datasets/_apl?format=${format}`, { apl: "['http-logs'] | where 1 == 1 | search \"*GET*\" | count", ...WINDOW });
      expect(reply.status).toBe(200);
      expect((reply.body.status as { messages: unknown[] }).messages).toEqual([warning]);
    }
  });

  it('answers a query error with 400 and the positioned detail', async () => {
    const reply = await post('/v1/datasets/_apl', { apl: "['http-logs']\n| summarize cnt() by method" });
    expect(reply).toEqual({
      status: 400,
      body: {
        code: 400,
        message: "line 2, column 13: unknown function 'cnt'; did you mean 'count'?",
        detail: { errorType: 1, compileErrorCode: 3, line: 2, column: 13, message: "unknown function 'cnt'; did you mean 'count'?" },
      },
    });
  });

  it('answers an unknown dataset with 404 naming it', async () => {
    const reply = await post('/v1/datasets/_apl', { apl: "['no-such-logs'] | count" });
    expect(reply).toEqual({ status: 404, body: { code: 404, message: 'Dataset "no-such-logs" not found.' } });
  });

  it.each([
    ['a format other than tabular or legacy', '/v1/datasets/_apl?format=csv', { apl: "['http-logs'] | count" }, 'Invalid format "csv". Expected tabular or legacy.'],
    ['no apl', '/v1/datasets/_apl', { query: 'x' }, 'Invalid apl (missing). Expected the query text as a string.'],
    ['an apl that is not a string', '/v1/datasets/_apl', { apl: 5 }, 'Invalid apl 5. Expected the query text as a string.'],
    ['an empty apl', '/v1/datasets/_apl', { apl: '  ' }, expect.stringMatching(/^The query is empty/)],
    ['a bad startTime', '/v1/datasets/_apl', { apl: "['http-logs'] | count", startTime: 'yesterday' }, expect.stringMatching(/^Invalid startTime "yesterday"/)],
    ['an end before the start', '/v1/datasets/_apl', { apl: "['http-logs'] | count", startTime: 'now', endTime: 'now-1h' }, expect.stringMatching(/^The time range is empty/)],
    ['a body that is not an object', '/v1/datasets/_apl', '[1]', expect.stringMatching(/^The request body must be a JSON object/)],
  ])('answers %s with 400', async (_what, path, body, message) => {
    const reply = await post(path, body);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toEqual(message);
  });

  it('answers other content types with 415, other methods with 405 and no token with 401', async () => {
    expect((await post('/v1/datasets/_apl', "['http-logs'] | count", { contentType: 'text/plain' })).status).toBe(415);
    expect((await post('/v1/datasets/_apl', { apl: "['http-logs'] | count" }, { token: null })).status).toBe(401);
    const get = await fetch(`${service.url}/v1/query/_apl`, { headers: { Authorization: `Bearer ${service.token}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('stops the query of a client that goes away, and keeps serving', async () => {
    const controller = new AbortController();
    const heavy = JSON.stringify({ apl: `['http-logs'] | where strcat(message, user_agent) matches regex "(.{0,80}[0-9]{2,}.{0,80}){3,}Z" | count` });
    const pending = fetch(`${service.url}/v1/datasets/_apl`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${service.token}`, 'Content-Type': 'application/json' },
      body: heavy,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toThrow();
    expect((await post('/v1/datasets/_apl', { apl: "['http-logs'] | count", ...WINDOW })).body.tables).toEqual([expect.objectContaining({ columns: [[ROWS.length]] })]);
  });

  it('records query durations in the metrics', async () => {
    await post('/v1/datasets/_apl', { apl: "['http-logs'] | count" });
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/timemark_service_query_duration_seconds_count\{kind="apl"\} [1-9]/);
  });
});

/**
 * Built at import: building `unit: 'binary'` takes fast-check seconds of synchronous work, which
 * inside the test stalled the in-process service's event loop past its keep-alive timeout, so
 * that the first request met a socket the server had closed (ECONNRESET).
 */
const BINARY_TEXT = fc.string({ unit: 'binary', maxLength: 120 });

describe('the endpoint under fuzzing', () => {
  it('never answers a generated query with a 5xx, and stays healthy', { timeout: 180_000 }, async () => {
    const fields = ['_time', 'method', 'status', 'uri', 'req_duration_ms', 'resp_body_size_bytes', 'geo.city', 'tags', 'is_tls', 'user_id'];
    const apl = fc.oneof(
      aplQueries(fields).map((text) => text.replace(/^logs/, "['http-logs']")),
      aplTokenSoup(),
      BINARY_TEXT,
    );
    const body = fc.oneof(
      { weight: 6, arbitrary: fc.record({ apl, startTime: fc.constantFrom(undefined, 'now-1d', '2024-01-01T00:00:00Z', 'nonsense') }) },
      { weight: 1, arbitrary: fc.jsonValue() },
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('', '?format=legacy', '?format=tabular'), async (payload, query) => {
        const reply = await post(`/v1/datasets/_apl${query}`, payload);
        expect(reply.status, JSON.stringify(payload)).toBeLessThan(500);
        if (reply.status >= 400) expect(reply.body.code).toBe(reply.status);
      }),
      { numRuns: 300 },
    );
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect((await post('/v1/datasets/_apl', { apl: "['http-logs'] | count", ...WINDOW })).body.tables).toEqual([expect.objectContaining({ columns: [[ROWS.length]] })]);
  });
});
