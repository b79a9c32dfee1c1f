import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_RULES, type Requirement } from '../../src/service/access/gate.js';
import { mintToken, type Capabilities } from '../helpers/api-tokens.js';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';

/**
 * The capability matrix of API tokens, route by route and both ways, driven by the service's own
 * rule table (ACCESS_RULES): for every route, a token holding exactly the capability it needs
 * gets a 2xx, and tokens without it — none at all, or the same capability on another dataset —
 * get 403 and change nothing. A route added to the table without a request here fails the test.
 */

const service = useLocalService();
const DASHBOARD = JSON.parse(readFileSync(new URL('../fixtures/dashboards/deploys.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const DATASET = 'matrix';
const NOW = new Date().toISOString();

interface Call {
  path: string;
  /** Sent as JSON; `raw` is sent as it is, with its own content type in `headers`. */
  body?: unknown;
  raw?: Buffer;
  headers?: Record<string, string>;
}

let sequence = 0;
const fresh = (prefix: string): string => `${prefix}-${++sequence}`;

/** Makes what a request works on, as the start-up token; returns its id. */
const root = () => serviceApi(service);
async function created(path: string, body: unknown, idOf: (reply: any) => string): Promise<string> {
  const reply = await root().call('POST', path, body);
  if (reply.status >= 300) throw new Error(`Setup ${path} failed: ${JSON.stringify(reply)}`);
  return idOf(reply.body);
}
const annotation = () => created('/v2/annotations', { datasets: [DATASET], type: 'deploy' }, (body) => body.id);
const dataset = async () => {
  const name = fresh('matrix-ds');
  await created('/v2/datasets', { name }, (body) => body.name);
  return name;
};
const notifier = () => created('/v2/notifiers', { name: 'n', properties: { customWebhook: { url: 'http://127.0.0.1:9/' } } }, (body) => body.id);
const monitor = () =>
  created('/v2/monitors', { name: 'm', type: 'Threshold', aplQuery: `['${DATASET}'] | summarize count()`, operator: 'Above', threshold: 1e9, intervalMinutes: 60, rangeMinutes: 5 }, (body) => body.id);
const dashboard = () => created('/v2/dashboards', { dashboard: DASHBOARD }, (body) => body.dashboard.uid);
const apiToken = () => created('/v2/tokens', { name: 'target' }, (body) => body.id);
const query = { startTime: '2024-01-01T00:00:00Z', endTime: NOW };

/** A request each rule's route answers with a 2xx, given the capability. */
const REQUESTS: Readonly<Record<string, () => Promise<Call>>> = {
  'GET /v2/annotations': async () => ({ path: '/v2/annotations' }),
  'POST /v2/annotations': async () => ({ path: '/v2/annotations', body: { datasets: [DATASET], type: 'deploy' } }),
  'GET /v2/annotations/:id': async () => ({ path: `/v2/annotations/${await annotation()}` }),
  'PUT /v2/annotations/:id': async () => ({ path: `/v2/annotations/${await annotation()}`, body: { title: 'changed' } }),
  'DELETE /v2/annotations/:id': async () => ({ path: `/v2/annotations/${await annotation()}` }),
  ...Object.fromEntries(
    ['/v1', '/v2'].flatMap((version) => [
      [`GET ${version}/datasets`, async () => ({ path: `${version}/datasets` })],
      [`POST ${version}/datasets`, async () => ({ path: `${version}/datasets`, body: { name: fresh('made') } })],
      [`GET ${version}/datasets/:id`, async () => ({ path: `${version}/datasets/${DATASET}` })],
      [`PUT ${version}/datasets/:id`, async () => ({ path: `${version}/datasets/${DATASET}`, body: { description: 'changed' } })],
      [`DELETE ${version}/datasets/:id`, async () => ({ path: `${version}/datasets/${await dataset()}` })],
      [`POST ${version}/datasets/:id/trim`, async () => ({ path: `${version}/datasets/${DATASET}/trim`, body: { maxDuration: '87600h' } })],
    ]),
  ),
  'GET /v2/datasets/:id/fields': async () => ({ path: `/v2/datasets/${DATASET}/fields` }),
  'GET /v2/datasets/:id/mapfields': async () => ({ path: `/v2/datasets/${DATASET}/mapfields` }),
  'POST /v2/datasets/:id/mapfields': async () => ({ path: `/v2/datasets/${await dataset()}/mapfields`, body: { name: 'geo' } }),
  'PUT /v2/datasets/:id/mapfields': async () => ({ path: `/v2/datasets/${await dataset()}/mapfields`, body: ['geo', 'attributes.custom'] }),
  'DELETE /v2/datasets/:id/mapfields/:name': async () => {
    const name = await dataset();
    await created(`/v2/datasets/${name}/mapfields`, { name: 'geo' }, (body) => body.name);
    return { path: `/v2/datasets/${name}/mapfields/geo` };
  },
  'POST /v1/datasets/:dataset/ingest': async () => ({ path: `/v1/datasets/${DATASET}/ingest`, body: [{ status: 200 }] }),
  'POST /v1/ingest/:dataset': async () => ({ path: `/v1/ingest/${DATASET}`, body: [{ status: 200 }] }),
  'POST /v1/datasets/:dataset/query': async () => ({ path: `/v1/datasets/${DATASET}/query`, body: query }),
  'POST /v1/traces': async () => ({ path: '/v1/traces', body: { resourceSpans: [] }, headers: { 'x-axiom-dataset': DATASET } }),
  'POST /v1/logs': async () => ({ path: '/v1/logs', body: { resourceLogs: [] }, headers: { 'x-axiom-dataset': DATASET } }),
  // An empty protobuf message: an export request without data points.
  'POST /v1/metrics': async () => ({ path: '/v1/metrics', raw: Buffer.alloc(0), headers: { 'content-type': 'application/x-protobuf', 'x-axiom-metrics-dataset': DATASET } }),
  'GET /v2/tokens': async () => ({ path: '/v2/tokens' }),
  'POST /v2/tokens': async () => ({ path: '/v2/tokens', body: { name: 'minted' } }),
  'GET /v2/tokens/:id': async () => ({ path: `/v2/tokens/${await apiToken()}` }),
  'DELETE /v2/tokens/:id': async () => ({ path: `/v2/tokens/${await apiToken()}` }),
  'POST /v2/tokens/:id/regenerate': async () => ({ path: `/v2/tokens/${await apiToken()}/regenerate`, body: { existingTokenExpiresAt: NOW } }),
  'GET /v1/user': async () => ({ path: '/v1/user' }),
  'GET /v2/user': async () => ({ path: '/v2/user' }),
  'GET /v2/users': async () => ({ path: '/v2/users' }),
  'GET /v2/users/:id': async () => ({ path: '/v2/users/local' }),
  'GET /v2/orgs': async () => ({ path: '/v2/orgs' }),
  'GET /v2/orgs/:id': async () => ({ path: '/v2/orgs/test-org' }),
  'GET /v2/monitors': async () => ({ path: '/v2/monitors' }),
  'POST /v2/monitors': async () => ({
    path: '/v2/monitors',
    body: { name: 'm', type: 'Threshold', aplQuery: `['${DATASET}'] | summarize count()`, operator: 'Above', threshold: 1e9, intervalMinutes: 60, rangeMinutes: 5 },
  }),
  'GET /v2/monitors/:id': async () => ({ path: `/v2/monitors/${await monitor()}` }),
  'PUT /v2/monitors/:id': async () => ({
    path: `/v2/monitors/${await monitor()}`,
    body: { name: 'changed', type: 'Threshold', aplQuery: `['${DATASET}'] | summarize count()`, operator: 'Above', threshold: 1e9, intervalMinutes: 60, rangeMinutes: 5 },
  }),
  'DELETE /v2/monitors/:id': async () => ({ path: `/v2/monitors/${await monitor()}` }),
  'POST /v2/monitors/:id/run': async () => ({ path: `/v2/monitors/${await monitor()}/run` }),
  'GET /v2/notifiers': async () => ({ path: '/v2/notifiers' }),
  'POST /v2/notifiers': async () => ({ path: '/v2/notifiers', body: { name: 'n', properties: { customWebhook: { url: 'http://127.0.0.1:9/' } } } }),
  'GET /v2/notifiers/:id': async () => ({ path: `/v2/notifiers/${await notifier()}` }),
  'PUT /v2/notifiers/:id': async () => ({ path: `/v2/notifiers/${await notifier()}`, body: { name: 'changed', properties: { customWebhook: { url: 'http://127.0.0.1:9/' } } } }),
  'DELETE /v2/notifiers/:id': async () => ({ path: `/v2/notifiers/${await notifier()}` }),
  'GET /v2/dashboards': async () => ({ path: '/v2/dashboards' }),
  'POST /v2/dashboards': async () => ({ path: '/v2/dashboards', body: { dashboard: DASHBOARD } }),
  'GET /v2/dashboards/uid/:uid': async () => ({ path: `/v2/dashboards/uid/${await dashboard()}` }),
  'PUT /v2/dashboards/uid/:uid': async () => ({ path: `/v2/dashboards/uid/${await dashboard()}`, body: { dashboard: DASHBOARD, version: 1 } }),
  'DELETE /v2/dashboards/uid/:uid': async () => ({ path: `/v2/dashboards/uid/${await dashboard()}` }),
};

async function send(method: string, call: Call, token: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${service.url}${call.path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }), ...call.headers },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    ...(call.raw === undefined ? {} : { body: call.raw }),
  });
  return { status: response.status, text: await response.text() };
}

