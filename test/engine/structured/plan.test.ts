import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explain } from '../../../src/engine/plan/explain.js';
import type { DatasetSchema } from '../../../src/engine/schema.js';
import type { StructuredQueryError } from '../../../src/engine/structured/errors.js';
import { structuredErrorOf } from '../helpers/structured-error.js';
import { planStructuredQuery } from '../../../src/engine/structured/plan.js';
import { parseStructuredQuery } from '../../../src/engine/structured/request.js';

/**
 * What a structured query becomes: the logical plan APL compiles to, read with explain(), and
 * the errors found against the dataset's fields before any row is read.
 */

const SCHEMA = JSON.parse(readFileSync(new URL('../../fixtures/engine/logs-schema.json', import.meta.url), 'utf8')) as DatasetSchema;
const WINDOW = { start: 1_704_067_200_000_000_000n, end: 1_704_153_600_000_000_000n, now: 1_704_153_600_000_000_000n };

function plan(body: Record<string, unknown>): string {
  return explain(planStructuredQuery(parseStructuredQuery(body), SCHEMA, WINDOW).plan);
}

function errorOf(body: Record<string, unknown>): StructuredQueryError {
  return structuredErrorOf(() => planStructuredQuery(parseStructuredQuery(body), SCHEMA, WINDOW), body);
}

describe('the plan of a structured query', () => {
  it('pages matches newest first, reading one more than the page, with _time, _sysTime and the row id carried', () => {
    const text = plan({ limit: 10, project: [{ field: 'status' }, { field: 'geo.city', alias: 'city' }] });
    expect(text.split('\n')[0]).toBe('project #8 status, #11 city, (#2 _time), (#1 _sysTime), (#10 _rowId)');
    expect(text).toContain('limit 11 order=[#2 _time desc, #10 _rowId desc]');
    expect(text).toContain('project #1 _sysTime, #2 _time, #3 bytes, #4 duration, #5 geo.city, #6 method, #7 ok, #8 status, #9 tags, (#10 _rowId), #11 city = #5 geo.city');
  });

  it('resumes strictly after a cursor in the order of the page', () => {
    expect(plan({ cursor: '1704100000000000000-12' })).toContain(
      'filter or(lt(#2 _time, datetime(2024-01-01T09:06:40Z)), and(eq(#2 _time, datetime(2024-01-01T09:06:40Z)), lt(#10 _rowId, 12)))',
    );
    expect(plan({ cursor: '1704100000000000000-12', order: [{ field: '_time', desc: false }] })).toContain(
      'filter or(gt(#2 _time, datetime(2024-01-01T09:06:40Z)), and(eq(#2 _time, datetime(2024-01-01T09:06:40Z)), gt(#10 _rowId, 12)))',
    );
  });

  it('binds filters in APL\'s words: string ops case-insensitive unless caseSensitive, a numeric string as a number', () => {
    const text = plan({
      filter: {
        op: 'and',
        children: [
          { op: 'starts-with', field: 'method', value: 'ge' },
          { op: 'not-contains', field: 'status', value: '5', caseSensitive: true },
          { op: 'gte', field: 'bytes', value: '100' },
          { op: '==', field: 'geo.city', value: null },
          { op: 'regexp', field: 'method', value: '^P' },
        ],
      },
    });
    expect(text).toContain(
      'filter and(and(startswith~(#6 method, "ge"), not(contains(#8 status, "5"))), and(gte(#3 bytes, 100), and(isnull(#5 geo.city), regex(#6 method, "(?i)^P"))))',
    );
  });

  it('groups by a time bin and the groupBy fields, with the totals in the same pass, ordered as asked', () => {
    const text = plan({
      resolution: '1h',
      aggregations: [{ op: 'count' }, { op: 'avg', field: 'duration', alias: 'latency' }],
      groupBy: ['method'],
      order: [{ field: 'latency', desc: true }],
    });
    expect(text.split('\n').slice(0, 2)).toEqual([
      'sort [#15 _time asc, #13 latency desc, #12 count desc, #16 method asc]',
      '  aggregate keys=[#15 _time = #11 _time, #16 method = #6 method] aggs=[#12 count = count(), #13 latency = avg(#4 duration)] totals-without=#11 _time flag=#14 order=[#15 _time asc, #12 count desc, #16 method asc]',
    ]);
    expect(text).toContain('(#11 _time = bin(#2 _time, timespan(01:00:00)))');
  });

  it('divides a rate by the interval, and by the whole window in the totals', () => {
    expect(plan({ resolution: '1m', aggregations: [{ op: 'rate', field: 'bytes' }] })).toContain('#13 rate = div(todouble(#12 rate), iff(#14 _totals, 86400, 60))');
  });

  it('makes virtual fields APL expressions over the fields and the virtual fields before them', () => {
    const text = plan({
      virtualFields: [
        { alias: 'kb', expr: 'bytes / 1024.0' },
        { alias: 'big', expr: 'kb > 10' },
      ],
      aggregations: [{ op: 'count' }],
      groupBy: ['big'],
    });
    expect(text).toContain('#11 kb = div(#3 bytes, 1024)');
    expect(text).toContain('#12 big = gt(#11 kb, 10)');
  });

  it('groups an array field by its JSON text', () => {
    expect(plan({ aggregations: [{ op: 'count' }], groupBy: ['tags'] })).toContain('(#12 tags = tostring(#9 tags))');
  });
});

