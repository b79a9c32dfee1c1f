import { describe, expect, it } from 'vitest';
import { httpLogs } from '../../../bench/lib/http-logs.mjs';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { useTestStore } from '../../helpers/event-store.js';
import { useDuckDbReference } from '../helpers/duckdb-reference.js';
import { tableRows } from '../helpers/reference.js';

/**
 * join, union, make-series and mv-expand over generated HTTP logs, each checked against SQL
 * written by hand for a plain DuckDB holding the same events (a table `logs`, `_time` a
 * TIMESTAMP, fields under their names), independently of the compiler.
 */

const EVENTS = [...httpLogs({ seed: 21, count: 4000 })].map((event, i) => ({ ...event, tags: ['a', 'b', 'c'].slice(0, i % 4) })) as unknown as Record<string, unknown>[];
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T01:00:00Z' };

const fixture = useTestStore((store) => store.load('logs', EVENTS));

const duckdb = useDuckDbReference(() => [['logs', EVENTS]]);

async function rows(apl: string): Promise<Record<string, unknown>[]> {
  const { result } = await runApl({ apl, format: 'tabular', ...WINDOW }, { reader: fixture.store });
  return tableRows((result as TabularResult).tables[0] as never);
}

describe('against hand-written DuckDB SQL', () => {
  it('join kind=inner of two aggregates', async () => {
    const apl =
      "logs | summarize requests = count() by uri | join kind=inner (logs | where status == '500' | summarize errors = count() by uri) on uri " +
      '| project uri, requests, errors | order by uri asc | take 10000';
    const sql = `WITH a AS (SELECT uri, count(*) AS requests FROM logs GROUP BY uri),
      b AS (SELECT uri, count(*) AS errors FROM logs WHERE status = '500' GROUP BY uri)
      SELECT a.uri, a.requests, b.errors FROM a JOIN b ON a.uri = b.uri ORDER BY a.uri`;
    const expected = await duckdb.rows(sql);
    expect(expected.length).toBeGreaterThan(10);
    expect(await rows(apl)).toEqual(expected);
  });

  it('every kind of join, counted', async () => {
    const left = "logs | where status == '500' | project user_id, uri";
    const right = "logs | where status == '404' | project user_id, method";
    const l = "(SELECT user_id, uri FROM logs WHERE status = '500')";
    const r = "(SELECT user_id, method FROM logs WHERE status = '404')";
    const kinds: [string, string][] = [
      ['inner', `SELECT count(*) AS n FROM ${l} l JOIN ${r} r ON l.user_id = r.user_id`],
      ['innerunique', `SELECT count(*) AS n FROM ${l} l SEMI JOIN ${r} r ON l.user_id = r.user_id`],
      ['leftouter', `SELECT count(*) AS n FROM ${l} l LEFT JOIN ${r} r ON l.user_id = r.user_id`],
      ['rightouter', `SELECT count(*) AS n FROM ${l} l RIGHT JOIN ${r} r ON l.user_id = r.user_id`],
      ['fullouter', `SELECT count(*) AS n FROM ${l} l FULL JOIN ${r} r ON l.user_id = r.user_id`],
      ['leftanti', `SELECT count(*) AS n FROM ${l} l WHERE NOT EXISTS (SELECT 1 FROM ${r} r WHERE r.user_id = l.user_id)`],
      ['rightanti', `SELECT count(*) AS n FROM ${r} r WHERE NOT EXISTS (SELECT 1 FROM ${l} l WHERE r.user_id = l.user_id)`],
      ['leftsemi', `SELECT count(*) AS n FROM ${l} l WHERE EXISTS (SELECT 1 FROM ${r} r WHERE r.user_id = l.user_id)`],
      ['rightsemi', `SELECT count(*) AS n FROM ${r} r WHERE EXISTS (SELECT 1 FROM ${l} l WHERE r.user_id = l.user_id)`],
    ];
    for (const [kind, sql] of kinds) {
      const [expected] = await duckdb.rows(sql);
      expect(await rows(`${left} | join kind=${kind} (${right}) on user_id | count`), kind).toEqual([{ count: expected?.n }]);
    }
  });

  it('union of two filtered copies, grouped', async () => {
    const apl = "logs | where method == 'GET' | union (logs | where status == '500') | summarize n = count() by method | order by method asc";
    const sql = "SELECT method, count(*) AS n FROM (SELECT method FROM logs WHERE method = 'GET' UNION ALL SELECT method FROM logs WHERE status = '500') GROUP BY method ORDER BY method";
    expect(await rows(apl)).toEqual(await duckdb.rows(sql));
  });

  it('make-series count() by method over hourly bins', async () => {
    const apl = 'logs | make-series n = count() default = 0 on _time from datetime(2024-01-01) to datetime(2024-01-02) step 1h by method | project method, n';
    const sql = `WITH bins AS (SELECT method, t FROM (SELECT DISTINCT method FROM logs WHERE _time < TIMESTAMP '2024-01-02'), range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-02', INTERVAL 1 hour) AS r(t)),
      counts AS (SELECT method, time_bucket(INTERVAL 1 hour, _time) AS t, count(*) AS n FROM logs WHERE _time < TIMESTAMP '2024-01-02' GROUP BY ALL)
      SELECT bins.method, list(coalesce(counts.n, 0) ORDER BY bins.t) AS n FROM bins LEFT JOIN counts USING (method, t) GROUP BY bins.method ORDER BY bins.method`;
    const expected = (await duckdb.rows(sql)).map((row) => ({ method: row.method, n: (row.n as unknown[]).map(Number) }));
    expect(await rows(apl)).toEqual(expected);
  });

  it('mv-expand of an array field, grouped by element', async () => {
    const apl = 'logs | mv-expand tags | summarize n = count() by tag = tostring(tags) | order by tag asc';
    // An empty array gives no row; every event here has the field.
    const sql = 'SELECT tag, count(*) AS n FROM (SELECT unnest(tags) AS tag FROM logs) GROUP BY tag ORDER BY tag';
    expect(await rows(apl)).toEqual(await duckdb.rows(sql));
  });
});
