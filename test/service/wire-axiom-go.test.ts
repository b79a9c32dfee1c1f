import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { mintToken } from '../helpers/api-tokens.js';
import { TEST_ORG, TEST_PERSONAL_TOKEN, useLocalService } from '../helpers/local-service.js';
import { bool, goStruct, int, list, map, oneOf, shapeProblems, str, time, type Shape } from '../helpers/wire-shapes.js';

/**
 * axiom-go (its Datasets, Tokens, Users, Organizations, VirtualFields services, QueryLegacy and
 * the `otel` package's TraceExporter) on the wire: requests as `Client.NewRequest` builds them
 * (`Accept: application/json`, JSON bodies with every member, zero times as
 * 0001-01-01T00:00:00Z, durations as Go writes them), replies checked against the structs
 * encoding/json decodes them into, with the client's enums (Action, UserRole, PaymentStatus,
 * message codes) limited to the values it knows. Go modules cannot be fetched here, so these
 * are the client's shapes, read from its source.
 */

const service = useLocalService();
const ACTION = oneOf('', 'create', 'read', 'update', 'delete');

const Dataset = goStruct({
  id: str, name: str, kind: str, description: str, who: str, created: time, updatedAt: time, canWrite: bool, useRetentionPeriod: bool,
  retentionDays: int, mapFields: list(str), edgeDeployment: str, edgeDeploymentUrl: str,
});
const DatasetCapabilities = goStruct(Object.fromEntries(['ingest', 'query', 'starredQueries', 'virtualFields', 'trim', 'vacuum', 'data', 'share'].map((name) => [name, list(ACTION)])));
const OrgCapabilities = goStruct(
  Object.fromEntries(
    ['annotations', 'apiTokens', 'auditLog', 'billing', 'dashboards', 'datasets', 'endpoints', 'flows', 'integrations', 'monitors', 'notifiers', 'rbac', 'sharedAccessKeys', 'users', 'views'].map((name) => [name, list(ACTION)]),
  ),
);
const APIToken = goStruct({ id: str, name: str, description: str, expiresAt: time, datasetCapabilities: map(DatasetCapabilities), orgCapabilities: OrgCapabilities, samlAuthenticated: bool });
const CreateTokenResponse = goStruct({ ...(APIToken as { members: Record<string, Shape> }).members, token: str });
const User = goStruct({ id: str, name: str, email: str, role: goStruct({ id: str, name: str }) });
const License = goStruct({
  id: str, issuer: str, issuedTo: str, issuedAt: time, validFrom: time, expiresAt: time, tier: str, monthlyIngestGb: int, monthlyIngestGbHours: int,
  storageAllowanceGb: int, maxUsers: int, maxFields: int, maxDatasets: int, maxMonitors: int, maxEndpoints: int, maxQueryWindowSeconds: int,
  maxAuditWindowSeconds: int, withRBAC: bool, withAuths: list(str), error: str,
});
const Organization = goStruct({
  id: str, name: str, slug: str, plan: str, planCreated: time, lastUsageSync: time, role: str, primaryEmail: str, license: License,
  paymentStatus: oneOf('', 'success', 'na', 'failed', 'blocked'), metaCreated: time, metaModified: time, defaultEdgeDeployment: str,
});
const VirtualField = goStruct({ id: str, dataset: str, name: str, expression: str, description: str, type: str, unit: str });
const QueryStatus = goStruct({
  minCursor: str, maxCursor: str, elapsedTime: int, rowsExamined: int, rowsMatched: int,
  messages: list(goStruct({ priority: oneOf('', 'trace', 'debug', 'info', 'warn', 'error', 'fatal'), count: int, code: str, msg: str })),
});

