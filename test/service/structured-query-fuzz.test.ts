import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpLogs } from '../../bench/lib/http-logs.mjs';
import { AGGREGATION_OPS, FILTER_OP_ALIASES, LEAF_OPS, LOGICAL_OPS } from '../../src/engine/structured/request.js';
import { aplTokenSoup } from '../engine/helpers/apl-arbitraries.js';
import { useLocalService } from '../helpers/local-service.js';

/**
 * Whatever body a client posts to the structured query endpoint — arbitrary JSON, or requests
 * built from the request's own vocabulary with wrong types, unknown names, odd values and deep
 * trees — the answer is a 200 with a result or a 400 that says what is wrong, never a 5xx.
 */

const service = useLocalService();

beforeAll(async () => {
  const response = await fetch(`${service.url}/v1/datasets/logs/ingest`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${service.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify([...httpLogs({ seed: 3, count: 300 })]),
  });
  expect(response.status).toBe(200);
});

const junk = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined));
const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | unknown> => fc.oneof({ weight: 4, arbitrary }, { weight: 1, arbitrary: junk });

const fieldName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('status', 'method', 'req_duration_ms', 'resp_body_size_bytes', 'geo.city', 'tags', 'is_tls', 'user_id', '_time', '_sysTime') },
  { weight: 1, arbitrary: fc.constantFrom('', '*', '_rowId', 'geo', 'tags.0', 'a..b', 'nosuchfield', "x'; DROP TABLE ds_1; --", '"f1"') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

const filterOp = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...LOGICAL_OPS, ...LEAF_OPS, ...Object.keys(FILTER_OP_ALIASES)) },
  { weight: 1, arbitrary: fc.constantFrom('', 'AND', 'Starts-With', 'like', 'in') },
  { weight: 1, arbitrary: junk },
);

const value = fc.oneof(
  fc.constantFrom('500', '200', 'GET', '/api', '^/api/v[12]', '(', '[', '2024-01-01T06:00:00Z', '10.5', 'São Paulo', ''),
  fc.integer({ min: -1000, max: 100_000 }),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  junk,
);

const { filter } = fc.letrec<{ filter: unknown }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ op: filterOp, field: maybe(fieldName), value, caseSensitive: maybe(fc.boolean()) }, { requiredKeys: ['op'] }),
    fc.record({ op: filterOp, children: maybe(fc.array(tie('filter'), { maxLength: 4 })), field: maybe(fieldName) }, { requiredKeys: ['op'] }),
    fc.constant({ op: '', field: '', value: null, caseSensitive: false, children: null }),
    junk,
  ),
}));

const aggregation = fc.record(
  {
    op: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...AGGREGATION_OPS, 'COUNT', 'Avg') }, { weight: 1, arbitrary: junk }),
    field: maybe(fieldName),
    alias: maybe(fc.oneof(fc.constantFrom('n', 'count', 'status', '_time'), fc.string({ maxLength: 6 }))),
    argument: fc.oneof(
      fc.integer({ min: -5, max: 200 }),
      fc.array(fc.oneof(fc.integer({ min: -5, max: 105 }), junk), { maxLength: 4 }),
      filter,
      fieldName,
      fc.array(fieldName, { maxLength: 3 }),
      junk,
    ),
  },
  { requiredKeys: [] },
);

const expression = fc.oneof(
  fc.constantFrom('req_duration_ms > 100', 'strlen(method)', 'toint(status) >= 500', 'tostring(tags)', 'now()', 'count()', 'bytes +', 'tags[0]', 'iff(is_tls, 1, 0.5)', ''),
  aplTokenSoup(),
);

const structuredRequest = fc.record(
  {
    startTime: fc.oneof(fc.constantFrom('2024-01-01T00:00:00Z', '0001-01-01T00:00:00Z', 'now-1d', 'now-400d', '', 'yesterday'), junk),
    endTime: fc.oneof(fc.constantFrom('2024-01-02T00:00:00Z', '2023-01-01T00:00:00Z', 'now', '2024-01-01T00:00:00.000000001Z'), junk),
    aggregations: maybe(fc.array(aggregation, { maxLength: 4 })),
    filter,
    groupBy: maybe(fc.array(fieldName, { maxLength: 3 })),
    order: maybe(fc.array(fc.record({ field: maybe(fieldName), desc: maybe(fc.boolean()) }), { maxLength: 3 })),
    project: maybe(fc.array(fc.record({ field: maybe(fieldName), alias: maybe(fc.string({ maxLength: 6 })) }), { maxLength: 3 })),
    virtualFields: maybe(fc.array(fc.record({ alias: maybe(fc.constantFrom('v', 'w', 'status', '_time', '')), expr: maybe(expression) }), { maxLength: 3 })),
    limit: fc.oneof(fc.integer({ min: -2, max: 60_000 }), fc.constantFrom(0, 1, 1.5, '10'), junk),
    resolution: fc.oneof(fc.constantFrom('auto', '', '1m0s', '5m', '1s', '1ns', '0', '1h30m', '-1m', 'x', '1d'), junk),
    cursor: fc.oneof(fc.constantFrom('', '1704100000000000000-12', '-5-3', '99999999999999999999-1', '1-99999999999999999999', 'abc'), junk),
    continuationToken: fc.oneof(fc.constantFrom('', '1704100000000000000-12'), junk),
    includeCursor: maybe(fc.boolean()),
    queryOptions: fc.oneof(fc.constant({ against: '', caseSensitive: 'false' }), junk),
  },
  { requiredKeys: [] },
);

describe('the structured query endpoint under arbitrary requests', () => {
  it('answers 200 with a result or 400 with a message, never a server error', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 1, arbitrary: fc.jsonValue() }, { weight: 6, arbitrary: structuredRequest }), async (body) => {
        const response = await fetch(`${service.url}/v1/datasets/logs/query?nocache=true`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${service.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body) ?? 'null',
        });
        const reply = (await response.json()) as Record<string, unknown>;
        expect([200, 400], JSON.stringify({ body, reply })).toContain(response.status);
        if (response.status === 400) {
          expect(reply.code).toBe(400);
          expect(typeof reply.message).toBe('string');
          expect(String(reply.message).length).toBeGreaterThan(10);
        } else {
          expect(Object.keys(reply).sort()).toEqual(['buckets', 'fieldsMeta', 'matches', 'status']);
        }
      }),
      { numRuns: 300 },
    );
  });
});
