import fc from 'fast-check';

/**
 * The hostile catalogue: bodies of every shape, for the tests that throw them at every endpoint
 * that reads one (test/common/http/any-body.test.ts, test/service/client-routes-hostile.test.ts).
 */

/** Keys the routes and the senders' parsers look at, so that generated objects get past "unknown field" checks. */
export const KEYS = [
  'datasets', 'type', 'time', 'endTime', 'title', 'description', 'url', 'id', 'name',
  'action', 'deployment', 'deployment_status', 'workflow_run', 'repository', 'object_kind', 'status', 'alerts', 'labels',
  'annotations', 'payload', 'event', 'app', 'involvedObject', 'metadata', 'reason', 'severity', 'monitor', 'state',
  'aplQuery', 'operator', 'threshold', 'intervalMinutes', 'rangeMinutes', 'notifierIds', 'properties', 'disabledUntil',
  'region', 'kind', 'edgeDeployment', 'retentionDays', 'maxDuration', 'expiresAt', 'datasetCapabilities', 'orgCapabilities',
  'existingTokenExpiresAt', 'newToken', 'newTokenExpiresAt', 'dataset', 'expression', 'unit', 'resourceSpans', 'resourceLogs',
];

export const nested = (depth: number, open: string, close: string): string => open.repeat(depth) + close.repeat(depth);

/** Bodies of every shape: any JSON, objects with known keys holding anything, deep nesting, huge strings, bytes that are not UTF-8. */
export const HOSTILE_BODIES = fc.oneof(
  fc.json().map((text) => Buffer.from(text)),
  fc.dictionary(fc.constantFrom(...KEYS), fc.jsonValue(), { maxKeys: 6 }).map((value) => Buffer.from(JSON.stringify(value))),
  fc
    .record({ depth: fc.integer({ min: 500, max: 60_000 }), key: fc.constantFrom(...KEYS), objects: fc.boolean() })
    .map(({ depth, key, objects }) =>
      Buffer.from(`{"${key}": ${objects ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : nested(depth, '[', ']')}}`),
    ),
  fc.integer({ min: 500, max: 60_000 }).map((depth) => Buffer.from(nested(depth, '[', ']'))),
  fc.integer({ min: 500, max: 20_000 }).map((depth) => Buffer.from(`{"alerts":[{"labels":{"severity":${nested(depth, '[', ']')}}}]}`)),
  fc
    .record({ key: fc.constantFrom(...KEYS), length: fc.constantFrom(600, 60_000, 70_000, 1_000_000, 1_100_000) })
    .map(({ key, length }) => Buffer.from(JSON.stringify({ [key]: 'x'.repeat(length) }))),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc
    .record({ key: fc.constantFrom(...KEYS), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => b.map((byte) => byte | 0x80)) })
    .map(({ key, bytes }) => Buffer.concat([Buffer.from(`{"${key}":"`), Buffer.from(bytes), Buffer.from('"}')])),
);

