#!/usr/bin/env node
// Query benchmark of the local service: generated HTTP-log events ingested over HTTP, then a
// suite of APL queries, each timed over HTTP next to the equivalent hand-written SQL run by
// DuckDB in this process on the same rows, as a ratio (Timemark / DuckDB; lower is better).
// Usage: npm run build && node bench/query/queries.mjs [--suite core|operators] [--events 1000000] [--runs 15] [--warmup 10] [--only name]
// `--suite operators` (the second suite) times what needs more than a filter and a summarize:
// joins, make-series with a series_* function, mv-expand, parse and a string-heavy query.
// The queries start once the service has been idle for a few seconds, after its idle checkpoint:
// both sides then read DuckDB's compressed storage. Before any query is timed, the whole suite
// runs --warmup times on both sides, untimed, so that the service is timed in the steady state
// a long-running service is in, not while its request path is still being compiled (see
// bench/README.md, "warm-up"; --warmup 0 times from a cold start, as runs before 2026-11-23's
// sixth part did).
// Only talks to 127.0.0.1; bounded by --events and --runs.
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { HTTP_LOGS_DEFAULTS, httpLogsNdjsonBatches } from '../lib/http-logs.mjs';
import { startLocalService, stop } from '../lib/processes.mjs';
import { openEventStore } from '../../build/src/engine/store/event-store.js';
import { runApl } from '../../build/src/engine/query/run-apl.js';
import { fixed, flags, median, pool } from '../lib/stats.mjs';

const options = flags({ suite: 'core', events: 1_000_000, runs: 15, warmup: 10, only: '' });
const TOKEN = 'xaat-benchmark-token-0123456789abcdef';
const DATASET = 'http-logs';
const START = new Date(HTTP_LOGS_DEFAULTS.startMs).toISOString();
const END = new Date(HTTP_LOGS_DEFAULTS.startMs + HTTP_LOGS_DEFAULTS.spanMs + 3_600_000).toISOString();
const WINDOW = `_time >= TIMESTAMP '${START.replace('T', ' ').replace('Z', '')}' AND _time < TIMESTAMP '${END.replace('T', ' ').replace('Z', '')}'`;

/**
 * The suite: each APL query and the SQL someone would write by hand for the same answer. Where
 * the APL result also has a `_totals` table (a summarize by a time bin), the SQL computes the
 * totals too, with GROUPING SETS, so that both sides produce the same information.
 */
const CORE = [
  {
    name: 'filter + count',
    apl: `['${DATASET}'] | where status == "500" | count`,
    sql: `SELECT count(*) FROM logs WHERE ${WINDOW} AND status = '500'`,
  },
  {
    name: 'count by bin(_time, 1m)',
    apl: `['${DATASET}'] | summarize count() by bin(_time, 1m)`,
    sql: `SELECT time_bucket(INTERVAL 1 minute, _time) AS t, count(*) AS n FROM logs WHERE ${WINDOW} GROUP BY GROUPING SETS ((t), ()) ORDER BY t NULLS LAST`,
  },
  {
    name: 'count by string key',
    apl: `['${DATASET}'] | summarize count() by method`,
    sql: `SELECT method, count(*) AS n FROM logs WHERE ${WINDOW} GROUP BY method ORDER BY n DESC`,
  },
  {
    name: 'top 10 keys',
    apl: `['${DATASET}'] | summarize count() by uri | top 10 by count_`,
    sql: `SELECT uri, count(*) AS n FROM logs WHERE ${WINDOW} GROUP BY uri ORDER BY n DESC LIMIT 10`,
  },
  {
    name: 'avg + p95 by key',
    apl: `['${DATASET}'] | summarize avg(req_duration_ms), percentile(req_duration_ms, 95) by server_datacenter`,
    sql: `SELECT server_datacenter, avg(req_duration_ms) AS a, quantile_disc(req_duration_ms, 0.95) AS p FROM logs WHERE ${WINDOW} GROUP BY server_datacenter ORDER BY a DESC`,
  },
  {
    name: 'dcount',
    apl: `['${DATASET}'] | summarize dcount(user_id)`,
    sql: `SELECT count(DISTINCT user_id) FROM logs WHERE ${WINDOW}`,
  },
  {
    name: 'contains filter',
    apl: `['${DATASET}'] | where user_agent contains "firefox" | count`,
    sql: `SELECT count(*) FROM logs WHERE ${WINDOW} AND user_agent ILIKE '%firefox%'`,
  },
  {
    name: 'has filter',
    apl: `['${DATASET}'] | where message has "checkout" | count`,
    sql: `SELECT count(*) FROM logs WHERE ${WINDOW} AND regexp_matches(message, '(?i)(?:^|[^\\pL\\pN])checkout(?:$|[^\\pL\\pN])')`,
  },
  {
    name: 'project + sort + take',
    apl: `['${DATASET}'] | project _time, method, uri, status, req_duration_ms | sort by req_duration_ms desc | take 100`,
    sql: `SELECT _time, method, uri, status, req_duration_ms FROM logs WHERE ${WINDOW} ORDER BY req_duration_ms DESC LIMIT 100`,
  },
  {
    name: 'two keys by bin(_time, 1h)',
    apl: `['${DATASET}'] | summarize count() by bin(_time, 1h), status, method`,
    sql: `SELECT time_bucket(INTERVAL 1 hour, _time) AS t, status, method, count(*) AS n FROM logs WHERE ${WINDOW} GROUP BY GROUPING SETS ((t, status, method), (status, method)) ORDER BY t NULLS LAST, n DESC`,
  },
  {
    name: 'bin_auto',
    apl: `['${DATASET}'] | summarize count(), avg(req_duration_ms) by bin_auto(_time)`,
    sql: `SELECT time_bucket(INTERVAL 30 minute, _time) AS t, count(*) AS n, avg(req_duration_ms) AS a FROM logs WHERE ${WINDOW} GROUP BY GROUPING SETS ((t), ()) ORDER BY t NULLS LAST`,
  },
  {
    name: 'regex filter',
    apl: `['${DATASET}'] | where uri matches regex @"^/api/v1/users/[0-9]+/orders$" | count`,
    sql: `SELECT count(*) FROM logs WHERE ${WINDOW} AND regexp_matches(uri, '^/api/v1/users/[0-9]+/orders$')`,
  },
];