/** A request as axiom-go's Client.NewRequest builds it. */
async function go(method: string, path: string, body?: unknown, options: { token?: string; orgId?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${options.token ?? service.token}`,
      Accept: 'application/json',
      'User-Agent': 'axiom-go/0.27.0',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(options.orgId ? { 'X-Axiom-Org-Id': options.orgId } : {}),
      ...options.headers,
    },
    ...(body === undefined ? {} : { body: `${JSON.stringify(body)}\n` }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, contentType: response.headers.get('content-type'), json: text === '' ? undefined : (JSON.parse(text) as any) };
}

function decodes(value: unknown, shape: Shape): void {
  expect(shapeProblems(value, shape)).toEqual([]);
}

describe('axiom-go on the wire', () => {
  it('creates, updates, trims and deletes a dataset at /v2/datasets, as Datasets does', async () => {
    const created = await go('POST', '/v2/datasets', { name: 'go-logs', kind: 'axiom:events:v1', description: 'from go', useRetentionPeriod: false, retentionDays: 0 });
    expect(created.status).toBe(200);
    expect(created.contentType).toMatch(/^application\/json/);
    decodes(created.json, Dataset);
    const updated = await go('PUT', '/v2/datasets/go-logs', { description: 'changed', useRetentionPeriod: true, retentionDays: 30 });
    decodes(updated.json, Dataset);
    expect(updated.json).toMatchObject({ description: 'changed', useRetentionPeriod: true, retentionDays: 30, updatedAt: expect.any(String) });
    decodes((await go('GET', '/v2/datasets')).json, list(Dataset));
    expect((await go('POST', '/v2/datasets/go-logs/trim', { maxDuration: '1h0m0s' })).status).toBe(200);
    expect((await go('DELETE', '/v2/datasets/go-logs')).status).toBe(204);
  });

  it('manages tokens as TokensService does, the reply of Get equal to that of Create', async () => {
    const created = await go('POST', '/v2/tokens', {
      name: 'Test token',
      description: '',
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      datasetCapabilities: { '*': { ingest: ['create'], query: null, starredQueries: null, virtualFields: null, trim: null, vacuum: null, data: null, share: null } },
      orgCapabilities: { users: ['create', 'read', 'update', 'delete'] },
    });
    expect(created.status).toBe(200);
    decodes(created.json, CreateTokenResponse);
    const { token, ...apiToken } = created.json as { token: string; id: string };
    expect((await go('GET', `/v2/tokens/${apiToken.id}`)).json).toEqual(apiToken);
    expect((await go('GET', '/v2/tokens')).json).toContainEqual(apiToken);
    // Regenerate with only the two expiries (NewToken omitted, omitempty): the old token is no longer listed as it was.
    const regenerated = await go('POST', `/v2/tokens/${apiToken.id}/regenerate`, { existingTokenExpiresAt: new Date().toISOString(), newTokenExpiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    decodes(regenerated.json, CreateTokenResponse);
    expect(regenerated.json.id).not.toBe(apiToken.id);
    const listed = (await go('GET', '/v2/tokens')).json as unknown[];
    expect(listed).not.toContainEqual(apiToken);
    expect(listed).toContainEqual((({ token: _, ...rest }) => rest)(regenerated.json));
    expect((await go('DELETE', `/v2/tokens/${regenerated.json.id}`)).status).toBe(204);
    expect(token).toMatch(/^xaat-/);
  });

  it('validates a personal token as ValidateCredentials does, and lists users and orgs', async () => {
    // Users.Current and Organizations.List drop X-Axiom-Org-Id.
    const current = await go('GET', '/v2/user', undefined, { token: TEST_PERSONAL_TOKEN });
    expect(current.status).toBe(200);
    decodes(current.json, User);
    const orgs = await go('GET', '/v2/orgs', undefined, { token: TEST_PERSONAL_TOKEN });
    expect(orgs.status).toBe(200);
    decodes(orgs.json, list(Organization));
    expect(orgs.json).toEqual([expect.objectContaining({ id: TEST_ORG })]);
    decodes((await go('GET', `/v2/orgs/${TEST_ORG}`, undefined, { token: TEST_PERSONAL_TOKEN, orgId: TEST_ORG })).json, Organization);
    decodes((await go('GET', '/v2/users', undefined, { token: TEST_PERSONAL_TOKEN, orgId: TEST_ORG })).json, list(User));
    decodes((await go('GET', '/v2/users/local', undefined, { token: TEST_PERSONAL_TOKEN, orgId: TEST_ORG })).json, User);
    expect((await go('GET', '/v2/annotations', undefined, { token: TEST_PERSONAL_TOKEN })).status).toBe(401);
    expect((await go('POST', '/v2/users', { name: 'x', email: 'x@example.com', role: 'user' })).status).toBe(403);
  });

  it('manages virtual fields as VirtualFieldsService does, and queries see them as fields in APL and the structured query', async () => {
    const now = Date.now();
    await go('POST', '/v1/datasets/go-spans/ingest', [
      { _time: new Date(now - 60_000).toISOString(), duration_ms: 1500, route: '/cart' },
      { _time: new Date(now - 50_000).toISOString(), duration_ms: 250, route: '/pay' },
    ]);
    const created = await go('POST', '/v2/vfields', { dataset: 'go-spans', name: 'seconds', expression: 'duration_ms / 1000.0' });
    expect(created.status).toBe(200);
    decodes(created.json, VirtualField);
    expect(created.json).toEqual({ id: expect.any(String), dataset: 'go-spans', name: 'seconds', expression: 'duration_ms / 1000.0' });
    expect((await go('GET', `/v2/vfields/${created.json.id}`)).json).toEqual(created.json);
    expect((await go('GET', '/v2/vfields?dataset=go-spans')).json).toEqual([created.json]);

    const window = { startTime: new Date(now - 3_600_000).toISOString(), endTime: new Date(now).toISOString() };
    const apl = await go('POST', '/v1/datasets/_apl?format=tabular', { ...window, apl: "['go-spans'] | where seconds > 1 | project route, seconds" });
    decodes(apl.json.status, QueryStatus);
    expect(apl.json.tables[0].columns).toEqual([['/cart'], [1.5]]);
    const structured = await go('POST', '/v1/datasets/go-spans/query', {
      ...window, resolution: '', aggregations: [{ op: 'sum', field: 'seconds', alias: 'total', argument: null }], groupBy: [], filter: { op: '', field: '', value: null, caseSensitive: false, children: null },
      order: [], limit: 0, virtualFields: [], project: [], cursor: '', includeCursor: false, continuationToken: '',
    });
    expect(structured.status).toBe(200);
    expect(structured.json.buckets.totals[0].aggregations).toEqual([{ op: 'total', value: 1.75 }]);

    const updated = await go('PUT', `/v2/vfields/${created.json.id}`, { dataset: 'go-spans', name: 'seconds', expression: 'duration_ms / 100.0', unit: 's' });
    expect(updated.json).toMatchObject({ expression: 'duration_ms / 100.0', unit: 's' });
    expect((await go('POST', '/v1/datasets/_apl?format=tabular', { ...window, apl: "['go-spans'] | summarize max(seconds)" })).json.tables[0].columns).toEqual([[15]]);
    expect((await go('DELETE', `/v2/vfields/${created.json.id}`)).status).toBe(204);
    expect((await go('POST', '/v1/datasets/_apl?format=tabular', { ...window, apl: "['go-spans'] | summarize max(seconds)" })).status).toBe(400);
  });

  it('keeps a QueryLegacy sent with saveAsKind and answers its id in X-Axiom-History-Query-Id', async () => {
    await go('POST', '/v1/datasets/go-history/ingest', [{ status: 200 }]);
    const reply = await go('POST', '/v1/datasets/go-history/query?nocache=true&saveAsKind=analytics&streaming-duration=1m0s', {
      startTime: new Date(Date.now() - 3_600_000).toISOString(), endTime: new Date(Date.now() + 60_000).toISOString(), resolution: '', aggregations: [], groupBy: [],
      filter: { op: '', field: '', value: null, caseSensitive: false, children: null }, order: [], limit: 0, virtualFields: [], project: [], cursor: '', includeCursor: false, continuationToken: '',
    });
    expect(reply.status).toBe(200);
    expect(reply.json.status.messages).toEqual([]);
    const id = reply.headers.get('X-Axiom-History-Query-Id') as string;
    expect((await go('GET', `/v1/datasets/_history/${id}`)).json).toMatchObject({ id, kind: 'analytics', dataset: 'go-history', who: 'local', created: expect.any(String) });
    expect((await go('POST', '/v1/datasets/go-history/query?saveAsKind=apl', { startTime: new Date(Date.now() - 60_000).toISOString() })).status).toBe(400);
  });

  it("takes traces from the otel package's TraceExporter: OTLP protobuf to /v1/traces with its headers, an ingest-only API token", async () => {
    const { token } = await mintToken(service, { datasetCapabilities: { 'go-traces': { ingest: ['create'] } } });
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'go-service' }),
      spanProcessors: [
        new SimpleSpanProcessor(
          new OTLPTraceExporter({
            url: `${service.url}/v1/traces`,
            headers: { Authorization: `Bearer ${token}`, 'X-Axiom-Org-Id': TEST_ORG, 'X-Axiom-Dataset': 'go-traces', 'User-Agent': 'axiom-go/0.27.0' },
          }),
        ),
      ],
    });
    provider.getTracer('go').startSpan('work').end();
    await provider.forceFlush();
    await provider.shutdown();
    const spans = await go('POST', '/v1/datasets/_apl?format=tabular', { apl: "['go-traces'] | project name, ['service.name']" });
    expect(spans.json.tables[0].columns).toEqual([['work'], ['go-service']]);
  });
});
