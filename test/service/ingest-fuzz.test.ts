import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useLocalService } from '../helpers/local-service.js';

const service = useLocalService();

const CONTENT_TYPES = ['application/json', 'application/x-ndjson', 'text/csv', 'text/plain', 'application/json; charset=utf-8', ''];

const nested = fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => {
  const close = open === '[' ? ']' : '}';
  return open.repeat(depth) + '1' + close.repeat(depth);
});

/** Bodies of every kind a client could send, well-formed or not. */
const bodies = fc.oneof(
  fc.jsonValue().map((value) => ({ body: Buffer.from(JSON.stringify(value) ?? 'null'), encoding: undefined })),
  fc.array(fc.jsonValue(), { maxLength: 30 }).map((values) => ({ body: Buffer.from(values.map((value) => JSON.stringify(value)).join('\n')), encoding: undefined })),
  fc.array(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), { maxLength: 30 }).map((events) => ({
    body: gzipSync(events.map((event) => JSON.stringify(event)).join('\n')),
    encoding: 'gzip',
  })),
  fc.uint8Array({ maxLength: 2000 }).map((bytes) => ({ body: Buffer.from(bytes), encoding: undefined })),
  fc.uint8Array({ maxLength: 500 }).map((bytes) => ({ body: Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), bytes]), encoding: 'gzip' })),
  fc.uint8Array({ maxLength: 500 }).map((bytes) => ({ body: Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), bytes]), encoding: 'zstd' })),
  fc.string({ unit: 'binary', maxLength: 1000 }).map((text) => ({ body: Buffer.from(text), encoding: undefined })),
  nested.map((text) => ({ body: Buffer.from(`${text}\n${text}`), encoding: undefined })),
);

const requests = fc.record({
  payload: bodies,
  contentType: fc.constantFrom(...CONTENT_TYPES),
  labels: fc.option(fc.oneof(fc.string(), fc.jsonValue().map((value) => JSON.stringify(value) ?? '')), { nil: undefined }),
  timestampField: fc.option(fc.constantFrom('_time', 'ts', 'a', 'a.b', ''), { nil: undefined }),
  timestampFormat: fc.option(fc.constantFrom('2006-01-02', 'Jan _2 15:04:05', 'xyz'), { nil: undefined }),
});

async function storedRows(dataset: string): Promise<bigint> {
  const schema = service.service.events.schema(dataset);
  if (!schema) return 0n;
  return service.service.events.read({ timeoutMs: 10_000, maxRows: 1 }, async (run) => (await run(`SELECT count(*) FROM ${schema.table}`, [])).columns[0]?.[0] as bigint);
}

describe('ingest under arbitrary bodies', () => {
  it('answers JSON with a 2xx or 4xx, stays healthy, and stores exactly what it acknowledged', async () => {
    const dataset = 'fuzz';
    let expected = 0n;
    await fc.assert(
      fc.asyncProperty(requests, async ({ payload, contentType, labels, timestampField, timestampFormat }) => {
        const headers: Record<string, string> = { authorization: `Bearer ${service.token}` };
        if (contentType) headers['content-type'] = contentType;
        if (payload.encoding) headers['content-encoding'] = payload.encoding;
        if (labels !== undefined) headers['x-axiom-event-labels'] = labels.replace(/[\r\n]/g, ' ');
        const query = new URLSearchParams();
        if (timestampField !== undefined) query.set('timestamp-field', timestampField);
        if (timestampFormat !== undefined) query.set('timestamp-format', timestampFormat);
        const response = await fetch(`${service.url}/v1/datasets/${dataset}/ingest?${query}`, { method: 'POST', headers, body: payload.body });
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const reply = (await response.json()) as Record<string, unknown>;
        expect([200, 400, 413, 415]).toContain(response.status);
        if (response.status === 200) {
          expect(reply).toEqual({
            ingested: expect.any(Number),
            failed: expect.any(Number),
            failures: expect.any(Array),
            processedBytes: expect.any(Number),
            blocksCreated: 0,
            walLength: expect.any(Number),
          });
          expect((reply.failures as unknown[]).length).toBe(reply.failed);
          expected += BigInt(reply.ingested as number);
        } else {
          expect(reply).toEqual({ code: response.status, message: expect.any(String) });
        }
        expect(await storedRows(dataset)).toBe(expected);
      }),
      { numRuns: 200 },
    );
    const health = await fetch(`${service.url}/healthz`);
    expect(health.status).toBe(200);
  }, 240_000);
});
