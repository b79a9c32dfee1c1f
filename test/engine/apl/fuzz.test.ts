import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AplError } from '../../../src/engine/apl/errors.js';
import { parse } from '../../../src/engine/apl/parser.js';
import { checkQuery } from '../../../src/engine/check/query.js';
import type { DatasetSchema } from '../../../src/engine/schema.js';
import { compilePlan } from '../../../src/engine/sql/compile.js';
import { aplQueries, aplTokenSoup } from '../helpers/apl-arbitraries.js';

/**
 * Property tests of the front end: no text makes it throw anything but a positioned AplError,
 * and every query that passes the check compiles to SQL.
 */

const SCHEMA = JSON.parse(readFileSync(new URL('../../fixtures/engine/logs-schema.json', import.meta.url), 'utf8')) as DatasetSchema;
const OPTIONS = { start: 1_704_067_200_000_000_000n, end: 1_704_153_600_000_000_000n, now: 1_704_153_600_000_000_000n, defaultLimit: 1000 };

/** Parses, checks and compiles; returns the AplError if one is thrown, rethrows anything else. */
function frontEnd(text: string): AplError | undefined {
  try {
    compilePlan(checkQuery(parse(text), SCHEMA, OPTIONS).plan);
    return undefined;
  } catch (error) {
    if (error instanceof AplError) return error;
    throw error;
  }
}

/** The error points inside the text: an existing line, a column at most one past its end. */
function expectPositioned(text: string, error: AplError): void {
  const lines = text.split('\n');
  expect(error.line).toBeGreaterThanOrEqual(1);
  expect(error.line).toBeLessThanOrEqual(lines.length);
  expect(error.column).toBeGreaterThanOrEqual(1);
  expect(error.column).toBeLessThanOrEqual([...(lines[error.line - 1] ?? '')].length + 1);
  expect(error.message).toMatch(/^line \d+, column \d+: \S/);
}

describe('APL front end under fuzzing', () => {
  it('answers any text with a result or a positioned AplError', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const error = frontEnd(text);
        if (error) expectPositioned(text, error);
      }),
      { numRuns: 3000 },
    );
  });

  it('answers token soups with a result or a positioned AplError', () => {
    fc.assert(
      fc.property(aplTokenSoup(), (text) => {
        const error = frontEnd(text);
        if (error) expectPositioned(text, error);
      }),
      { numRuns: 3000 },
    );
  });

  it('compiles every generated query that passes the check', () => {
    fc.assert(
      fc.property(aplQueries(SCHEMA.fields.map((field) => field.name)), (text) => {
        const error = frontEnd(text);
        if (error) expectPositioned(text, error);
      }),
      { numRuns: 2000 },
    );
  });
});
