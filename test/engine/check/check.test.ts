import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AplError } from '../../../src/engine/apl/errors.js';
import { parse } from '../../../src/engine/apl/parser.js';
import { checkQuery } from '../../../src/engine/check/query.js';
import { explain } from '../../../src/engine/plan/explain.js';
import type { DatasetSchema } from '../../../src/engine/schema.js';

const SCHEMA = JSON.parse(readFileSync(new URL('../../fixtures/engine/logs-schema.json', import.meta.url), 'utf8')) as DatasetSchema;
const OPTIONS = { start: 1_704_067_200_000_000_000n, end: 1_704_153_600_000_000_000n, now: 1_704_153_600_000_000_000n, defaultLimit: 1000 };

function check(apl: string) {
  return checkQuery(parse(apl), SCHEMA, OPTIONS);
}

function errorOf(apl: string): string {
  try {
    check(apl);
  } catch (error) {
    if (error instanceof AplError) return error.message;
    throw error;
  }
  throw new Error(`Expected ${apl} to fail the check.`);
}

describe('semantic check', () => {
  it('names unknown fields with the closest one', () => {
    expect(errorOf('logs | where statsu == "200"')).toBe("line 1, column 14: unknown field 'statsu'; did you mean 'status'?");
    expect(errorOf('logs | where Status == "200"')).toBe("line 1, column 14: unknown field 'Status'; did you mean 'status'?");
    expect(errorOf('logs | where geo.cty == "x"')).toBe("line 1, column 14: unknown field 'geo.cty'; did you mean 'geo.city'?");
    expect(errorOf('logs | project method | where status == "1"')).toBe("line 1, column 31: unknown field 'status'");
    expect(errorOf('logs | summarize count() by method | where bytes > 1')).toBe("line 1, column 44: unknown field 'bytes'");
    expect(errorOf('logs | project-away nope')).toBe("line 1, column 21: unknown field 'nope'");
    expect(errorOf('logs | project-away *')).toBe('line 1, column 8: this leaves no columns; keep at least one');
    expect(errorOf('logs | project-keep x*')).toBe('line 1, column 8: this leaves no columns; keep at least one');
  });

  it('names unknown functions with the closest one', () => {
    expect(errorOf('logs | extend x = tolowr(method)')).toBe("line 1, column 19: unknown function 'tolowr'; did you mean 'tolower'?");
    expect(errorOf('logs | summarize cont()')).toBe("line 1, column 18: unknown function 'cont'; did you mean 'count'?");
    expect(errorOf('logs | where count() > 1')).toMatch(/^line 1, column 14: count\(\) is an aggregation: use it in summarize/);
  });

  it('checks the number of arguments', () => {
    expect(errorOf('logs | extend x = strlen(method, status)')).toBe('line 1, column 19: strlen() expects 1 argument, got 2');
    expect(errorOf('logs | extend x = substring(method)')).toBe('line 1, column 19: substring() expects 2 to 3 arguments, got 1');
    expect(errorOf('logs | summarize percentile(duration)')).toBe('line 1, column 18: percentile() expects 2 arguments, got 1');
    expect(errorOf('logs | extend x = now(1h, 2)')).toBe('line 1, column 19: now() expects 0 to 1 arguments, got 2');
    expect(errorOf('logs | extend x = now(1)')).toBe('line 1, column 23: now() expects a timespan as argument 1, got long; write a timespan such as -5m');
    expect(errorOf('logs | summarize histogram(duration)')).toBe('line 1, column 18: histogram() expects 2 arguments, got 1');
    expect(errorOf('logs | summarize histogramif(duration, 5)')).toBe('line 1, column 18: histogramif() expects 3 arguments, got 2');
  });

  it('checks types', () => {
    expect(errorOf('logs | where strlen(method)')).toBe('line 1, column 14: where needs a bool predicate, got long');
    expect(errorOf('logs | where _time > 5')).toBe("line 1, column 14: cannot compare datetime with long using '>'");
    expect(errorOf('logs | extend x = method + 1')).toBe("line 1, column 26: '+' cannot combine string and long; join strings with strcat()");
    expect(errorOf('logs | summarize sum(method)')).toBe('line 1, column 22: sum() expects one of long, real, timespan as argument 1, got string');
    expect(errorOf('logs | extend x = strlen(bytes)')).toBe('line 1, column 26: strlen() expects one of string, dynamic as argument 1, got long; convert it with tostring()');
    expect(errorOf('logs | where ok and bytes')).toBe("line 1, column 21: 'and' needs bool operands, got long");
    expect(errorOf('logs | summarize count() by bin(_time, 5)')).toBe('line 1, column 40: bin() expects a timespan as argument 2, got long; write a timespan such as 5m');
    expect(errorOf('logs | take -1')).toMatch(/^line 1, column 13: the number of rows must be a constant integer/);
    expect(errorOf('logs | summarize percentile(duration, 101)')).toMatch(/^line 1, column 39: percentile\(\) needs a constant percentile between 0 and 100/);
    expect(errorOf('logs | summarize histogram(method, 10)')).toBe('line 1, column 28: histogram() expects one of long, real, timespan as argument 1, got string');
    expect(errorOf('logs | summarize histogram(duration, 101)')).toMatch(/^line 1, column 38: histogram\(\) needs a constant number of buckets between 1 and 100/);
    expect(errorOf('logs | summarize histogramif(duration, 5, method)')).toBe('line 1, column 43: histogramif() expects a bool as argument 3, got string');
  });

  it('compares a string field with a number as strings, and a datetime with a datetime string', () => {
    expect(explain(check('logs | where status == 200').plan)).toContain('filter eq(#8 status, "200")');
    expect(explain(check('logs | where _time > "2024-01-01T12:00:00Z"').plan)).toContain('filter gt(#2 _time, datetime(2024-01-01T12:00:00Z))');
  });
});

