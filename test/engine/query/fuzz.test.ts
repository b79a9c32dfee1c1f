import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpLogs } from '../../../bench/lib/http-logs.mjs';
import { TimemarkError } from '../../../src/common/errors.js';
import { runApl } from '../../../src/engine/query/run-apl.js';
import { statusOf } from '../../../src/common/http/error-reply.js';
import { aplQueries } from '../helpers/apl-arbitraries.js';
import { useTestStore } from '../../helpers/event-store.js';

/**
 * Generated queries run on the real store: each either answers or fails with an error the HTTP
 * boundary answers with a 4xx. DuckDB rejecting the generated SQL would be a fault of ours (a 500).
 */

const fixture = useTestStore((store) => store.load('logs', httpLogs({ seed: 3, count: 300 })));
let fields: string[] = [];

beforeAll(async () => {
  fields = fixture.store.schema('logs')?.fields.map((field) => field.name) ?? [];
});

async function expectClientOutcome(apl: string): Promise<void> {
  try {
    await runApl({ apl, format: 'tabular', startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-03T00:00:00Z' }, { reader: fixture.store });
  } catch (error) {
    expect(error, `${apl}\n→ ${(error as Error).message}`).toBeInstanceOf(TimemarkError);
    expect(statusOf(error)).toBeLessThan(500);
  }
}

describe('generated queries on the real store', () => {
  it('answer, or fail as the client’s error, never as a fault', { timeout: 180_000 }, async () => {
    await fc.assert(fc.asyncProperty(aplQueries(fields), expectClientOutcome), { numRuns: 400 });
  });

  it.each([
    // Found by the property above: a count of a count lost the carried matched-rows column.
    'logs | count | count',
    'logs | search "x" | summarize count() by bin_auto(_time), method | summarize count() by bin_auto(_time), method',
    // Found by the property above: between with ends of different types reached DuckDB unconverted.
    'logs | where -852 between ("[O23WtJW" .. 282)',
    'logs | where -resp_body_size_bytes between (-776 .. "`Q#Fkg")',
    'logs | sort by true between ("*ST_^g" .. dynamic(["a", 1])) asc',
  ])('keeps the seed %j as a regular case', async (apl) => {
    await expectClientOutcome(apl);
  });
});
