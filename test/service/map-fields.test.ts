import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeTempDir, startLocalService, useLocalService } from '../helpers/local-service.js';
import { mintToken } from '../helpers/api-tokens.js';
import { serviceApi } from '../helpers/service-api.js';

/**
 * Map fields against the real local service: the `/v2/datasets/{id}/mapfields` API in the hosted
 * shapes and with its refusals, ingest that keeps a map field's object whole from the moment it is
 * declared, the OTLP endpoint's `attributes.custom`, and the APL reference's queries over them.
 */

const service = useLocalService();
const api = () => serviceApi(service);
const TRACES = readFileSync(new URL('../fixtures/ingest/otlp-traces-custom-attributes.json', import.meta.url), 'utf8');
const WINDOW = { startTime: '2024-03-01T00:00:00Z', endTime: '2024-03-02T00:00:00Z' };

async function createDataset(name: string): Promise<void> {
  const reply = await api().call('POST', '/v2/datasets', { name });
  if (reply.status !== 200) throw new Error(`Dataset not created: ${JSON.stringify(reply)}`);
}

async function rows(apl: string): Promise<Record<string, unknown>[]> {
  const result = await service.axiom.query(apl, WINDOW);
  return [...(result.tables[0]?.events() ?? [])] as Record<string, unknown>[];
}

