import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimemarkError } from '../../../src/common/errors.js';
import { statusOf } from '../../../src/common/http/error-reply.js';
import { FUNCTION_NAMES } from '../../../src/engine/functions/index.js';
import { runQuery, useExampleStore } from '../helpers/examples.js';

/**
 * Every registry function called with arguments of every type — fields, literals at their
 * edges, nulls, other calls — answers or fails as the client's error (a 4xx), never as a fault:
 * a new function is fuzzed as soon as it is in its family's list.
 */

const store = useExampleStore();

const ARGUMENTS = [
  'status', 'uri', 'req_duration_ms', 'resp_body_size_bytes', 'is_tls', '_time', "['geo.city']", 'message',
  '1', '-1', '0', '2.5', '-0.5', '1e308', '9223372036854775807', 'true', '1h', '-30s', 'datetime(2024-01-01)',
  '""', '"a"', '"[1,2]"', '\'{"a":1}\'', '"1h"', '"2024-01-01"', '"(a)"', '"["', '"\\\\"', '"$1"', '"%zz"', '"é€😀"', '"1 KB"',
  'dynamic([1,"a",null])', 'dynamic({"a":{"b":[1]}})', 'dynamic(null)', 'dynamic([256,-1])', 'int(null)', 'string(null)', 'real(null)', 'typeof(string)',
  // Addresses, formats and the datetime range's edges, for the ip and datetime families.
  '"10.0.0.1"', '"::ffff:1.2.3.4/100"', '"1.2.3.4/40"', '"yyyy-MM-dd"', 'datetime(2262-04-11)', 'datetime(1677-09-22)', 'dynamic(["10.0.0.0/8", "::/0"])',
];

const call = fc.tuple(fc.constantFrom(...FUNCTION_NAMES), fc.array(fc.constantFrom(...ARGUMENTS), { maxLength: 5 })).map(([fn, args]) => `${fn}(${args.join(', ')})`);
const expression = fc.oneof(
  call,
  fc.tuple(call, fc.constantFrom(...FUNCTION_NAMES)).map(([inner, fn]) => `${fn}(${inner})`),
  fc.tuple(call, call, fc.constantFrom(...FUNCTION_NAMES)).map(([a, b, fn]) => `${fn}(${a}, ${b})`),
);

describe('generated function calls on the real store', () => {
  it('answer, or fail as the client’s error, never as a fault', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(expression, async (e) => {
        const apl = `['sample-http-logs'] | extend v = ${e} | project v`;
        try {
          await runQuery(store, apl);
        } catch (error) {
          expect(error, `${apl}\n→ ${(error as Error).message}`).toBeInstanceOf(TimemarkError);
          expect(statusOf(error)).toBeLessThan(500);
        }
      }),
      { numRuns: 600 },
    );
  });

  it.each([
    // Found by the property above: extract_all with one argument reached its binding.
    'extract_all("1 KB")',
  ])('keeps the seed %s as a regular case', async (e) => {
    await expect(runQuery(store, `['sample-http-logs'] | extend v = ${e}`)).rejects.toThrow('extract_all() expects 2 to 3 arguments, got 1');
  });
});