/**
 * The second suite: operators that build more than one table or change the number of rows, each
 * against the SQL a person would write for it (a join of two aggregates, a window function for
 * the moving average, unnest, regexp_extract).
 */
const OPERATORS = [
  {
    name: 'join kind=inner of two aggregates',
    // Counted, so that the comparison sees every joined row (a table result stops at 1,000 rows without a take).
    apl: `['${DATASET}'] | summarize requests = count() by uri | join kind=inner (['${DATASET}'] | where status == "500" | summarize errors = count() by uri) on uri | count`,
    sql: `WITH a AS (SELECT uri, count(*) AS requests FROM logs WHERE ${WINDOW} GROUP BY uri),
      b AS (SELECT uri, count(*) AS errors FROM logs WHERE ${WINDOW} AND status = '500' GROUP BY uri)
      SELECT count(*) FROM (SELECT a.uri, a.requests, b.uri, b.errors FROM a JOIN b ON a.uri = b.uri)`,
  },
  {
    name: 'join kind=leftouter, events with an aggregate',
    apl: `['${DATASET}'] | where status startswith "5" | join kind=leftouter (['${DATASET}'] | summarize p95 = percentile(req_duration_ms, 95) by uri) on uri | count`,
    sql: `WITH p AS (SELECT uri, quantile_disc(req_duration_ms, 0.95) AS p95 FROM logs WHERE ${WINDOW} GROUP BY uri)
      SELECT count(*) FROM logs LEFT JOIN p ON logs.uri = p.uri WHERE ${WINDOW} AND logs.status LIKE '5%'`,
  },
  {
    name: 'make-series + series_fir',
    apl: `['${DATASET}'] | make-series n = count() default = 0 on _time from datetime(2024-01-01) to datetime(2024-01-02) step 1m by method | extend smooth = series_fir(n, dynamic([1, 1, 1, 1, 1]))`,
    sql: `WITH bins AS (SELECT method, t FROM (SELECT DISTINCT method FROM logs WHERE _time >= TIMESTAMP '2024-01-01' AND _time < TIMESTAMP '2024-01-02'),
          range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-02', INTERVAL 1 minute) AS r(t)),
        counts AS (SELECT method, time_bucket(INTERVAL 1 minute, _time) AS t, count(*) AS n FROM logs WHERE _time >= TIMESTAMP '2024-01-01' AND _time < TIMESTAMP '2024-01-02' GROUP BY ALL),
        series AS (SELECT bins.method, bins.t, coalesce(counts.n, 0) AS n FROM bins LEFT JOIN counts USING (method, t))
      SELECT method, list(n ORDER BY t) AS n, list(smooth ORDER BY t) AS smooth, list(t ORDER BY t) AS time
      FROM (SELECT method, t, n, sum(n) OVER (PARTITION BY method ORDER BY t ROWS 4 PRECEDING) / 5.0 AS smooth FROM series) GROUP BY method`,
  },
  {
    name: 'mv-expand an array',
    apl: `['${DATASET}'] | mv-expand tags | summarize count() by tag = tostring(tags)`,
    // mv-expand keeps a row whose value is missing (as null) and drops one whose array is empty.
    sql: `SELECT tag, count(*) FROM (SELECT unnest(coalesce(tags, [NULL])) AS tag FROM logs WHERE ${WINDOW}) GROUP BY tag`,
  },
  {
    name: 'parse with typed captures',
    apl: `['${DATASET}'] | parse message with verb " " path " answered " code:long " in " ms:real " ms" | summarize count(), avg(ms) by code`,
    sql: `SELECT code, count(*), avg(ms) FROM (
        SELECT TRY_CAST(regexp_extract(message, '^(.*?) (.*?) answered (.*?) in (.*?) ms$', 3) AS BIGINT) AS code,
               TRY_CAST(regexp_extract(message, '^(.*?) (.*?) answered (.*?) in (.*?) ms$', 4) AS DOUBLE) AS ms
        FROM logs WHERE ${WINDOW}) GROUP BY code`,
  },
  {
    name: 'string-heavy: extract, tolower, strcat, trim_end',
    apl: `['${DATASET}'] | extend agent = tolower(extract("^([A-Za-z]+)", 1, user_agent)), section = extract("^(/[^/]*)", 1, uri), route = strcat(method, " ", trim_end("/", uri)) | where agent != "" | summarize count(), dcount(route) by agent, section`,
    sql: `SELECT agent, section, count(*), count(DISTINCT route) FROM (
        SELECT lower(regexp_extract(user_agent, '^([A-Za-z]+)', 1)) AS agent, regexp_extract(uri, '^(/[^/]*)', 1) AS section,
               method || ' ' || regexp_replace(uri, '(/)+$', '') AS route
        FROM logs WHERE ${WINDOW}) WHERE agent != '' GROUP BY agent, section`,
  },
];

