import { AxiomWithoutBatching } from '@axiomhq/js';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpLogs } from '../../bench/lib/http-logs.mjs';
import { INGEST_LIMITS } from '../../src/engine/ingest/limits.js';
import { TEST_ORG, TEST_PERSONAL_TOKEN, useLocalService } from '../helpers/local-service.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`../fixtures/ingest/${name}`, import.meta.url));

const service = useLocalService();

interface Reply {
  status: number;
  contentType: string | null;
  body: Record<string, unknown>;
}

async function post(path: string, body: Uint8Array | string, headers: Record<string, string>): Promise<Reply> {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, ...headers },
    body,
  });
  return { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
}

const ingest = (dataset: string, body: Uint8Array | string, headers: Record<string, string>, query = '') => post(`/v1/datasets/${dataset}/ingest${query}`, body, headers);

async function rows(dataset: string, columns: string): Promise<Record<string, unknown>[]> {
  const schema = service.service.events.schema(dataset);
  if (!schema) throw new Error(`no dataset ${dataset}`);
  const columnOf = new Map(schema.fields.map((field) => [field.name, field.column]));
  const select = columns
    .split(',')
    .map((name) => name.trim())
    .map((name) => `${columnOf.get(name) ?? 'NULL'} AS "${name.replaceAll('"', '')}"`)
    .join(', ');
  return service.service.events.read({ timeoutMs: 10_000, maxRows: 100_000 }, async (run) => {
    const result = await run(`SELECT ${select} FROM ${schema.table} ORDER BY _rowid`, []);
    return Array.from({ length: result.rowCount }, (_, row) => Object.fromEntries(result.columnNames.map((name, column) => [name, result.columns[column]?.[row]])));
  });
}