async function sendTraces(dataset: string): Promise<void> {
  const response = await fetch(`${service.url}/v1/traces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json', 'x-axiom-dataset': dataset },
    body: TRACES,
  });
  if (response.status !== 200) throw new Error(`Traces not taken: ${response.status} ${await response.text()}`);
}

describe('the map fields API', () => {
  it('lists, creates, replaces and deletes map fields, and the dataset lists them too', async () => {
    await createDataset('mf-api');
    expect(await api().call('GET', '/v2/datasets/mf-api/mapfields')).toMatchObject({ status: 200, body: [] });
    expect(await api().call('POST', '/v2/datasets/mf-api/mapfields', { name: 'foo' })).toMatchObject({ status: 200, body: { name: 'foo' } });
    expect((await api().call('GET', '/v2/datasets/mf-api')).body.mapFields).toEqual(['foo']);
    expect(await service.axiom.datasets.mapFields('mf-api')).toEqual(['foo']);

    expect(await api().call('PUT', '/v2/datasets/mf-api/mapfields', [])).toMatchObject({ status: 200, body: [] });
    expect((await api().call('GET', '/v2/datasets/mf-api')).body.mapFields).toEqual([]);
    expect(await api().call('PUT', '/v2/datasets/mf-api/mapfields', ['bar', 'baz', 'buz'])).toMatchObject({ status: 200, body: ['bar', 'baz', 'buz'] });

    expect((await api().call('DELETE', '/v2/datasets/mf-api/mapfields/bar')).status).toBe(204);
    expect((await api().call('GET', '/v2/datasets/mf-api/mapfields')).body).toEqual(['baz', 'buz']);
    // A name with dots, escaped in the path as a client would.
    expect((await api().call('POST', '/v2/datasets/mf-api/mapfields', { name: 'attributes.custom' })).status).toBe(200);
    expect((await api().call('DELETE', `/v2/datasets/mf-api/mapfields/${encodeURIComponent('attributes.custom')}`)).status).toBe(204);
    expect((await api().call('GET', '/v2/datasets/mf-api/mapfields')).body).toEqual(['baz', 'buz']);
  });

  it('refuses a second declaration (409), an unknown map field or dataset (404) and bad bodies (400), as {code, message}', async () => {
    await createDataset('mf-refusals');
    await api().call('POST', '/v2/datasets/mf-refusals/mapfields', { name: 'foo' });
    expect(await api().call('POST', '/v2/datasets/mf-refusals/mapfields', { name: 'foo' })).toMatchObject({
      status: 409,
      body: { code: 409, message: 'Dataset "mf-refusals" already has the map field "foo".' },
    });
    const invalid = await api().call('POST', '/v2/datasets/mf-refusals/mapfields', { name: '__invalid__' });
    expect(invalid).toMatchObject({ status: 400, body: { code: 400, message: expect.stringMatching(/^Invalid name "__invalid__"\. Expected a field name/) } });
    for (const body of [{}, { name: '' }, { name: 42 }, { name: 'a..b' }, { name: 'line\nbreak' }, ['foo'], 'foo']) {
      expect((await api().call('POST', '/v2/datasets/mf-refusals/mapfields', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(await api().call('PUT', '/v2/datasets/mf-refusals/mapfields', ['dupe', 'dupe'])).toMatchObject({
      status: 400,
      body: { message: 'The map field "dupe" is listed twice. Expected each name once.' },
    });
    expect(await api().call('PUT', '/v2/datasets/mf-refusals/mapfields', ['ok', '__invalid__'])).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^Invalid mapFields\[1\] "__invalid__"/) } });
    expect((await api().call('PUT', '/v2/datasets/mf-refusals/mapfields', { name: 'foo' })).status).toBe(400);
    expect((await api().call('GET', '/v2/datasets/mf-refusals/mapfields')).body).toEqual(['foo']);

    expect(await api().call('DELETE', '/v2/datasets/mf-refusals/mapfields/bar')).toMatchObject({ status: 404, body: { code: 404, message: 'Dataset "mf-refusals" has no map field "bar".' } });
    expect((await api().call('GET', '/v2/datasets/no-such-dataset/mapfields')).status).toBe(404);
    expect((await api().call('POST', '/v2/datasets/no-such-dataset/mapfields', { name: 'foo' })).status).toBe(404);
    expect((await api().call('PUT', '/v2/datasets/no-such-dataset/mapfields', ['foo'])).status).toBe(404);
    expect((await api().call('DELETE', '/v2/datasets/no-such-dataset/mapfields/foo')).status).toBe(404);
    expect((await api().call('PATCH', '/v2/datasets/mf-refusals/mapfields', ['foo'])).status).toBe(405);
  });

  it('needs datasets:read to list and datasets:update to change them', async () => {
    await createDataset('mf-tokens');
    const reader = { url: service.url, token: (await mintToken(service, { orgCapabilities: { datasets: ['read'] } })).token };
    expect((await serviceApi(reader).call('GET', '/v2/datasets/mf-tokens/mapfields')).status).toBe(200);
    expect((await serviceApi(reader).call('POST', '/v2/datasets/mf-tokens/mapfields', { name: 'foo' })).status).toBe(403);
    expect((await serviceApi(reader).call('PUT', '/v2/datasets/mf-tokens/mapfields', ['foo'])).status).toBe(403);
    expect((await api().call('GET', '/v2/datasets/mf-tokens/mapfields')).body).toEqual([]);
  });

  it('keeps map fields across a restart, and drops them with the dataset', async () => {
    const dataDir = makeTempDir('mapfields-restart');
    const first = await startLocalService({ dataDir });
    await serviceApi(first).call('POST', '/v2/datasets', { name: 'kept' });
    await serviceApi(first).call('PUT', '/v2/datasets/kept/mapfields', ['geo', 'attributes.custom']);
    await first.close();
    const second = await startLocalService({ dataDir });
    try {
      expect((await serviceApi(second).call('GET', '/v2/datasets/kept/mapfields')).body).toEqual(['geo', 'attributes.custom']);
      await serviceApi(second).call('DELETE', '/v2/datasets/kept');
      await serviceApi(second).call('POST', '/v2/datasets', { name: 'kept' });
      expect((await serviceApi(second).call('GET', '/v2/datasets/kept/mapfields')).body).toEqual([]);
    } finally {
      await second.close();
    }
  });
});

describe('ingest into map fields', () => {
  it('flattens objects until the field is declared, keeps them whole after, and flattens again once it is deleted', async () => {
    const geo = (city: string) => ({ _time: '2024-03-01T10:00:00Z', city, geo: { city, country: 'France' } });
    const ndjson = async (events: object[]) => {
      const reply = await fetch(`${service.url}/v1/datasets/mf-geo/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/x-ndjson' },
        body: events.map((event) => JSON.stringify(event)).join('\n'),
      });
      expect(await reply.json()).toMatchObject({ ingested: events.length, failed: 0 });
    };
    await ndjson([geo('Paris')]);
    await api().call('POST', '/v2/datasets/mf-geo/mapfields', { name: 'geo' });
    await ndjson([geo('Lyon')]);
    await api().call('DELETE', '/v2/datasets/mf-geo/mapfields/geo');
    await ndjson([geo('Nice')]);

    // The flattened field and the map's key are separate fields, as the reference says.
    expect(await rows("['mf-geo'] | project city, flat = ['geo.city'], mapped = ['geo']['city'] | sort by city asc")).toEqual([
      { city: 'Lyon', flat: null, mapped: 'Lyon' },
      { city: 'Nice', flat: 'Nice', mapped: null },
      { city: 'Paris', flat: 'Paris', mapped: null },
    ]);
    const fields = (await api().call('GET', '/v2/datasets/mf-geo/fields')).body as { name: string; type: string }[];
    expect(fields.map((field) => [field.name, field.type])).toEqual(expect.arrayContaining([['geo', 'object'], ['geo.city', 'string']]));
  });
});