const SUITES = { core: CORE, operators: OPERATORS };
if (!(options.suite in SUITES)) throw new Error(`Unknown --suite ${options.suite}. Expected one of ${Object.keys(SUITES).join(', ')}.`);
const QUERIES = SUITES[options.suite].filter((query) => !options.only || query.name === options.only);

const workDir = mkdtempSync(join(tmpdir(), 'timemark-bench-query-'));
const dispatcher = new Agent({ connections: 4, keepAliveTimeout: 60_000 });

async function post(url, path, body, headers) {
  const response = await request(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, ...headers }, body, dispatcher });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/**
 * Loads the same events into a DuckDB database file in this process, the way a person would: a
 * table from read_json, nested `geo` flattened. A file, like the service's, so that both sides
 * read DuckDB's compressed storage (an in-memory database keeps its tables uncompressed).
 */
async function baselineDatabase(file) {
  const instance = await DuckDBInstance.create(join(workDir, 'baseline.duckdb'), { threads: String(availableParallelism()) });
  const connection = await instance.connect();
  await connection.run(
    `CREATE TABLE logs AS SELECT * EXCLUDE (geo), geo.city AS "geo.city", geo.country AS "geo.country" FROM read_json($1, format = 'newline_delimited', columns = {
      _time: 'TIMESTAMP', method: 'VARCHAR', uri: 'VARCHAR', status: 'VARCHAR', req_duration_ms: 'DOUBLE', resp_body_size_bytes: 'BIGINT',
      resp_header_size_bytes: 'BIGINT', server_datacenter: 'VARCHAR', content_type: 'VARCHAR', is_tls: 'BOOLEAN',
      geo: 'STRUCT(city VARCHAR, country VARCHAR)', trace_id: 'VARCHAR', user_agent: 'VARCHAR', message: 'VARCHAR', user_id: 'VARCHAR',
      referrer: 'VARCHAR', tags: 'VARCHAR[]'})`,
    [file],
  );
  await connection.run('CHECKPOINT');
  return { instance, connection };
}


/**
 * Runs the two sides `options.runs` times each, in pairs back to back (alternating which goes
 * first, so that neither always runs on a warmer cache), after two warm-up pairs. The pairs run
 * under the same load: the median of their ratios holds up better than a ratio of medians on a
 * machine shared with other work.
 */
async function pairs(timemarkSide, sqlSide) {
  const timemarkTimes = [];
  const sqlTimes = [];
  const ratios = [];
  let agreed = true;
  for (let run = -2; run < options.runs; run++) {
    let apl;
    let sql;
    if (run % 2 === 0) {
      apl = await timemarkSide();
      sql = await sqlSide();
    } else {
      sql = await sqlSide();
      apl = await timemarkSide();
    }
    if (run >= 0) {
      timemarkTimes.push(apl.ms);
      sqlTimes.push(sql.ms);
      ratios.push(apl.ms / sql.ms);
    }
    agreed &&= agree(apl.reply, sql.rows);
  }
  return { timemark: median(timemarkTimes), duckdb: median(sqlTimes), ratio: median(ratios), agreed };
}

