import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TEST_ORG, TEST_PERSONAL_TOKEN, useLocalService } from '../helpers/local-service.js';
import { any, bool, int, list, map, num, obj, oneOf, opt, shapeProblems, str, time, type Shape } from '../helpers/wire-shapes.js';

/**
 * axiom-py (its `Client` and the datasets, tokens, users and query calls) on the wire: each
 * request is sent as that client builds it (session headers, paths, query parameters, bodies
 * from `asdict` with None kept, datetimes as `isoformat("T") + "Z"`), and each reply is checked
 * against the dataclass dacite reads it into. axiom-py itself cannot be installed here (PyPI is
 * out of reach), so these are the client's shapes, read from its source.
 */

const service = useLocalService();
const ACTION = oneOf('create', 'read', 'update', 'delete');

/** axiom-py's dataclasses, as dacite reads them. */
const Dataset = obj({ id: str, name: str, description: str, who: opt(str), created: opt(str) });
const IngestStatus = obj({ ingested: int, failed: int, failures: list(obj({ timestamp: time, error: str })), processedBytes: int, blocksCreated: int, walLength: int });
const Message = obj({ priority: oneOf('trace', 'debug', 'info', 'warn', 'error', 'fatal'), count: int, code: str, msg: str });
const QueryStatus = obj({
  elapsedTime: int, blocksExamined: int, rowsExamined: int, rowsMatched: int, numGroups: int, isPartial: bool,
  continuationToken: opt(str), isEstimate: opt(bool), minBlockTime: opt(str), maxBlockTime: opt(str), messages: list(Message), maxCursor: opt(str), minCursor: opt(str),
});
const Entry = obj({ _time: str, _sysTime: str, _rowId: str, data: map(any) });
const EntryGroup = obj({ id: int, group: map(any), aggregations: list(obj({ value: any, op: opt(str) })) });
const Timeseries = obj({ series: list(obj({ startTime: time, endTime: time, groups: opt(list(EntryGroup)) })), totals: opt(list(EntryGroup)) });
const QueryLegacy = obj({
  startTime: time, endTime: time, resolution: opt(str), aggregations: opt(list(obj({ op: str, field: opt(str), alias: opt(str), argument: any }))),
  groupBy: opt(list(str)), order: opt(list(obj({ field: str, desc: bool }))), limit: opt(int), virtualFields: opt(list(obj({ alias: str, expr: str }))),
  project: opt(list(obj({ field: str, alias: str }))), cursor: opt(str), includeCursor: opt(bool), continuationToken: opt(str),
});
const Table = obj({
  buckets: opt(obj({ field: str, size: num })), columns: opt(list(list(any))), groups: list(obj({ name: str })), name: str,
  fields: list(obj({ name: str, type: str, agg: opt(obj({ args: opt(list(any)), fields: opt(list(str)), name: str })) })),
  order: list(obj({ desc: bool, field: str })), range: opt(obj({ start: time, end: time, field: str })), sources: list(obj({ name: str })),
});
const QueryResult = obj({ request: opt(QueryLegacy), status: QueryStatus, matches: opt(list(Entry)), buckets: opt(Timeseries), tables: opt(list(Table)) });
const QueryLegacyResult = obj({ status: QueryStatus, matches: list(Entry), buckets: Timeseries });
const Capabilities = (names: readonly string[]): Shape => obj(Object.fromEntries(names.map((name) => [name, opt(list(ACTION))])));
const DATASET_CAPABILITIES = ['ingest', 'query', 'starredQueries', 'virtualFields', 'trim', 'vacuum', 'data', 'share'];
const ORG_CAPABILITIES = ['annotations', 'apiTokens', 'auditLog', 'billing', 'dashboards', 'datasets', 'endpoints', 'flows', 'integrations', 'monitors', 'notifiers', 'rbac', 'sharedAccessKeys', 'users', 'views'];
const ApiToken = obj({
  id: str, name: str, description: opt(str), expiresAt: opt(time), datasetCapabilities: opt(map(Capabilities(DATASET_CAPABILITIES))),
  orgCapabilities: opt(Capabilities(ORG_CAPABILITIES)), samlAuthenticated: opt(bool),
});
const CreateTokenResponse = obj({ ...(ApiToken as { members: Record<string, Shape> }).members, token: str });
const User = obj({ id: str, name: str, email: str, role: obj({ id: str, name: str }) });
const AxiomErrorResponse = obj({ message: str, error: opt(str) });

