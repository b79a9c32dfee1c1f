import { DuckDBInstance, listValue, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureNeverEmpty } from '../../../src/engine/functions/regex-capture.js';

/**
 * captureNeverEmpty lets extract() take one regex pass instead of two: it must never claim a
 * capture is non-empty when RE2 can match with that capture empty. Checked on cases by hand and
 * against RE2 itself (DuckDB's regexp_extract) on generated patterns.
 */

describe('captureNeverEmpty', () => {
  it.each([
    ['^([A-Za-z]+)', 1, true],
    ['^(/[^/]*)', 1, true],
    ['x=([0-9.]+)', 1, true],
    ['users/(\\d+)', 1, true],
    ['(?P<id>\\w{2,})-(\\d)', 2, true],
    ['(?i)^(abc)', 1, true],
    ['(?:a|b)(c+?)', 1, true],
    ['((a)b)+', 2, true],
    ['[]a](x)', 1, true],
    ['\\x{41}(\\pL)', 1, true],
    ['a{2}', 0, true],
    ['(a{1,})', 1, true],
    ['a{,2}(b)', 1, true],
    // Can capture nothing, or may not take part in a match.
    ['b(x*)', 1, false],
    ['(a)?b', 1, false],
    ['(a)|b', 1, false],
    ['(?:(a)|b)c', 1, false],
    ['((a)b)*c', 2, false],
    ['(a{0,3})', 1, false],
    ['(^|$)', 1, false],
    ['(\\b)', 1, false],
    ['a*', 0, false],
    ['(a)', 2, false],
    // Syntax it does not read: unsure.
    ['(\\Qa)\\E)', 1, false],
    ['(a', 1, false],
    ['(?=a)(b)', 1, false],
    ['*a', 0, false],
  ] as const)('%s, group %i: %s', (pattern, group, expected) => {
    expect(captureNeverEmpty(pattern, group)).toBe(expected);
  });
});

describe('captureNeverEmpty against RE2', () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
  });
  afterAll(() => {
    connection.closeSync();
    instance.closeSync();
  });

  const piece: fc.Arbitrary<string> = fc.letrec<{ pattern: string; item: string }>((tie) => ({
    item: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('a', 'b', '1', ' ', '.', '[ab]', '[^a]', '\\d', '\\w', '\\s', '^', '$', '\\b', '\\B', '(?i)', 'x{2}', '{,2}'),
      tie('pattern').map((inner) => `(${inner})`),
      tie('pattern').map((inner) => `(?:${inner})`),
      tie('pattern').map((inner) => `(?P<n>${inner})`),
      fc.tuple(tie('item'), fc.constantFrom('*', '+', '?', '{0,2}', '{1,2}', '{2}', '*?', '+?', '??')).map(([atom, quantifier]) => `(?:${atom})${quantifier}`),
    ),
    pattern: fc.oneof(
      fc.array(tie('item'), { minLength: 1, maxLength: 4 }).map((items) => items.join('')),
      fc.tuple(tie('item'), tie('item')).map(([left, right]) => `${left}|${right}`),
    ),
  })).pattern;

  const TEXTS = ['', 'a', 'b', 'ab', 'ba', 'aa', 'a1 b', ' ', '11', 'A', 'xx', 'abab', 'b a', '1a', 'zz z'];

  it('never claims a group non-empty where RE2 matches with it empty', { timeout: 120_000 }, async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(piece, fc.integer({ min: 0, max: 3 }), async (pattern, group) => {
        if (!captureNeverEmpty(pattern, group)) return;
        let empty: unknown[][];
        try {
          const reader = await connection.runAndReadAll(
            `SELECT s FROM unnest($1::VARCHAR[]) AS t(s) WHERE regexp_matches(s, $2) AND regexp_extract(s, $2, ${group}) = ''`,
            [listValue(TEXTS), pattern],
          );
          empty = reader.getRows();
          checked++;
        } catch (error) {
          // A pattern RE2 refuses (or a group it lacks): extract reports that error either way.
          if (/Invalid Input Error|regex|group/i.test((error as Error).message)) return;
          throw error;
        }
        expect(empty, `${pattern} group ${group}`).toEqual([]);
      }),
      { numRuns: 1500 },
    );
    // The property must have had claims to check against RE2.
    expect(checked).toBeGreaterThan(100);
  });
});