/** The capabilities that meet `requirement` exactly, on `target` for a dataset rule. */
function grant(requirement: Exclude<Requirement, string>, target = DATASET): Capabilities {
  return 'org' in requirement
    ? { orgCapabilities: { [requirement.org]: [requirement.action] } }
    : { datasetCapabilities: { [target]: { [requirement.capability]: [requirement.action] } } };
}

beforeAll(async () => {
  await root().ingest(DATASET, [{ status: 200, _time: new Date(Date.now() - 60_000).toISOString() }]);
});

describe('the capability matrix of API tokens', () => {
  it('lists every route of the rule table in docs/tokens.md', () => {
    const page = readFileSync(new URL('../../docs/tokens.md', import.meta.url), 'utf8');
    expect(ACCESS_RULES.map(([method, path]) => `${method} ${path}`).filter((route) => !page.includes(route))).toEqual([]);
  });

  it('has a request for every route in the rule table', () => {
    const missing = ACCESS_RULES.filter(([method, path, requirement]) => requirement !== 'checked-by-route' && !REQUESTS[`${method} ${path}`]).map(([method, path]) => `${method} ${path}`);
    expect(missing).toEqual([]);
  });

  for (const [method, path, requirement] of ACCESS_RULES) {
    if (requirement === 'checked-by-route') continue;
    const name = `${method} ${path}`;
    if (requirement === 'any-token') {
      it(`${name}: answers any token, even one without capabilities`, async () => {
        const { token } = await mintToken(service, {});
        const reply = await send(method, await (REQUESTS[name] as () => Promise<Call>)(), token);
        expect(reply.status, reply.text).toBeLessThan(300);
      });
      continue;
    }
    const needs = 'org' in requirement ? `${requirement.org}:${requirement.action}` : `${requirement.capability}:${requirement.action} on the dataset`;
    it(`${name}: allows a token with ${needs}, refuses one without it with 403`, async () => {
      const allowed = await mintToken(service, grant(requirement));
      const granted = await send(method, await (REQUESTS[name] as () => Promise<Call>)(), allowed.token);
      expect(granted.status, granted.text).toBeGreaterThanOrEqual(200);
      expect(granted.status, granted.text).toBeLessThan(300);

      const denied = [await mintToken(service, {})];
      if ('dataset' in requirement) denied.push(await mintToken(service, grant(requirement, 'another-dataset')));
      for (const { token } of denied) {
        const refused = await send(method, await (REQUESTS[name] as () => Promise<Call>)(), token);
        expect(refused.status, refused.text).toBe(403);
        expect(JSON.parse(refused.text)).toEqual({ code: 403, message: expect.stringMatching(/lacks the .* capability/) });
      }
    });
  }

  it('lets a wildcard dataset capability ("*") reach every dataset', async () => {
    const { token } = await mintToken(service, { datasetCapabilities: { '*': { ingest: ['create'], query: ['read'] } } });
    expect((await send('POST', { path: '/v1/datasets/any-name/ingest', body: [{ a: 1 }] }, token)).status).toBe(200);
    expect((await send('POST', { path: '/v1/datasets/_apl', body: { apl: "['any-name'] | count", ...query } }, token)).status).toBe(200);
  });

  it('answers an API token on a route the table does not list with 403, and the start-up token as before', async () => {
    const { token } = await mintToken(service, { orgCapabilities: { datasets: ['create', 'read', 'update', 'delete'] } });
    const refused = await send('GET', { path: '/v2/no-such-route' }, token);
    expect(refused.status).toBe(403);
    expect((await send('GET', { path: '/v2/no-such-route' }, service.token)).status).toBe(404);
  });
});