/**
 * Times every query of the suite: Timemark's side (`side(query)` makes it) against its SQL in
 * this process, in pairs. First the whole suite runs `--warmup` times on both sides, untimed.
 */
async function timeSuite(side, baseline) {
  const sides = QUERIES.map((query) => ({
    query,
    timemark: side(query),
    sql: async () => {
      const started = performance.now();
      const rows = (await baseline.connection.runAndReadAll(query.sql)).getRowsJS();
      return { ms: performance.now() - started, rows };
    },
  }));
  for (let pass = 0; pass < options.warmup; pass++) {
    for (const { timemark, sql } of sides) {
      await timemark();
      await sql();
    }
  }
  const results = [];
  for (const { query, timemark, sql } of sides) results.push({ name: query.name, ...(await pairs(timemark, sql)) });
  return results;
}

/**
 * Whether both sides answered the same: as many rows (the APL tables together: a time series and
 * its totals), and for a one-value answer the same value.
 */
function agree(reply, rows) {
  const aplRows = reply.tables.reduce((sum, table) => sum + (table.columns[0]?.length ?? 0), 0);
  if (aplRows !== rows.length) return false;
  const single = reply.tables.length === 1 && aplRows === 1 && reply.tables[0].columns.length === 1;
  return !single || Number(reply.tables[0].columns[0][0]) === Number(rows[0][0]);
}

try {
  const texts = [...httpLogsNdjsonBatches({ count: options.events }, 10_000)];
  const file = join(workDir, 'events.ndjson');
  writeFileSync(file, texts.join(''));
  const bodies = texts.map((text) => gzipSync(text));
  texts.length = 0;

  const serviceDir = join(workDir, 'service');
  const service = await startLocalService(serviceDir, TOKEN);
  const baseline = await baselineDatabase(file);
  try {
    const ingestStarted = performance.now();
    await pool(bodies.length, 4, (i) =>
      post(service.url, `/v1/datasets/${DATASET}/ingest`, bodies[i], { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' }),
    );
    console.log(`${options.events.toLocaleString('en-US')} events ingested over HTTP in ${fixed((performance.now() - ingestStarted) / 1000, 1)} s; the suite ${options.warmup} times untimed on both sides, then ${options.runs} timed runs per query after 2 warm-up runs`);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    console.log('');

    const results = await timeSuite((query) => {
      const body = JSON.stringify({ apl: query.apl, startTime: START, endTime: END });
      return async () => {
        const started = performance.now();
        const reply = await post(service.url, '/v1/datasets/_apl?format=tabular', body, { 'content-type': 'application/json' });
        return { ms: performance.now() - started, reply };
      };
    }, baseline);

    // The same queries through the engine in this process (the service stopped, its data dir
    // opened here): what the engine costs apart from HTTP and a second process.
    await stop(service.child);
    const store = await openEventStore({ dataDir: serviceDir });
    try {
      const engine = await timeSuite(
        (query) => async () => {
          const started = performance.now();
          const { result } = await runApl({ apl: query.apl, format: 'tabular', startTime: START, endTime: END }, { reader: store });
          return { ms: performance.now() - started, reply: result };
        },
        baseline,
      );
      engine.forEach((timed, index) => (results[index].engine = timed));
    } finally {
      await store.close();
    }

    console.log('| query | Timemark over HTTP (median ms) | DuckDB SQL in process (median ms) | ratio | engine in process: ratio |');
    console.log('|---|---|---|---|---|');
    for (const r of results) {
      const flag = r.agreed && r.engine.agreed ? '' : ' (answers differ!)';
      console.log(`| ${r.name}${flag} | ${fixed(r.timemark, 1)} | ${fixed(r.duckdb, 1)} | ${fixed(r.ratio)} | ${fixed(r.engine.ratio)} |`);
    }
    const ratios = results.map((r) => r.ratio);
    const engineRatios = results.map((r) => r.engine.ratio);
    console.log(`\nover HTTP: median ratio ${fixed(median(ratios))}, worst ${fixed(Math.max(...ratios))} (goals: median ≤ 1.2, worst ≤ 2)`);
    console.log(`engine in process: median ratio ${fixed(median(engineRatios))}, worst ${fixed(Math.max(...engineRatios))}`);
  } finally {
    baseline.connection.closeSync();
    baseline.instance.closeSync();
    await stop(service.child);
  }
} finally {
  await dispatcher.close();
  rmSync(workDir, { recursive: true, force: true });
}
