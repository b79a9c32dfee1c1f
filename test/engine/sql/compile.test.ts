import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/engine/apl/parser.js';
import { checkQuery } from '../../../src/engine/check/query.js';
import type { DatasetSchema } from '../../../src/engine/schema.js';
import { compilePlan } from '../../../src/engine/sql/compile.js';
import { quoteIdentifier, quoteString, sqlInteger, sqlReal } from '../../../src/engine/sql/quote.js';

const SCHEMA = JSON.parse(readFileSync(new URL('../../fixtures/engine/logs-schema.json', import.meta.url), 'utf8')) as DatasetSchema;
const OPTIONS = { start: 1_704_067_200_000_000_000n, end: 1_704_153_600_000_000_000n, now: 1_704_153_600_000_000_000n, defaultLimit: 1000 };

function compile(apl: string, options: { examinedKnown?: boolean; rowCap?: number } = {}) {
  return compilePlan(checkQuery(parse(apl), SCHEMA, OPTIONS).plan, options);
}

describe('SQL compiler', () => {
  it('binds every value as a typed parameter and refers to columns by generated names', () => {
    const { sql, params } = compile('logs | where status == "500" and duration > 1.5 and _time > ago(1h) | count');
    expect(params).toEqual([OPTIONS.start, OPTIONS.end, '500', 1.5, OPTIONS.now - 3_600_000_000_000n]);
    // Filters on the scan join its WHERE, on the table's generated column names.
    expect(sql).toContain('FROM "ds_1" WHERE "_time" >= $1::BIGINT AND "_time" < $2::BIGINT AND ((("f1" = $3::VARCHAR) AND ("f3" > $4::DOUBLE)) AND ("_time" > $5::BIGINT))');
    expect(sql).not.toMatch(/status|duration/);
  });

  it('reads only the columns the query needs', () => {
    const { sql } = compile('logs | where status == "500" | summarize avg(duration) by method');
    const scanned = [...sql.matchAll(/"(f\d+|_time|_systime|_rowid)" AS/g)].map((match) => match[1]);
    // status (f1) is only filtered on, in the scan's WHERE.
    expect(scanned.sort()).toEqual(['f2', 'f3']);
    expect(sql).toContain('("f1" = $3::VARCHAR)');
  });

  it('orders only where order matters: the limit and the result', () => {
    const { sql } = compile('logs | sort by bytes asc | take 5 | project method');
    expect(sql.match(/ORDER BY/g)).toHaveLength(2);
    expect(sql).toContain('ORDER BY "c3" ASC NULLS FIRST, "c2" DESC NULLS LAST, "c10" DESC NULLS LAST LIMIT 5');
  });

  it('sorts a limit at the root once, and a result of one row not at all', () => {
    const limited = compile('logs | summarize n = count() by method | sort by n asc | take 5').sql;
    expect(limited.match(/ORDER BY/g)).toHaveLength(1);
    expect(limited).toMatch(/ORDER BY "c\d+" ASC NULLS FIRST, "c\d+" ASC NULLS FIRST LIMIT 5$/);
    expect(compile('logs | where status == "500" | summarize count(), avg(duration)').sql).not.toContain('ORDER BY');
  });

  it('keeps the rowsExamined subquery out of a root limit, so that the Top-N reads the scan directly', () => {
    const order = 'ORDER BY "c3" ASC NULLS FIRST, "c2" DESC NULLS LAST, "c10" DESC NULLS LAST';
    const limited = compile('logs | sort by bytes asc | project method | take 5').sql;
    // The limit alone inside; its five rows sorted again outside, beside the counter.
    expect(limited).toContain(`${order} LIMIT 5) AS q ${order}`);
    expect(limited.endsWith(order)).toBe(true);
    expect(limited.indexOf('SELECT count(*)')).toBeLessThan(limited.indexOf(`${order} LIMIT 5`));
    // One row needs no second sort.
    expect(compile('logs | sort by bytes asc | take 1').sql).toMatch(/LIMIT 1\) AS q$/);
  });

  it('is one statement unless an empty result could hide the rows examined', () => {
    const counters = (apl: string) => {
      const { examined, matched } = compile(apl);
      return [examined?.fallback !== undefined, matched?.fallback !== undefined];
    };
    // A keyless aggregation always has a row to carry the counters.
    expect(counters('logs | where status == "500" | count')).toEqual([false, false]);
    // Without a filter an empty result means an empty window: both counters are 0.
    expect(counters('logs | summarize count() by method')).toEqual([false, false]);
    expect(counters('logs | take 3')).toEqual([false, false]);
    // A filter can empty the result while rows were examined: the counters need their own statements.
    expect(counters('logs | where status == "500"')).toEqual([true, true]);
    expect(counters('logs | where status == "500" | summarize count() by method')).toEqual([true, true]);
    expect(counters('logs | summarize n = count() by method | where n > 5')).toEqual([true, false]);
    expect(counters('logs | take 0')).toEqual([true, false]);
  });

  it('leaves the window count out when the caller knows it, and only then', () => {
    const windowCount = 'SELECT count(*) FROM "ds_1" WHERE "_time" >= $1::BIGINT AND "_time" < $2::BIGINT) AS "x"';
    const filtered = 'logs | where status == "500" | count';
    expect(compile(filtered).sql).toContain(windowCount);
    const known = compile(filtered, { examinedKnown: true });
    expect(known.sql).not.toContain('AS "x"');
    expect(known.examined).toBeUndefined();
    expect(known.matched).toEqual({ column: 'm' });
    // A root limit without a counter beside it needs no second sort outside.
    const limited = compile('logs | sort by bytes asc | take 5', { examinedKnown: true });
    expect(limited.sql.match(/ORDER BY/g)).toHaveLength(1);
    expect(limited.examined).toBeUndefined();
    expect(limited.matched).toBeUndefined();
    // An unfiltered aggregation counts the window anyway, as its own input.
    expect(compile('logs | summarize count() by method', { examinedKnown: true }).examined).toEqual({ column: 'm' });
    // A filter that can empty the result still has its matched count's own statement.
    const raw = compile('logs | where status == "500"', { examinedKnown: true });
    expect(raw.examined).toBeUndefined();
    expect(raw.matched?.fallback).toBeDefined();
  });

  it('stops a statement at the row cap, within a root limit, and not a one-row result', () => {
    expect(compile('logs | summarize count() by method', { rowCap: 51 }).sql).toMatch(/ORDER BY [^)]+ LIMIT 51$/);
    expect(compile('logs | take 500', { rowCap: 51 }).sql).toMatch(/LIMIT 51\) AS q ORDER BY [^)]+$/);
    expect(compile('logs | take 5', { rowCap: 51, examinedKnown: true }).sql).toMatch(/ LIMIT 5$/);
    // The default limit's extra row, to tell whether rows were left out, fits under the cap.
    expect(compile('logs | where status == "500"', { rowCap: 1001 }).sql).toMatch(/ LIMIT 1001\) AS q ORDER BY [^)]+$/);
    expect(compile('logs | where status == "500"', { rowCap: 500 }).sql).toMatch(/ LIMIT 500\) AS q ORDER BY [^)]+$/);
    expect(compile('logs | where status == "500" | count', { rowCap: 51 }).sql).not.toContain('LIMIT');
  });

  it('aggregates a time series and its totals in one pass with grouping sets', () => {
    const { sql } = compile('logs | summarize count() by bin(_time, 1m), method');
    expect(sql).toMatch(/GROUP BY GROUPING SETS \(\("c\d+", "c6"\), \("c6"\)\)/);
    expect(sql).toContain('GROUPING(');
  });
});

describe('quoting', () => {
  it('doubles quotes, refuses NUL, and writes numbers from their values', () => {
    expect(quoteIdentifier('a"b')).toBe('"a""b"');
    expect(quoteString("it's")).toBe("'it''s'");
    expect(() => quoteIdentifier('a\0b')).toThrow(/NUL/);
    expect(() => quoteString('a\0b')).toThrow(/NUL/);
    expect(sqlInteger(-5n)).toBe('(-5)');
    expect(sqlReal(0.95)).toBe('0.95::DOUBLE');
    expect(() => sqlReal(Number.NaN)).toThrow();
  });
});
