import { describe, expect, it } from 'vitest';
import { httpLogs } from '../../../bench/lib/http-logs.mjs';
import { statusOf } from '../../../src/common/http/error-reply.js';
import type { QueryLimits } from '../../../src/engine/query/execute.js';
import { runApl } from '../../../src/engine/query/run-apl.js';
import { runStructured } from '../../../src/engine/query/run-structured.js';
import { parseStructuredQuery } from '../../../src/engine/structured/request.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { useTestStore } from '../../helpers/event-store.js';

/** The per-query limits: time, rows, result bytes, query length; and cancellation. */

const COUNT = 100_000;
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-03T00:00:00Z' };
/** Minutes of work: a regular expression too large for RE2's fast automaton, over every message. It ends only when stopped. */
const HEAVY = 'logs | where strcat(message, user_agent) matches regex "(.{0,80}[0-9]{2,}.{0,80}){3,}Z" | count';

const fixture = useTestStore((store) => store.load('logs', httpLogs({ seed: 5, count: COUNT })), { loadTimeoutMs: 120_000 });

function run(apl: string, limits: Partial<QueryLimits> = {}, signal?: AbortSignal): Promise<TabularResult> {
  return runApl({ apl, format: 'tabular', ...WINDOW }, { reader: fixture.store, limits, ...(signal ? { signal } : {}) }).then(({ result }) => result as TabularResult);
}

describe('query limits', () => {
  it('stops a query past its time budget with a clear 400, and the store keeps answering', async () => {
    const error = await run(HEAVY, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'query_timeout', message: expect.stringMatching(/did not finish within its time limit of 300 ms/) });
    expect(statusOf(error)).toBe(400);
    const after = await run('logs | count');
    expect(after.tables[0]?.columns).toEqual([[COUNT]]);
  });

  it('stops a join, a make-series and an mv-expand past their time budget', async () => {
    // Every row paired with every row of its method: billions of pairs.
    for (const apl of [
      'logs | join kind=inner logs on method | count',
      // The arrays are read, so that no plan can leave them out: four series of 48 bins for each of
      // the ~100,000 messages (about a second of work), under the 10,000,000 values that make-series
      // refuses before building (a larger one is refused, not timed out, when the refusal comes first).
      'logs | make-series n = count(), b = sum(resp_body_size_bytes), d = avg(req_duration_ms), h = max(resp_header_size_bytes) on _time from datetime(2024-01-01) to datetime(2024-01-03) step 1h by message ' +
        '| summarize sum(array_length(n)), sum(array_length(b)), sum(array_length(d)), sum(array_length(h))',
      'logs | extend a = range(1, 100000) | mv-expand a | summarize sum(toint(a))',
    ]) {
      const started = Date.now();
      const error = await run(apl, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect(error, apl).toMatchObject({ code: 'query_timeout' });
      expect(Date.now() - started, apl).toBeLessThan(5000);
    }
  });

  it('builds a series of 86,400 bins per group in time linear in its size, and refuses one too large before building it', async () => {
    // One bin per second of a day: each group's array is built run by run, not looked up bin by bin.
    const day = 'from datetime(2024-01-01) to datetime(2024-01-02) step 1s';
    const series = await run(`logs | make-series n = count() on _time ${day} by method | extend total = array_sum(n), bins = array_length(n) | summarize sum(total), max(bins)`, {
      timeoutMs: 5_000,
    });
    const inDay = await run('logs | where _time >= datetime(2024-01-01) and _time < datetime(2024-01-02) | count');
    expect(series.tables[0]?.columns.map((column) => column[0])).toEqual([inDay.tables[0]?.columns[0]?.[0], 86_400]);

    const started = Date.now();
    const error = await run(`logs | make-series n = count() on _time ${day} by message | take 1`, { timeoutMs: 5_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'apl_runtime', message: expect.stringMatching(/make-series would build \d+ values \(series × bins\), more than the 10,000,000 one query may build/) });
    expect(statusOf(error)).toBe(400);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('cuts an mv-expand result at the row cap', async () => {
    const result = await run('logs | take 100 | extend a = dynamic([1, 2, 3]) | mv-expand a | project a', { maxRows: 100 });
    expect(result.tables[0]?.columns[0]).toHaveLength(100);
    expect(result.status.isPartial).toBe(true);
  });

  it('cancels a query whose caller went away', async () => {
    const controller = new AbortController();
    const pending = run(HEAVY, {}, controller.signal);
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ code: 'query_cancelled' });
  });

  it('cuts a result at the row cap and says so', async () => {
    const result = await run('logs | project uri | take 500', { maxRows: 100 });
    expect(result.tables[0]?.columns[0]).toHaveLength(100);
    expect(result.status.isPartial).toBe(true);
    expect(result.status.messages).toEqual([expect.objectContaining({ code: 'apl_result_row_limit', priority: 'warn' })]);
  });

  it('cuts a result at the byte cap and says so', async () => {
    const result = await run('logs | project message | take 500', { maxResultBytes: 4096 });
    const messages = result.tables[0]?.columns[0] as string[];
    expect(messages.length).toBeGreaterThan(10);
    expect(messages.length).toBeLessThan(500);
    expect(JSON.stringify(messages).length).toBeLessThanOrEqual(4096);
    expect(result.status.messages).toEqual([expect.objectContaining({ code: 'apl_result_size_limit' })]);
  });

  it('advises a structured query cut at the row cap in its own terms', async () => {
    const query = parseStructuredQuery({ ...WINDOW, resolution: '1m', groupBy: ['method'], aggregations: [{ op: 'count' }] });
    const { result } = await runStructured('logs', query, { reader: fixture.store, limits: { maxRows: 100 } });
    expect(result.status.isPartial).toBe(true);
    expect(result.status.messages).toEqual([expect.objectContaining({ code: 'apl_result_row_limit', msg: expect.stringContaining('coarser resolution, fewer groupBy fields') })]);
    expect(result.status.messages[0]?.msg).not.toContain('| take');
  });

  it('advises a structured query cut at the byte cap to page with its cursor', async () => {
    const query = parseStructuredQuery({ ...WINDOW, project: [{ field: 'message' }], limit: 500, includeCursor: true });
    const { result } = await runStructured('logs', query, { reader: fixture.store, limits: { maxResultBytes: 4096 } });
    expect(result.matches.length).toBeLessThan(500);
    expect(result.status.continuationToken).toBe(result.matches[result.matches.length - 1]?._rowId);
    expect(result.status.messages).toEqual([expect.objectContaining({ code: 'apl_result_size_limit', msg: expect.stringContaining('Set a smaller limit or project fewer fields') })]);
    expect(result.status.messages[0]?.msg).not.toContain('| take');
  });

  it('refuses query text over the length limit', async () => {
    await expect(run(`logs | where uri == "${'x'.repeat(200)}"`, { maxQueryLength: 100 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'The query is 222 characters long, more than the limit of 100.',
    });
  });
});