describe('OTLP traces and attributes.custom', () => {
  it('makes a trace dataset with the attributes.custom map field and files custom attributes there', async () => {
    await sendTraces('otel-demo-traces');
    expect((await api().call('GET', '/v2/datasets/otel-demo-traces')).body).toMatchObject({ kind: 'otel:traces:v1', mapFields: ['attributes.custom'] });
    expect(
      await rows(
        "['otel-demo-traces'] | sort by _time asc | project name, method = ['attributes.http.method'], accept = ['attributes.http.request.header.accept'], ['attributes.custom'], ['k8s.node.name'] = ['resource.k8s.node.name']",
      ),
    ).toEqual([
      {
        name: 'oteldemo.PaymentService/Charge',
        method: 'POST',
        accept: 'application/json',
        'attributes.custom': { 'http.protocol': 'HTTP/1.1', 'app.payment.amount': 42.5, 'app.payment.card_type': 'visa' },
        'k8s.node.name': 'node-1',
      },
      { name: 'charge card', method: 'POST', accept: null, 'attributes.custom': null, 'k8s.node.name': 'node-1' },
    ]);
  });

  it('answers queries that read attributes.custom by key, as text, through search and mv-expand', async () => {
    await sendTraces('otel-reference');
    expect(await rows("['otel-reference'] | where ['attributes.custom']['http.protocol'] == 'HTTP/1.1' | project name")).toEqual([{ name: 'oteldemo.PaymentService/Charge' }]);
    expect(
      await rows("['otel-reference'] | where isnotnull(['attributes.custom']['app.payment.amount']) | project trace_id, name, amount = ['attributes.custom']['app.payment.amount']"),
    ).toEqual([{ trace_id: '5b8efff798038103d269b633813fc60c', name: 'oteldemo.PaymentService/Charge', amount: 42.5 }]);
    expect(
      await rows(
        "['otel-reference'] | extend custom_text = tostring(['attributes.custom']) | where isnotnull(['attributes.custom']) | search custom_text:\"visa\" | project name",
      ),
    ).toEqual([{ name: 'oteldemo.PaymentService/Charge' }]);
    expect(await rows("['otel-reference'] | extend as_text = tostring(['attributes.custom']) | summarize Count = count() by ['attributes.http.method']")).toEqual([
      { 'attributes.http.method': 'POST', Count: 2 },
    ]);
    // A span without custom attributes has no map (null), which mv-expand keeps as one row: the filter leaves it out.
    expect(await rows("['otel-reference'] | where isnotnull(['attributes.custom']) | mv-expand attribute = ['attributes.custom'] | summarize count() by key = tostring(attribute[0]) | sort by key asc")).toEqual([
      { key: 'app.payment.amount', count_: 1 },
      { key: 'app.payment.card_type', count_: 1 },
      { key: 'http.protocol', count_: 1 },
    ]);
  });

  it('gives a trace dataset made through the datasets API the same map field, and no other kind any', async () => {
    expect((await api().call('POST', '/v2/datasets', { name: 'otel-made', kind: 'otel:traces:v1' })).body.mapFields).toEqual(['attributes.custom']);
    expect((await api().call('POST', '/v2/datasets', { name: 'logs-made', kind: 'otel:logs:v1' })).body.mapFields).toEqual([]);
    await sendTraces('otel-made');
    expect(await rows("['otel-made'] | where isnotnull(['attributes.custom']) | project amount = ['attributes.custom']['app.payment.amount']")).toEqual([{ amount: 42.5 }]);
  });

  it('keeps every attribute under attributes.<key> in a dataset without the map field', async () => {
    await createDataset('otel-flat');
    await sendTraces('otel-flat');
    expect(await rows("['otel-flat'] | where name == 'oteldemo.PaymentService/Charge' | project ['attributes.http.method'], ['attributes.http.protocol'], ['attributes.app.payment.amount']")).toEqual([
      { 'attributes.http.method': 'POST', 'attributes.http.protocol': 'HTTP/1.1', 'attributes.app.payment.amount': 42.5 },
    ]);
    expect((await api().call('GET', '/v2/datasets/otel-flat/mapfields')).body).toEqual([]);
  });
});