describe('what an API token refused with 403 changes', () => {
  it('is nothing: no annotation, event, dataset, token, monitor, notifier or dashboard is added, changed or removed', async () => {
    const { token } = await mintToken(service, { orgCapabilities: { users: ['read'] } });
    // Everything the requests work on exists before the snapshot.
    const calls: Array<[string, string, Call]> = [];
    for (const [name, request] of Object.entries(REQUESTS)) {
      const method = name.split(' ')[0] as string;
      if (method !== 'GET') calls.push([name, method, await request()]);
    }
    const snapshot = async () => ({
      lists: await Promise.all(['/v2/annotations', '/v2/datasets', '/v2/tokens', '/v2/notifiers', '/v2/dashboards'].map(async (path) => (await root().call('GET', path)).body)),
      monitors: ((await root().call('GET', '/v2/monitors')).body as Array<{ id: string; name: string }>).map(({ id, name }) => ({ id, name })),
      events: (await root().call('POST', '/v1/datasets/_apl', { apl: `['${DATASET}'] | count`, ...query })).body.tables[0].columns[0][0] as number,
    });
    const before = await snapshot();
    for (const [name, method, call] of calls) {
      const reply = await send(method, call, token);
      expect(reply.status, `${name}: ${reply.text}`).toBe(403);
    }
    expect(await snapshot()).toEqual(before);
  });
});
