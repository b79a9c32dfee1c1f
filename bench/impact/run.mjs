#!/usr/bin/env node
// Impact benchmark: one impact verdict (src/impact/, as `timemark impact` runs it: the dataset's
// fields, the before window, then the after window beside the count above the before p95) over
// --events generated HTTP-log events, against its two window queries run alone, one after the
// other, over the same HTTP connection, in the same run. The deploy sits in the middle of the
// events and the windows take in all of them (12 h each side of a 24 h dataset).
// Usage: npm run build && node bench/impact/run.mjs [--events 1000000] [--runs 15] [--warmup 5]
// Only talks to 127.0.0.1; bounded by --events and --runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createAnnotationsClient, createEventsClient } from '../../build/src/client/index.js';
import { formatTime } from '../../build/src/common/time.js';
import { computeImpact } from '../../build/src/impact/impact.js';
import { windowQuery } from '../../build/src/impact/queries.js';
import { defaultSignals } from '../../build/src/impact/signals.js';
import { HTTP_LOGS_DEFAULTS, httpLogsNdjsonBatches } from '../lib/http-logs.mjs';
import { startLocalService, stop } from '../lib/processes.mjs';
import { fixed, flags, median, percentile, pool } from '../lib/stats.mjs';

const options = flags({ events: 1_000_000, runs: 15, warmup: 5 });
const TOKEN = 'xaat-benchmark-token-0123456789abcdef';
const DATASET = 'http-logs';
const HOUR = 3_600_000;
const DEPLOY_MS = HTTP_LOGS_DEFAULTS.startMs + 12 * HOUR;
const WINDOW_MS = 12 * HOUR;


const workDir = mkdtempSync(join(tmpdir(), 'timemark-bench-impact-'));
const service = await startLocalService(join(workDir, 'service'), TOKEN);
const connection = { url: service.url, token: TOKEN, retries: 0, timeoutMs: 120_000 };
const events = createEventsClient(connection);
const annotations = createAnnotationsClient(connection);
try {
  const bodies = [...httpLogsNdjsonBatches({ count: options.events }, 10_000)].map((text) => gzipSync(text));
  const ingestStarted = performance.now();
  await pool(bodies.length, 4, (i) => events.ingest({ dataset: DATASET, body: bodies[i], contentType: 'application/x-ndjson', contentEncoding: 'gzip' }));
  bodies.length = 0;
  const annotation = await annotations.create({
    datasets: [DATASET],
    type: 'deploy',
    title: 'Deploy in the middle',
    time: formatTime(DEPLOY_MS),
    endTime: formatTime(DEPLOY_MS + 5 * 60_000),
  });
  console.log(`${options.events.toLocaleString('en-US')} events ingested over HTTP in ${fixed((performance.now() - ingestStarted) / 1000, 1)} s`);
  // Idle, so that both sides read the checkpointed store (as bench/query does).
  await new Promise((resolve) => setTimeout(resolve, 5000));

  // The baseline: the verdict's own two window queries (the same text), each run alone.
  const { signals } = defaultSignals(await events.fields(DATASET));
  const apl = windowQuery(DATASET, signals, WINDOW_MS);
  const before = { startTime: formatTime(DEPLOY_MS - WINDOW_MS), endTime: formatTime(DEPLOY_MS) };
  const after = { startTime: annotation.endTime, endTime: formatTime(Date.parse(annotation.endTime) + WINDOW_MS) };
  const request = { annotation, windowMs: WINDOW_MS, nowMs: Date.now() };

  async function windowQueries() {
    const started = performance.now();
    const first = await events.apl({ apl, ...before });
    const second = await events.apl({ apl, ...after });
    return { ms: performance.now() - started, rows: first.status.rowsExamined + second.status.rowsExamined };
  }
  async function verdict() {
    const started = performance.now();
    const result = await computeImpact(events, request);
    return { ms: performance.now() - started, result };
  }

  for (let pass = 0; pass < options.warmup; pass++) {
    await windowQueries();
    await verdict();
  }
  const baselineTimes = [];
  const verdictTimes = [];
  const ratios = [];
  let examined = 0;
  let last;
  // In pairs, alternating which goes first, so that neither always runs on a warmer cache.
  for (let run = 0; run < options.runs; run++) {
    let queries;
    let judged;
    if (run % 2 === 0) {
      queries = await windowQueries();
      judged = await verdict();
    } else {
      judged = await verdict();
      queries = await windowQueries();
    }
    examined = queries.rows;
    last = judged.result;
    baselineTimes.push(queries.ms);
    verdictTimes.push(judged.ms);
    ratios.push(judged.ms / queries.ms);
  }
  console.log(`windows: ${examined.toLocaleString('en-US')} events examined by the two window queries; verdict ${last.verdict} (${last.signals.map((s) => `${s.name}: ${s.verdict}`).join(', ')})`);
  console.log(`${options.runs} timed pairs after ${options.warmup} untimed`);
  console.log('');
  console.log('| measure | median ms | p90 ms |');
  console.log('|---|---|---|');
  const p90 = (values) => percentile([...values].sort((x, y) => x - y), 90);
  console.log(`| two window queries, run alone one after the other | ${fixed(median(baselineTimes), 1)} | ${fixed(p90(baselineTimes), 1)} |`);
  console.log(`| one impact verdict (fields, before, then after beside the count above p95) | ${fixed(median(verdictTimes), 1)} | ${fixed(p90(verdictTimes), 1)} |`);
  console.log(`\nverdict / window queries: median of the pairs' ratios ${fixed(median(ratios))}, worst ${fixed(Math.max(...ratios))} (goal: ≤ 3)`);
} finally {
  await Promise.all([events.close(), annotations.close()]);
  await stop(service.child);
  rmSync(workDir, { recursive: true, force: true });
}