/** A request as the client's requests session sends it. */
async function py(method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string>; token?: string } = {}) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${options.token ?? service.token}`,
      'Content-Type': 'application/json',
      'User-Agent': 'axiom-py/0.9.0',
      'Accept-Encoding': 'gzip, deflate',
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text === '' ? undefined : (JSON.parse(text) as any) };
}

function decodes(value: unknown, shape: Shape): void {
  expect(shapeProblems(value, shape)).toEqual([]);
}

/** `datetime.isoformat("T") + "Z"` of a naive UTC datetime, as handle_json_serialization writes it. */
const pyTime = (iso: string): string => `${iso.replace('Z', '').replace(/\.000$/, '')}Z`;

describe('axiom-py on the wire', () => {
  it('manages a dataset at /v1/datasets, with its region', async () => {
    const created = await py('POST', '/v1/datasets', { body: JSON.stringify({ name: 'py-logs', description: 'from python', region: 'eu-central-1' }) });
    expect(created.status).toBe(200);
    decodes(created.json, Dataset);
    expect(created.json).toMatchObject({ id: 'py-logs', name: 'py-logs', description: 'from python', region: 'eu-central-1' });
    expect((await py('GET', '/v1/datasets/py-logs')).json).toMatchObject({ region: 'eu-central-1' });
    const listed = await py('GET', '/v1/datasets');
    decodes(listed.json, list(Dataset));
    const updated = await py('PUT', '/v1/datasets/py-logs', { body: JSON.stringify({ description: 'changed' }) });
    decodes(updated.json, Dataset);
    expect(updated.json).toMatchObject({ description: 'changed', region: 'eu-central-1', updatedAt: expect.any(String) });
    const missing = await py('GET', '/v1/datasets/no-such');
    expect(missing.status).toBe(404);
    decodes(missing.json, AxiomErrorResponse);
  });

  it('ingests gzipped NDJSON, queries it in both APL formats and with query_legacy, and trims and deletes the dataset', async () => {
    await py('POST', '/v1/datasets', { body: JSON.stringify({ name: 'py-events', description: '' }) });
    const now = Date.now();
    const events = [0, 1, 2].map((index) => JSON.stringify({ _time: new Date(now - 60_000 - index * 1000).toISOString(), status: 200 + index, path: '/cart' }));
    const ingested = await py('POST', '/v1/datasets/py-events/ingest', { body: gzipSync(events.join('\n')), headers: { 'Content-Type': 'application/x-ndjson', 'Content-Encoding': 'gzip' } });
    expect(ingested.status).toBe(200);
    decodes(ingested.json, IngestStatus);
    expect(ingested.json.ingested).toBe(3);
    // client.ingest(..., ContentEncoding.IDENTITY) names an uncompressed body `1`.
    const plain = await py('POST', '/v1/datasets/py-events/ingest?timestamp-field=_time', { body: events[0], headers: { 'Content-Type': 'application/x-ndjson', 'Content-Encoding': '1' } });
    expect(plain.json).toMatchObject({ ingested: 1, failed: 0 });

    const window = { startTime: pyTime(new Date(now - 3_600_000).toISOString()), endTime: pyTime(new Date(now).toISOString()) };
    // AplOptions: the legacy format by default, and a limit that requests sends as `request=limit`.
    const legacy = await py('POST', '/v1/datasets/_apl?format=legacy&request=limit', { body: JSON.stringify({ apl: "['py-events'] | where status > 200", ...window }) });
    expect(legacy.status).toBe(200);
    decodes(legacy.json, QueryResult);
    expect(legacy.json.matches).toHaveLength(2);
    expect(legacy.json.status.messages).toEqual([]);
    const tabular = await py('POST', '/v1/datasets/_apl?format=tabular', { body: JSON.stringify({ apl: "['py-events'] | summarize count() by path", ...window, includeCursor: true }) });
    decodes(tabular.json, QueryResult);
    expect(tabular.json.status.messages).toEqual([]);

    const query = {
      startTime: window.startTime, endTime: window.endTime, resolution: 'auto', aggregations: [{ op: 'count', field: '', alias: '', argument: '' }],
      groupBy: [], filter: null, order: [], limit: 10, virtualFields: [], project: [], cursor: null, includeCursor: false, continuationToken: null,
    };
    const saved = await py('POST', '/v1/datasets/py-events/query?streaming-duration=0s&saveAsKind=analytics&nocache=False', { body: JSON.stringify(query) });
    expect(saved.status).toBe(200);
    decodes(saved.json, QueryLegacyResult);
    const id = saved.headers.get('X-Axiom-History-Query-Id');
    expect(id).toMatch(/^[a-z2-7]{18}$/);
    expect((await py('GET', `/v1/datasets/_history/${id}`)).json).toEqual({ id, kind: 'analytics', dataset: 'py-events', who: 'local', query, created: expect.any(String) });

    expect((await py('POST', '/v1/datasets/py-events/trim', { body: JSON.stringify({ maxDuration: '30s' }) })).status).toBe(200);
    expect((await py('POST', '/v1/datasets/_apl?format=legacy', { body: JSON.stringify({ apl: "['py-events'] | count", ...window }) })).json.matches).toEqual([]);
    const deleted = await py('DELETE', '/v1/datasets/py-events');
    expect(deleted.status).toBe(204);
    expect((await py('GET', '/v1/datasets/py-events')).status).toBe(404);
  });

  it('creates, lists, gets, regenerates and deletes tokens', async () => {
    // asdict(CreateTokenRequest(...)): every member, None as null, nested capability dataclasses in full.
    const none = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, null]));
    const request = {
      name: 'py token',
      description: null,
      expiresAt: null,
      datasetCapabilities: { 'py-logs': { ...none(DATASET_CAPABILITIES), ingest: ['create'], query: ['read'] } },
      orgCapabilities: { ...none(ORG_CAPABILITIES), annotations: ['create', 'read'] },
    };
    const created = await py('POST', '/v2/tokens', { body: JSON.stringify(request) });
    expect(created.status).toBe(200);
    decodes(created.json, CreateTokenResponse);
    const listed = await py('GET', '/v2/tokens');
    decodes(listed.json, list(ApiToken));
    decodes((await py('GET', `/v2/tokens/${created.json.id}`)).json, ApiToken);
    const regenerated = await py('POST', `/v2/tokens/${created.json.id}/regenerate`, {
      body: JSON.stringify({ existingTokenExpiresAt: pyTime(new Date().toISOString()), newTokenExpiresAt: '2099-01-01T00:00:00.123456Z' }),
    });
    expect(regenerated.status).toBe(200);
    decodes(regenerated.json, ApiToken);
    expect(regenerated.json.expiresAt).toBe('2099-01-01T00:00:00.123Z');
    expect((await py('DELETE', `/v2/tokens/${regenerated.json.id}`)).status).toBe(204);
  });

  it('reads the current user with a personal token and the org id header', async () => {
    const user = await py('GET', '/v2/user', { token: TEST_PERSONAL_TOKEN, headers: { 'X-Axiom-Org-Id': TEST_ORG } });
    expect(user.status).toBe(200);
    decodes(user.json, User);
  });
});
