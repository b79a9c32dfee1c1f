import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_BODIES } from '../helpers/hostile-bodies.js';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';
import { WRITE_ENDPOINTS, type Targets } from '../helpers/write-endpoints.js';

/**
 * The hostile catalogue against the routes the official clients needed (/v1 datasets, tokens,
 * virtual fields, OTLP ingest, history, users and orgs): any body, path segment, query
 * parameter or header is answered with the hosted error shape and never a 5xx, and a refused
 * request stores nothing — no token, virtual field, dataset, dataset change or event.
 */

const service = useLocalService();
const api = () => serviceApi(service);
const NEW_ROUTES = /\/v1\/datasets|\/v2\/tokens|\/v2\/vfields|\/v1\/traces|\/v1\/logs|\/v1\/metrics/;
const ENDPOINTS = WRITE_ENDPOINTS.filter((endpoint) => endpoint.name.startsWith('service') && NEW_ROUTES.test(endpoint.name));
let targets: Targets;
/**
 * Path segments and header values. Built here, at import: building `unit: 'binary'` takes
 * fast-check seconds of synchronous work, which inside a test stalls the in-process service's
 * event loop past its keep-alive timeout and makes the next request meet a closed socket.
 */
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', '..', '%00', '*', '_apl', 'a'.repeat(5000)));

beforeAll(async () => {
  await api().ingest('any-body', [{ status: 500 }]);
  await api().ingest('any-body-otel', [{ status: 500 }]);
  const tokenId = (await api().call('POST', '/v2/tokens', { name: 'target' })).body.id as string;
  const virtualFieldId = (await api().call('POST', '/v2/vfields', { dataset: 'any-body', name: 'doubled', expression: 'status * 2' })).body.id as string;
  targets = {
    service: { url: service.url, token: service.token, annotationId: '', monitorId: '', notifierId: '', tokenId, virtualFieldId },
    bridge: { url: '', secret: '', adminToken: '' },
  };
});

/** What any of these routes could change. */
async function state() {
  const count = async (dataset: string) => (await api().call('POST', '/v1/datasets/_apl', { apl: `['${dataset}'] | count`, startTime: '1970-01-01T00:00:00Z' })).body.tables[0].columns[0][0] as number;
  return {
    tokens: (await api().call('GET', '/v2/tokens')).body,
    vfields: (await api().call('GET', '/v2/vfields?dataset=any-body')).body,
    datasets: (await api().call('GET', '/v1/datasets')).body,
    events: [await count('any-body'), await count('any-body-otel')],
  };
}

describe('the routes of the official clients under the hostile catalogue', () => {
  it('answers any body with the hosted error shape, never a 5xx, and stores nothing from a refused one', { timeout: 240_000 }, async () => {
    let before = await state();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), HOSTILE_BODIES, async (endpoint, body) => {
        const response = await fetch(endpoint.url(targets), { method: endpoint.method, headers: endpoint.headers(body, targets), body });
        const text = await response.text();
        expect(response.status, `${endpoint.name} answered ${response.status}: ${text.slice(0, 300)}`).toBeLessThan(500);
        const after = await state();
        if (response.status >= 400) {
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          expect(JSON.parse(text)).toMatchObject({ code: response.status, message: expect.any(String) });
          expect(after, `${endpoint.name} refused with ${response.status} but changed what is stored`).toEqual(before);
        }
        before = after;
      }),
      { numRuns: 100 },
    );
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  });

  it('answers any path segment, query parameter or dataset header without a 5xx', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v2/tokens/', '/v2/vfields/', '/v1/datasets/_history/', '/v2/users/', '/v2/orgs/', '/v1/datasets/', '/v2/vfields?dataset='), text, async (prefix, value) => {
        const response = await fetch(`${service.url}${prefix}${encodeURIComponent(value)}`, { headers: { authorization: `Bearer ${service.token}` } });
        expect(response.status, `${prefix}${value}`).toBeLessThan(500);
        if (response.status >= 400) expect(await response.json()).toMatchObject({ code: response.status });
      }),
      { numRuns: 200 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v1/traces', '/v1/logs'), text, fc.constantFrom('gzip', 'zstd', 'br', '', 'identity'), async (path, dataset, encoding) => {
        const headers: Record<string, string> = { authorization: `Bearer ${service.token}`, 'content-type': 'application/json', 'content-encoding': encoding };
        if (/^[\x20-\x7e]*$/.test(dataset)) headers['x-axiom-dataset'] = dataset;
        const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: '{"resourceSpans":[],"resourceLogs":[]}' });
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
  });

  it('answers OTLP requests it cannot read with 400, 413 or 415 and what was expected', async () => {
    const otlp = (path: string, body: string | Buffer, headers: Record<string, string>) =>
      fetch(`${service.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${service.token}`, 'x-axiom-dataset': 'otel-bad', ...headers }, body });
    const cases: Array<[string, string | Buffer, Record<string, string>, number, RegExp]> = [
      ['/v1/traces', '{}', { 'content-type': 'text/plain' }, 415, /Expected application\/x-protobuf or application\/json/],
      ['/v1/traces', Buffer.from([0xff, 0xff, 0xff]), { 'content-type': 'application/x-protobuf' }, 400, /not an OTLP traces export request in protobuf/],
      ['/v1/logs', 'not json', { 'content-type': 'application/json' }, 400, /not valid JSON/],
      ['/v1/traces', '{"resourceSpans": {}}', { 'content-type': 'application/json' }, 400, /Invalid resourceSpans \{\}. Expected an array/],
      ['/v1/traces', '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz"}]}]}]}', { 'content-type': 'application/json' }, 400, /Invalid resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId "xyz". Expected 32 hexadecimal digits/],
      ['/v1/traces', '{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"soon"}]}]}]}', { 'content-type': 'application/json' }, 400, /startTimeUnixNano "soon". Expected a 64-bit integer/],
      ['/v1/logs', '{"resourceLogs":[]}', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 400, /not valid gzip data/],
      ['/v1/logs', '{"resourceLogs":[]}', { 'content-type': 'application/json', 'content-encoding': 'br' }, 415, /Expected gzip, zstd, identity or none/],
    ];
    for (const [path, body, headers, status, message] of cases) {
      const response = await otlp(path, body, headers);
      expect(await response.json(), `${path} ${String(body).slice(0, 60)}`).toEqual({ code: status, message: expect.stringMatching(message) });
    }
    const missing = await fetch(`${service.url}/v1/traces`, { method: 'POST', headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(await missing.json()).toEqual({ code: 400, message: expect.stringMatching(/Missing the X-Axiom-Dataset header/) });
    expect((await api().call('GET', '/v1/datasets/otel-bad')).status).toBe(404);
  });
});