describe('errors found against the dataset', () => {
  it.each([
    [{ filter: { op: '==', field: 'statsu', value: 1 } }, 'filter.field', "unknown field 'statsu'; did you mean 'status'?"],
    [{ filter: { op: 'and', children: [{ op: 'exists', field: 'ok' }, { op: '>', field: 'ok', value: 1 }] } }, 'filter.children[1]', 'cannot compare bool with long'],
    [{ aggregations: [{ op: 'count' }, { op: 'sum', field: 'method' }] }, 'aggregations[1]', 'sum() expects one of long, real, timespan as argument 1, got string'],
    [{ aggregations: [{ op: 'avg', field: 'nope' }] }, 'aggregations[0].field', "unknown field 'nope'"],
    [{ aggregations: [{ op: 'histogram', field: 'method' }] }, 'aggregations[0]', 'histogram() expects one of long, real, timespan as argument 1, got string'],
    [{ aggregations: [{ op: 'argmax', field: 'duration', argument: ['method', 'nope'] }] }, 'aggregations[0].argument', "unknown field 'nope'"],
    [{ aggregations: [{ op: 'countif', argument: { op: 'contains', field: 'nope', value: 'x' } }] }, 'aggregations[0].argument.field', "unknown field 'nope'"],
    [{ aggregations: [{ op: 'count' }], groupBy: ['method', 'mehtod'] }, 'groupBy[1]', "unknown field 'mehtod'; did you mean 'method'?"],
    [{ aggregations: [{ op: 'count' }], order: [{ field: 'status' }] }, 'order[0].field', "Expected _time, a groupBy field, or an aggregation's alias"],
    [{ aggregations: [{ op: 'topk', field: 'method' }], order: [{ field: 'topk' }] }, 'order[0].field', 'arrays or objects, which have no order'],
    [{ order: [{ field: 'nope' }] }, 'order[0].field', "unknown field 'nope'"],
    [{ project: [{ field: 'status' }, { field: 'method', alias: 'status' }] }, 'project[1]', 'already has a field named "status"'],
    [{ groupBy: ['method'] }, 'groupBy', 'grouping needs at least one aggregation'],
    [{ virtualFields: [{ alias: 'v', expr: 'bytes +' }] }, 'virtualFields[0].expr', 'line 1, column 8: expected an expression'],
    [{ virtualFields: [{ alias: 'v', expr: 'strlen(methd)' }] }, 'virtualFields[0].expr', "line 1, column 8: unknown field 'methd'; did you mean 'method'?"],
    [{ virtualFields: [{ alias: 'v', expr: 'count()' }] }, 'virtualFields[0].expr', 'count() is an aggregation'],
    [{ aggregations: [{ op: 'count' }], cursor: '1-1' }, 'cursor', 'has no pages'],
    [{ order: [{ field: 'status' }], cursor: '1-1' }, 'cursor', 'order by _time alone'],
    [{ order: [{ field: 'status' }], includeCursor: true }, 'includeCursor', 'order by _time alone'],
    [{ aggregations: [{ op: 'count' }], resolution: '1s' }, 'resolution', '1s makes 86400 intervals of the time range, more than the limit of 10000. Use "auto" or a resolution of at least 9s'],
  ])('%j is refused at %s', (body, path, message) => {
    const error = errorOf(body);
    expect(error.path).toBe(path);
    expect(error.message).toContain(`Invalid ${path}`);
    expect(error.message).toContain(message);
  });

  it('points into a virtual field expression with its line and column', () => {
    expect(errorOf({ virtualFields: [{ alias: 'a', expr: '1' }, { alias: 'v', expr: 'bytes\n  + nope' }] }).replyMembers).toEqual({
      detail: { path: 'virtualFields[1].expr', line: 2, column: 5 },
    });
  });
});
