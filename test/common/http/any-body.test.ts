import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../helpers/local-service.js';
import { HOSTILE_BODIES as bodies, nested } from '../../helpers/hostile-bodies.js';
import { serviceApi } from '../../helpers/service-api.js';
import { WRITE_ENDPOINTS, type Targets, type WriteEndpoint } from '../../helpers/write-endpoints.js';
import { ADMIN_TOKEN, startTestBridge, TEST_SECRET, type TestBridge } from '../../webhook-server/helpers/bridge.js';

/** The regression of issue 8: `{"datasets": [[[…5,000 deep…]]]}` answered 500. */
const DEEP_DATASETS = Buffer.from(`{"datasets": ${nested(5_000, '[', ']')}}`);

describe('every write endpoint of the service and the bridge', () => {
  let service: LocalService;
  let bridge: TestBridge;
  let targets: Targets;

  beforeAll(async () => {
    service = await startLocalService();
    bridge = await startTestBridge({ serviceUrl: service.url, token: service.token });
    const created = await fetch(`${service.url}/v2/annotations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ datasets: ['any-body'], type: 'deploy' }),
    });
    const annotationId = ((await created.json()) as { id: string }).id;
    const api = serviceApi(service);
    await api.ingest('any-body', [{ status: 500 }]);
    const notifierId = (await api.call('POST', '/v2/notifiers', { name: 'n', properties: { customWebhook: { url: 'http://127.0.0.1:1/' } } })).body.id as string;
    const monitor = { name: 'm', type: 'Threshold', aplQuery: "['any-body'] | summarize count()", operator: 'Above', threshold: 1, intervalMinutes: 60, rangeMinutes: 5 };
    const monitorId = (await api.call('POST', '/v2/monitors', monitor)).body.id as string;
    const tokenId = (await api.call('POST', '/v2/tokens', { name: 'target' })).body.id as string;
    const virtualFieldId = (await api.call('POST', '/v2/vfields', { dataset: 'any-body', name: 'doubled', expression: 'status * 2' })).body.id as string;
    targets = {
      service: { url: service.url, token: service.token, annotationId, monitorId, notifierId, tokenId, virtualFieldId },
      bridge: { url: bridge.url, secret: TEST_SECRET, adminToken: ADMIN_TOKEN },
    };
  });
  afterAll(async () => {
    await bridge.close();
    await service.close();
  });

  async function send(endpoint: WriteEndpoint, body: Buffer): Promise<{ status: number; text: string; type: string }> {
    const response = await fetch(endpoint.url(targets), { method: endpoint.method, headers: endpoint.headers(body, targets), body });
    return { status: response.status, text: await response.text(), type: response.headers.get('content-type') ?? '' };
  }

  it('answers any body, of any shape, depth or size, with JSON (or with the protobuf reply of OTLP) and never with a 5xx', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITE_ENDPOINTS), bodies, async (endpoint, body) => {
        const { status, text, type } = await send(endpoint, body);
        expect(status, `${endpoint.name} answered ${status}: ${text.slice(0, 300)}`).toBeLessThan(500);
        // Some bytes are a valid (empty) OTLP message: OTLP answers those in protobuf, as its exporters expect.
        if (status < 400 && type.startsWith('application/x-protobuf')) return;
        const reply = JSON.parse(text) as { code?: unknown; message?: unknown };
        if (status >= 400) expect(reply).toMatchObject({ code: status, message: expect.any(String) });
      }),
      { numRuns: 400, examples: WRITE_ENDPOINTS.map((endpoint) => [endpoint, DEEP_DATASETS]) },
    );

    // Still healthy, and still doing its work.
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${bridge.url}/readyz`)).status).toBe(200);
    const created = await send(WRITE_ENDPOINTS[0] as WriteEndpoint, Buffer.from(JSON.stringify({ datasets: ['any-body'], type: 'deploy' })));
    expect(created.status).toBe(201);
  });

  it('answers the 5,000-deep datasets body with a 400 that describes it briefly', async () => {
    const { status, text } = await send(WRITE_ENDPOINTS[0] as WriteEndpoint, DEEP_DATASETS);
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({ code: 400, message: expect.stringMatching(/^Invalid datasets \[\[\[.{0,80}Expected a non-empty array/) });
  });

  it('refuses a body that is not UTF-8 instead of storing it changed', async () => {
    const body = Buffer.concat([Buffer.from('{"datasets":["a"],"type":"deploy","title":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const { status, text } = await send(WRITE_ENDPOINTS[0] as WriteEndpoint, body);
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({ code: 400, message: 'The request body is not valid UTF-8. Expected UTF-8 JSON.' });
  });
});