async function fields(dataset: string): Promise<{ name: string; type: string }[]> {
  const response = await fetch(`${service.url}/v2/datasets/${dataset}/fields`, { headers: { authorization: `Bearer ${service.token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { name: string; type: string }[]).map(({ name, type }) => ({ name, type }));
}

describe('ingest over HTTP', () => {
  it('answers the exact reply shape, with per-event failures, once the events are stored', async () => {
    const reply = await ingest('shape', fixture('events.ndjson'), { 'content-type': 'application/x-ndjson' });
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.body).toEqual({
      ingested: 4,
      failed: 2,
      failures: [
        { timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), error: expect.stringMatching(/^Line 4 is not valid JSON/) },
        { timestamp: expect.any(String), error: expect.stringMatching(/^Line 6: Field "_time" has the value "yesterday"/) },
      ],
      processedBytes: fixture('events.ndjson').length,
      blocksCreated: 0,
      walLength: 4,
    });
    expect(await rows('shape', 'service, status, geo.city, _user__sysTime, Status')).toEqual([
      { service: 'api', status: '200', 'geo.city': 'Berlin', _user__sysTime: null, Status: null },
      { service: 'api', status: '404', 'geo.city': null, _user__sysTime: null, Status: null },
      { service: 'web', status: '500', 'geo.city': null, _user__sysTime: null, Status: null },
      { service: 'worker', status: null, 'geo.city': null, _user__sysTime: 'spoofed', Status: 'shadow' },
    ]);
    expect(await fields('shape')).toEqual(
      expect.arrayContaining([
        { name: '_time', type: 'datetime' },
        { name: '_sysTime', type: 'datetime' },
        { name: 'status', type: 'string|integer' },
        { name: 'duration_ms', type: 'integer|float' },
        { name: 'tags', type: 'array' },
        { name: 'user.roles', type: 'array' },
        { name: 'ok', type: 'boolean' },
      ]),
    );
  });

  it('serves the same ingest at /v1/ingest/{dataset} and creates an unknown dataset', async () => {
    const reply = await post('/v1/ingest/created-by-ingest', '[{"a":1}]', { 'content-type': 'application/json' });
    expect(reply.body).toMatchObject({ ingested: 1, failed: 0, failures: [] });
    const listed = await fetch(`${service.url}/v2/datasets/created-by-ingest`, { headers: { authorization: `Bearer ${service.token}` } });
    expect(await listed.json()).toMatchObject({ id: 'created-by-ingest', name: 'created-by-ingest', kind: 'axiom:events:v1' });
  });

  it('reads JSON arrays, CSV with a header or X-Axiom-CSV-Fields and csv-delimiter', async () => {
    expect((await ingest('formats-json', fixture('events.json'), { 'content-type': 'application/json' })).body).toMatchObject({ ingested: 3, failed: 1 });
    expect((await ingest('formats-csv', fixture('events.csv'), { 'content-type': 'text/csv' }, '?timestamp-field=time')).body).toMatchObject({ ingested: 3, failed: 1 });
    expect(await rows('formats-csv', 'service, status, note')).toEqual([
      { service: 'api', status: '200', note: 'quoted, with a comma' },
      { service: 'web', status: '404', note: null },
      { service: 'api', status: '00123', note: 'a "quoted" word' },
    ]);
    expect((await ingest('formats-fields', fixture('events-no-header.csv'), { 'content-type': 'text/csv', 'x-axiom-csv-fields': 'service,status' })).body).toMatchObject({ ingested: 2 });
    expect((await ingest('formats-semi', fixture('events-semicolon.csv'), { 'content-type': 'text/csv', 'x-axiom-csv-fields': '' }, '?csv-delimiter=%3B')).body).toMatchObject({ ingested: 2 });
    expect(await rows('formats-semi', 'service, status')).toEqual([
      { service: 'api', status: 200n },
      { service: 'web', status: 404n },
    ]);
  });

  it('reads gzip, zstd, an empty Content-Encoding and none alike', async () => {
    for (const [index, [body, encoding]] of (
      [
        [fixture('events.ndjson.gz'), 'gzip'],
        [fixture('events.ndjson.zst'), 'zstd'],
        [fixture('events.ndjson'), ''],
        [fixture('events.ndjson'), undefined],
      ] as const
    ).entries()) {
      const headers: Record<string, string> = { 'content-type': 'application/x-ndjson' };
      if (encoding !== undefined) headers['content-encoding'] = encoding;
      const reply = await ingest(`encoding-${index}`, body, headers);
      expect(reply.body).toMatchObject({ ingested: 4, failed: 2, processedBytes: fixture('events.ndjson').length });
      expect(await rows(`encoding-${index}`, 'service')).toEqual([{ service: 'api' }, { service: 'api' }, { service: 'web' }, { service: 'worker' }]);
    }
  });

  it('applies timestamp-field, timestamp-format and X-Axiom-Event-Labels', async () => {
    const reply = await ingest('nginx', fixture('nginx.ndjson'), { 'content-type': 'application/x-ndjson', 'x-axiom-event-labels': '{"env":"prod","host":{"name":"web-1"}}' }, `?timestamp-field=ts&timestamp-format=${encodeURIComponent('02/Jan/2006:15:04:05 -0700')}`);
    expect(reply.body).toMatchObject({ ingested: 3, failed: 0 });
    const stored = service.service.events.schema('nginx');
    expect(stored?.fields.map((field) => field.name)).toEqual(['_time', '_sysTime', 'request', 'status', 'env', 'host.name']);
    const times = await service.service.events.read({ timeoutMs: 5000, maxRows: 10 }, (run) => run(`SELECT _time FROM ${stored?.table} ORDER BY _rowid`, []));
    expect(times.columns[0]).toEqual([1705323600000000000n, 1705323601250000000n, 1705327202000000000n]);
    expect(await rows('nginx', 'env, host.name')).toEqual(Array(3).fill({ env: 'prod', 'host.name': 'web-1' }));
  });

  it('answers an unreadable body with a 400 that says what was wrong, and stores nothing of it', async () => {
    const cases: [string, Uint8Array | string, Record<string, string>, RegExp][] = [
      ['bad gzip', 'plain text', { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' }, /not valid gzip data/],
      ['truncated zstd', fixture('events.ndjson.zst').subarray(0, 30), { 'content-type': 'application/x-ndjson', 'content-encoding': 'zstd' }, /not valid zstd data/],
      ['csv without header', '', { 'content-type': 'text/csv' }, /no header row/],
      ['broken json array', '[{"a":', { 'content-type': 'application/json' }, /not valid JSON/],
      ['bad labels', '{}', { 'content-type': 'application/x-ndjson', 'x-axiom-event-labels': 'env=prod' }, /X-Axiom-Event-Labels is not valid JSON/],
    ];
    for (const [what, body, headers, message] of cases) {
      const reply = await ingest('refused', body, headers);
      expect(reply.status, what).toBe(400);
      expect(reply.contentType).toMatch(/^application\/json/);
      expect(reply.body).toEqual({ code: 400, message: expect.stringMatching(message) });
    }
    expect(service.service.events.schema('refused')).toBeUndefined();
    const badFormat = await ingest('refused', '{}', { 'content-type': 'application/x-ndjson' }, '?timestamp-format=yyyy');
    expect(badFormat.body).toEqual({ code: 400, message: expect.stringMatching(/Invalid timestamp-format "yyyy"/) });
    const badName = await ingest('-bad', '{}', { 'content-type': 'application/x-ndjson' });
    expect(badName.body).toEqual({ code: 400, message: expect.stringMatching(/Invalid dataset name "-bad"\. Expected 1 to 128 letters/) });
  });

  it('answers unsupported types and encodings with a 415', async () => {
    expect((await ingest('media', 'a=b', { 'content-type': 'application/x-www-form-urlencoded' })).body).toEqual({ code: 415, message: expect.stringMatching(/Unsupported Content-Type "application\/x-www-form-urlencoded"/) });
    expect((await ingest('media', '{}', { 'content-type': 'application/x-ndjson', 'content-encoding': 'br' })).body).toEqual({ code: 415, message: expect.stringMatching(/Expected gzip, zstd, identity or none/) });
  });

  it('answers more than 10,000 events and a body over the limit with a 413 that names the limit', async () => {
    const tooMany = '{}\n'.repeat(INGEST_LIMITS.maxEventsPerRequest + 1);
    expect((await ingest('limits', tooMany, { 'content-type': 'application/x-ndjson' })).body).toEqual({ code: 413, message: expect.stringMatching(/more than 10000 events\. Expected at most 10000 events per request/) });
    const bomb = await ingest('limits', fixture('bomb.gz'), { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' });
    expect(bomb.body).toEqual({ code: 413, message: expect.stringMatching(/decompressed request body is larger than the limit of 64 MiB/) });
    const huge = Buffer.alloc(INGEST_LIMITS.maxBodyBytes + 1, 0x20);
    const tooLarge = await ingest('limits', huge, { 'content-type': 'application/x-ndjson' });
    expect(tooLarge.body).toEqual({ code: 413, message: expect.stringMatching(/request body is larger than the limit of 64 MiB/) });
    expect(service.service.events.schema('limits')).toBeUndefined();
    const health = await fetch(`${service.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('accepts exactly 10,000 events in one gzip request', async () => {
    const body = gzipSync([...httpLogs({ count: 10_000 })].map((event) => JSON.stringify(event)).join('\n'));
    const reply = await ingest('full-batch', body, { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' });
    expect(reply.body).toMatchObject({ ingested: 10_000, failed: 0 });
  });

  it('needs a token, and takes a personal token with its org id', async () => {
    const anonymous = await fetch(`${service.url}/v1/datasets/auth/ingest`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    const personal = await fetch(`${service.url}/v1/datasets/auth/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_PERSONAL_TOKEN}`, 'x-axiom-org-id': TEST_ORG, 'content-type': 'application/x-ndjson' },
      body: '{"a":1}',
    });
    expect(await personal.json()).toMatchObject({ ingested: 1 });
  });

  it('answers other methods on the ingest routes with a 405', async () => {
    const response = await fetch(`${service.url}/v1/ingest/anything`, { headers: { authorization: `Bearer ${service.token}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('counts ingested events in the service metrics', async () => {
    await ingest('metered', '{"a":1}\n{"a":2}\n', { 'content-type': 'application/x-ndjson' });
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/timemark_service_ingested_events_total\{dataset="metered"\} 2/);
  });
});

describe('datasets calls of @axiomhq/js 2.0.0', () => {
  let axiom: AxiomWithoutBatching;
  beforeAll(() => {
    axiom = new AxiomWithoutBatching({ token: service.token, url: service.url });
  });

  it('ingests gzip batches with ingest() and reads the fields with datasets.fields()', async () => {
    const errors: unknown[] = [];
    const client = new AxiomWithoutBatching({ token: service.token, url: service.url, onError: (error) => errors.push(error) });
    const status = await client.ingest('official-ingest', [
      { _time: '2024-01-15T14:00:00Z', service: 'api', latency: 12, geo: { city: 'Berlin' } },
      { service: 'web', latency: 3.5 },
    ]);
    expect(errors).toEqual([]);
    expect(status).toMatchObject({ ingested: 2, failed: 0, failures: [] });
    const fieldList = await client.datasets.fields('official-ingest');
    expect(fieldList.map(({ name, type }) => ({ name, type }))).toEqual([
      { name: '_time', type: 'datetime' },
      { name: '_sysTime', type: 'datetime' },
      { name: 'service', type: 'string' },
      { name: 'latency', type: 'integer|float' },
      { name: 'geo.city', type: 'string' },
    ]);
  });

  it('updates, trims and deletes a dataset with its events', async () => {
    await axiom.datasets.create({ name: 'official-datasets', description: 'before' });
    const updated = await axiom.datasets.update('official-datasets', { description: 'after', retentionDays: 30 });
    expect(updated).toMatchObject({ id: 'official-datasets', description: 'after', retentionDays: 30 });
    const old = new Date(Date.now() - 2 * 3_600_000).toISOString();
    await axiom.ingest('official-datasets', [{ _time: old, age: 'old' }, { age: 'new' }]);
    const trimmed = await axiom.datasets.trim('official-datasets', '1h');
    expect(trimmed).toEqual({ numDeleted: 1 });
    expect(await rows('official-datasets', 'age')).toEqual([{ age: 'new' }]);
    await axiom.datasets.delete('official-datasets');
    expect(service.service.events.schema('official-datasets')).toBeUndefined();
    await expect(axiom.datasets.get('official-datasets')).rejects.toThrow();
    // A dataset of the same name starts empty.
    await axiom.ingest('official-datasets', [{ fresh: true }]);
    expect(await rows('official-datasets', 'age, fresh')).toEqual([{ age: null, fresh: true }]);
  });

  it('answers trim and update of unknown datasets with a 404 and bad durations with a 400', async () => {
    const headers = { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' };
    const missing = await fetch(`${service.url}/v2/datasets/nope/trim`, { method: 'POST', headers, body: '{"maxDuration":"1h"}' });
    expect(missing.status).toBe(404);
    await axiom.datasets.create({ name: 'trim-input' });
    const bad = await fetch(`${service.url}/v2/datasets/trim-input/trim`, { method: 'POST', headers, body: '{"maxDuration":"1 hour"}' });
    expect(await bad.json()).toEqual({ code: 400, message: expect.stringMatching(/Invalid maxDuration "1 hour"\. Expected a duration such as "1h"/) });
    const update = await fetch(`${service.url}/v2/datasets/nope`, { method: 'PUT', headers, body: '{"description":"x"}' });
    expect(update.status).toBe(404);
    const fieldsOfMissing = await fetch(`${service.url}/v2/datasets/nope/fields`, { headers });
    expect(await fieldsOfMissing.json()).toEqual({ code: 404, message: 'Dataset "nope" not found.' });
  });
});
