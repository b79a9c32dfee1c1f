#!/usr/bin/env node
// Ingest benchmark of the local service: generated HTTP-log events sent over HTTP as gzip'd
// NDJSON, 10,000 per request, next to DuckDB's own read_json of the same rows in the same run,
// and the service's resident memory per event.
// Usage: npm run build && node bench/query/ingest.mjs [--events 1000000] [--batch 10000] [--clients 4] [--rounds 3]
// Each round runs read_json, then the service on a fresh data dir, then read_json again; the
// ratio is taken per round against the mean of the two read_json runs around it, so that both
// sides of it saw the same machine (a shared machine's speed drifts within seconds).
// Only talks to 127.0.0.1; bounded by --events.
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { httpLogsNdjsonBatches } from '../lib/http-logs.mjs';
import { startLocalService, stop } from '../lib/processes.mjs';
import { fixed, flags, median, pool, summarize } from '../lib/stats.mjs';

const options = flags({ events: 1_000_000, batch: 10_000, clients: 4, rounds: 3 });
const TOKEN = 'xaat-benchmark-token-0123456789abcdef';
const workDir = mkdtempSync(join(tmpdir(), 'timemark-bench-ingest-'));

/** Resident set size of a process, from /proc (Linux). */
function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

async function ingestOverHttp(bodies, round) {
  const dataDir = join(workDir, `service-${round}`);
  const service = await startLocalService(dataDir, TOKEN);
  const dispatcher = new Agent({ connections: options.clients, keepAliveTimeout: 30_000 });
  try {
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' };
    // Warm-up request into another dataset: creates the worker thread and the first table.
    await send(service.url, 'warmup', bodies[0], headers, dispatcher);
    const rssBefore = rssBytes(service.child.pid);
    let ingested = 0;
    let maxLatency = 0;
    let ingesting = true;
    // The event loop's responsiveness while ingesting: /healthz every 20 ms on its own connection.
    const probeAgent = new Agent({ connections: 1 });
    const health = [];
    const prober = (async () => {
      while (ingesting) {
        const sent = performance.now();
        const response = await request(`${service.url}/healthz`, { dispatcher: probeAgent });
        await response.body.text();
        health.push(performance.now() - sent);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const started = performance.now();
    await pool(bodies.length, options.clients, async (i) => {
      const sent = performance.now();
      const reply = await send(service.url, 'http-logs', bodies[i], headers, dispatcher);
      maxLatency = Math.max(maxLatency, performance.now() - sent);
      ingested += reply.ingested;
    });
    // The service acknowledges a batch once its ingest log holds it and loads it into DuckDB
    // soon after; the clock stops only when a query sees every event (a read loads what waits).
    const counted = await countOverHttp(service.url, 'http-logs', dispatcher);
    const seconds = (performance.now() - started) / 1000;
    if (counted !== ingested) throw new Error(`A count after the ingest saw ${counted} events of ${ingested} acknowledged.`);
    ingesting = false;
    await prober;
    await probeAgent.close();
    const rssAfter = rssBytes(service.child.pid);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const rssSettled = rssBytes(service.child.pid);
    return { ingested, seconds, rssBefore, rssAfter, rssSettled, maxLatency, health: summarize(health) };
  } finally {
    await dispatcher.close();
    await stop(service.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function countOverHttp(url, dataset, dispatcher) {
  const body = JSON.stringify({ apl: `['${dataset}'] | count`, startTime: '1970-01-01T00:00:00Z', endTime: '2100-01-01T00:00:00Z' });
  const response = await request(`${url}/v1/datasets/_apl?format=tabular`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body,
    dispatcher,
  });
  const reply = await response.body.json();
  if (response.statusCode !== 200) throw new Error(`The count answered ${response.statusCode}: ${JSON.stringify(reply).slice(0, 500)}`);
  return Number(reply.tables[0].columns[0][0]);
}

async function send(url, dataset, body, headers, dispatcher) {
  const response = await request(`${url}/v1/datasets/${dataset}/ingest`, { method: 'POST', headers, body, dispatcher });
  const reply = await response.body.json();
  if (response.statusCode !== 200 || reply.failed > 0) throw new Error(`Ingest answered ${response.statusCode}: ${JSON.stringify(reply).slice(0, 500)}`);
  return reply;
}

/** DuckDB's own loader on the same rows: read_json of the NDJSON file into a table of a fresh database file. */
async function readJsonBaseline(file, round) {
  const database = join(workDir, `baseline-${round}.duckdb`);
  const instance = await DuckDBInstance.create(database);
  const connection = await instance.connect();
  const started = performance.now();
  await connection.run('CREATE TABLE events AS SELECT * FROM read_json($1, format = \'newline_delimited\')', [file]);
  const seconds = (performance.now() - started) / 1000;
  const rows = Number((await connection.runAndReadAll('SELECT count(*) FROM events')).getRows()[0][0]);
  connection.closeSync();
  instance.closeSync();
  rmSync(database, { force: true });
  rmSync(`${database}.wal`, { force: true });
  return { rows, seconds };
}

try {
  const texts = [...httpLogsNdjsonBatches({ count: options.events }, options.batch)];
  const ndjsonFile = join(workDir, 'events.ndjson');
  writeFileSync(ndjsonFile, texts.join(''));
  const rawBytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  const bodies = texts.map((text) => gzipSync(text));
  texts.length = 0;
  const gzipBytes = bodies.reduce((sum, body) => sum + body.length, 0);
  console.log(`${options.events} events: ${fixed(rawBytes / 1e6, 1)} MB NDJSON, ${fixed(gzipBytes / 1e6, 1)} MB gzip in ${bodies.length} requests`);

  const rounds = [];
  for (let round = 1; round <= options.rounds; round++) {
    const before = await readJsonBaseline(ndjsonFile, `${round}a`);
    const http = await ingestOverHttp(bodies, round);
    const after = await readJsonBaseline(ndjsonFile, `${round}b`);
    if ([http.ingested, before.rows, after.rows].some((rows) => rows !== options.events)) {
      throw new Error(`Row counts differ: ${http.ingested} over HTTP, ${before.rows} and ${after.rows} by read_json.`);
    }
    const rates = [before, after].map((baseline) => baseline.rows / baseline.seconds);
    rounds.push({ round, rates, http, httpRate: http.ingested / http.seconds, baselineRate: (rates[0] + rates[1]) / 2 });
  }

  const rate = (value) => Math.round(value).toLocaleString('en-US');
  console.log('\n| round | Timemark over HTTP, events/s | DuckDB read_json before / after, events/s | ratio to their mean | slowest request | /healthz p99 (max) | RSS growth per event | RSS per event |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const { round, http, httpRate, rates, baselineRate } of rounds) {
    console.log(
      `| ${round} | ${rate(httpRate)} | ${rate(rates[0])} / ${rate(rates[1])} | ${fixed(httpRate / baselineRate)} | ${fixed(http.maxLatency, 0)} ms | ${fixed(http.health.p99, 1)} ms (${fixed(http.health.max, 0)} ms) | ${fixed((http.rssSettled - http.rssBefore) / http.ingested, 0)} B | ${fixed(http.rssSettled / http.ingested, 0)} B |`,
    );
  }
  const ratios = rounds.map((entry) => entry.httpRate / entry.baselineRate).sort((a, b) => a - b);
  console.log(`\nmedian ratio over ${rounds.length} rounds: ${fixed(median(ratios))}`);
  console.log('RSS is read 5 s after the last request (after the idle checkpoint, idle decode workers stopped); growth is from just after a warm-up request.');
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