describe('plans', () => {
  it('scans the window, filters, and limits a raw query by default', () => {
    expect(explain(check('logs | where bytes > 10 and method has "get"').plan)).toBe(
      [
        'limit 1000 (default) order=[#2 _time desc, #10 _rowId desc]',
        '  filter and(gt(#3 bytes, 10), has~(#6 method, "get"))',
        '    scan "logs" time=[2024-01-01T00:00:00Z, 2024-01-02T00:00:00Z) columns=[#1 _sysTime, #2 _time, #3 bytes, #4 duration, #5 geo.city, #6 method, #7 ok, #8 status, #9 tags, (#10 _rowId)]',
      ].join('\n'),
    );
  });

  it('summarizes by a time bin with totals, the bin first, then sorts by the first aggregate', () => {
    expect(explain(check('logs | summarize n = count(), p95 = percentile(duration, 95) by method, bin(_time, 5m)').plan)).toBe(
      [
        'sort [#13 _time asc, #15 n desc, #11 method asc]',
        '  aggregate keys=[#13 _time = #12 _time, #11 method = #6 method] aggs=[#15 n = count(), #16 p95 = percentile(#4 duration, 95)] totals-without=#12 _time flag=#14 order=[#15 n desc, #13 _time asc, #11 method asc]',
        '    project #1 _sysTime, #2 _time, #3 bytes, #4 duration, #5 geo.city, #6 method, #7 ok, #8 status, #9 tags, (#10 _rowId), (#12 _time = bin(#2 _time, timespan(00:05:00)))',
        '      scan "logs" time=[2024-01-01T00:00:00Z, 2024-01-02T00:00:00Z) columns=[#1 _sysTime, #2 _time, #3 bytes, #4 duration, #5 geo.city, #6 method, #7 ok, #8 status, #9 tags, (#10 _rowId)]',
      ].join('\n'),
    );
  });

  it('keeps _time hidden for ordering when a projection drops it', () => {
    const plan = explain(check('logs | project method | take 3').plan);
    expect(plan.split('\n').slice(0, 2)).toEqual(['limit 3 order=[#2 _time desc, #10 _rowId desc]', '  project #6 method, (#10 _rowId), (#2 _time)']);
  });

  it('binds let values and bin_auto to constants of the query', () => {
    expect(explain(check('let w = 1h; logs | where _time > ago(w) | summarize count() by bin_auto(_time)').plan)).toContain('filter gt(#2 _time, datetime(2024-01-01T23:00:00Z))');
    expect(explain(check('logs | summarize count() by bin_auto(_time)').plan)).toContain('bin(#2 _time, timespan(00:30:00))');
  });
});
