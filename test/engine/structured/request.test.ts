import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { StructuredQueryError } from '../../../src/engine/structured/errors.js';
import { structuredErrorOf } from '../helpers/structured-error.js';
import { AGGREGATION_OPS, parseStructuredQuery } from '../../../src/engine/structured/request.js';

/** A request as the Go client sends it: every key, most of them zero values. */
const goRequest: unknown = JSON.parse(readFileSync(new URL('../../fixtures/engine/structured-go-request.json', import.meta.url), 'utf8'));

function errorOf(body: unknown): StructuredQueryError {
  return structuredErrorOf(() => parseStructuredQuery(body), body);
}

describe('reading a structured query', () => {
  it('reads an empty body as a raw query of the default page size', () => {
    expect(parseStructuredQuery({})).toEqual({
      startTime: undefined,
      endTime: undefined,
      aggregations: [],
      filter: undefined,
      groupBy: [],
      order: [],
      project: [],
      virtualFields: [],
      limit: 1000,
      limitIsDefault: true,
      resolution: 'auto',
      cursor: undefined,
      includeCursor: false,
    });
  });

  it('reads the Go client\'s every-key request, where null, "", 0 and {"op": ""} mean not given', () => {
    const query = parseStructuredQuery(goRequest);
    expect(query.filter).toBeUndefined();
    expect(query.limit).toBe(1000);
    expect(query.cursor).toBeUndefined();
    expect(query.includeCursor).toBe(false);
    expect(query.resolution).toBe(60_000_000_000n);
    expect(query.aggregations).toEqual([
      { op: 'count', field: undefined, alias: 'event_count', label: 'event_count', argument: { kind: 'none' }, path: 'aggregations[0]' },
    ]);
    expect(query.project).toEqual([{ field: 'remote_ip', alias: 'ip', path: 'project[0]' }]);
    expect(query.virtualFields).toEqual([{ alias: 'success', expr: 'toint(response) < 400', path: 'virtualFields[0]' }]);
  });

  it('reads ops in any case and filter aliases as the ops they stand for', () => {
    const query = parseStructuredQuery({
      aggregations: [{ op: 'COUNT' }, { op: 'Avg', field: 'd' }],
      filter: { op: 'AND', children: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'].map((op) => ({ op, field: 'x', value: 1 })) },
    });
    expect(query.aggregations.map((a) => a.label)).toEqual(['count', 'avg']);
    expect(query.filter?.op).toBe('and');
    expect(query.filter?.children.map((child) => child.op)).toEqual(['==', '!=', '>', '>=', '<', '<=']);
  });

  it('knows every aggregation op of wire.md', () => {
    for (const op of AGGREGATION_OPS) {
      const argument = op === 'percentiles' ? 95 : op.endsWith('if') ? { op: 'exists', field: 'x' } : null;
      expect(parseStructuredQuery({ aggregations: [{ op, field: 'x', argument }] }).aggregations[0]?.op).toBe(op);
    }
  });

  it('reads resolutions as Go durations, and auto, "", "0s" and null as auto', () => {
    expect(parseStructuredQuery({ resolution: '1h30m0s' }).resolution).toBe(5_400_000_000_000n);
    expect(parseStructuredQuery({ resolution: '250ms' }).resolution).toBe(250_000_000n);
    for (const resolution of ['auto', '', '0s', null]) expect(parseStructuredQuery({ resolution }).resolution).toBe('auto');
  });

  it('reads a cursor from either cursor or continuationToken, and the same one in both', () => {
    const position = { time: 1_704_067_200_123_000_000n, rowId: 42n };
    expect(parseStructuredQuery({ cursor: '1704067200123000000-42' }).cursor).toEqual(position);
    expect(parseStructuredQuery({ continuationToken: '1704067200123000000-42' }).cursor).toEqual(position);
    expect(parseStructuredQuery({ cursor: '1704067200123000000-42', continuationToken: '1704067200123000000-42' }).cursor).toEqual(position);
    expect(parseStructuredQuery({ cursor: '-86400000000000-7' }).cursor).toEqual({ time: -86_400_000_000_000n, rowId: 7n });
  });

  it('drops empty filters among children and lets an empty and restrict nothing', () => {
    const query = parseStructuredQuery({ filter: { op: 'and', children: [{ op: '' }, { op: 'exists', field: 'a' }, null] } });
    expect(query.filter).toMatchObject({ op: 'and', children: [{ op: 'exists', field: 'a', path: 'filter.children[1]' }] });
  });

  it.each([
    [[], '', 'must be a JSON object'],
    [{ aggregations: {} }, 'aggregations', 'Expected an array'],
    [{ aggregations: [{ op: 'count' }, { op: 'avgg', field: 'x' }] }, 'aggregations[1].op', 'Did you mean "avg"?'],
    [{ aggregations: [{ field: 'x' }] }, 'aggregations[0].op', 'Missing aggregations[0].op'],
    [{ aggregations: [{ op: 3 }] }, 'aggregations[0].op', 'Expected an aggregation op as a string'],
    [{ aggregations: ['count'] }, 'aggregations[0]', 'Expected a JSON object'],
    [{ aggregations: [{ op: 'avg' }] }, 'aggregations[0].field', 'needs the field it aggregates'],
    [{ aggregations: [{ op: 'sum', field: '*' }] }, 'aggregations[0].field', 'needs the field it aggregates'],
    [{ aggregations: [{ op: 'avg', field: 7 }] }, 'aggregations[0].field', 'Expected a field name as a string'],
    [{ aggregations: [{ op: 'avg', field: 'x', alias: 1 }] }, 'aggregations[0].alias', 'Expected a string'],
    [{ aggregations: [{ op: 'topk', field: 'x', argument: 0 }] }, 'aggregations[0].argument', 'from 1 to 10000'],
    [{ aggregations: [{ op: 'histogram', field: 'x', argument: 2.5 }] }, 'aggregations[0].argument', 'the number of buckets'],
    [{ aggregations: [{ op: 'percentiles', field: 'x' }] }, 'aggregations[0].argument', 'Missing aggregations[0].argument'],
    [{ aggregations: [{ op: 'percentiles', field: 'x', argument: [50, 101] }] }, 'aggregations[0].argument[1]', 'from 0 to 100'],
    [{ aggregations: [{ op: 'countif' }] }, 'aggregations[0].argument', 'needs its condition'],
    [{ aggregations: [{ op: 'countif', argument: { op: '==', field: 'x', value: {} } }] }, 'aggregations[0].argument.value', 'Expected a string, a number'],
    [{ aggregations: [{ op: 'argmax', field: 'x', argument: [1] }] }, 'aggregations[0].argument[0]', 'Expected a field name'],
    [{ filter: 'status == 500' }, 'filter', 'Expected a JSON object'],
    [{ filter: { op: 'and', children: [{ op: '==', field: 'a', value: {} }] } }, 'filter.children[0].value', 'Expected a string, a number'],
    [{ filter: { op: 'or', children: [{ op: 'exists', field: 'a' }, { op: 'like', field: 'a', value: 'x' }] } }, 'filter.children[1].op', 'Expected one of'],
    [{ filter: { op: 'equals', field: 'a', value: 1 } }, 'filter.op', 'Expected one of'],
    [{ filter: { op: 5 } }, 'filter.op', 'Expected a filter op as a string'],
    [{ filter: { op: '==', value: 1 } }, 'filter.field', 'Missing filter.field'],
    [{ filter: { op: '>', field: 'a', value: null } }, 'filter.value', 'Expected a number, or a string'],
    [{ filter: { op: '>', field: 'a', value: true } }, 'filter.value', 'Expected a number, or a string'],
    [{ filter: { op: 'contains', field: 'a', value: ['x'] } }, 'filter.value', 'Expected the text to match'],
    [{ filter: { op: 'contains', field: 'a', value: 'x', caseSensitive: 'yes' } }, 'filter.caseSensitive', 'Expected true or false'],
    [{ filter: { op: 'and', children: {} } }, 'filter.children', 'Expected an array'],
    [{ filter: { op: '', children: [{ op: 'exists', field: 'a' }] } }, 'filter.op', 'has children but no op'],
    [{ filter: { op: 'not', children: [] } }, 'filter.children', '"not" negates its children'],
    [{ groupBy: ['a', 2] }, 'groupBy[1]', 'Expected a field name as a string'],
    [{ groupBy: ['a', 'a'] }, 'groupBy[1]', 'listed twice'],
    [{ order: [{ field: 'a', desc: 'yes' }] }, 'order[0].desc', 'Expected true or false'],
    [{ order: [{ desc: true }] }, 'order[0].field', 'Missing order[0].field'],
    [{ project: [{ alias: 'x' }] }, 'project[0].field', 'Missing project[0].field'],
    [{ virtualFields: [{ alias: '_time', expr: '1' }] }, 'virtualFields[0].alias', 'every match has it'],
    [{ virtualFields: [{ alias: 'v' }] }, 'virtualFields[0].expr', 'Missing virtualFields[0].expr'],
    [{ virtualFields: [{ alias: 'v', expr: 1 }] }, 'virtualFields[0].expr', 'Expected an APL expression as a string'],
    [{ virtualFields: [{ alias: 'v', expr: '1' }, { alias: 'v', expr: '2' }] }, 'virtualFields[1].alias', 'defined twice'],
    [{ limit: -1 }, 'limit', 'from 1 to 50000'],
    [{ limit: 1.5 }, 'limit', 'from 1 to 50000'],
    [{ limit: 50_001 }, 'limit', 'from 1 to 50000'],
    [{ limit: '10' }, 'limit', 'from 1 to 50000'],
    [{ resolution: '5 minutes' }, 'resolution', 'Expected "auto" or a duration'],
    [{ resolution: 60 }, 'resolution', 'Expected "auto" or a duration'],
    [{ cursor: 'abc' }, 'cursor', 'Expected a cursor from an earlier result'],
    [{ cursor: '1-2', continuationToken: '1-3' }, 'continuationToken', 'names another row than cursor'],
    [{ includeCursor: 'true' }, 'includeCursor', 'Expected true or false'],
    [{ queryOptions: 'x' }, 'queryOptions', 'Expected a JSON object'],
    [{ startTime: 5 }, 'startTime', 'Expected an RFC 3339 time'],
  ])('refuses %j, naming %s', (body, path, message) => {
    const error = errorOf(body);
    expect(error.path).toBe(path);
    expect(error.message).toContain(message);
    if (path !== '') expect(error.message).toContain(path);
    expect(error.replyMembers).toEqual({ detail: { path } });
  });

  it('bounds the nesting and the number of filter conditions', () => {
    let deep: unknown = { op: 'exists', field: 'a' };
    for (let i = 0; i < 40; i++) deep = { op: 'not', children: [deep] };
    expect(errorOf({ filter: deep }).message).toContain('more than the limit of 32');
    const wide = { op: 'and', children: Array.from({ length: 999 }, () => ({ op: 'or', children: [{ op: 'exists', field: 'a' }] })) };
    expect(errorOf({ filter: wide }).message).toContain('more than 1000 filter conditions');
  });
});
