#!/usr/bin/env node
// Structured query benchmark: the same questions asked over HTTP as a structured query and as
// APL, in alternation, against one local service holding generated HTTP-log events. Both become
// the same logical plan, so the ratio is the cost of the structured front end and its result shape.
// Usage: npm run build && node bench/query/structured.mjs [--events 200000] [--runs 30]
// Only talks to 127.0.0.1; bounded by --events and --runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { httpLogsNdjsonBatches } from '../lib/http-logs.mjs';
import { startLocalService, stop } from '../lib/processes.mjs';
import { fixed, flags, percentile } from '../lib/stats.mjs';

const options = flags({ events: 200_000, runs: 30 });
const TOKEN = 'xaat-benchmark-token-0123456789abcdef';
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };
const workDir = mkdtempSync(join(tmpdir(), 'timemark-bench-structured-'));

const QUESTIONS = [
  {
    name: 'count by hour and method, status 500',
    apl: "['http-logs'] | where status == '500' | summarize count() by bin(_time, 1h), method",
    structured: { resolution: '1h', filter: { op: '==', field: 'status', value: '500' }, groupBy: ['method'], aggregations: [{ op: 'count' }] },
  },
  {
    name: 'avg, p95, distinct by datacenter, uri contains',
    apl: "['http-logs'] | where uri contains 'USERS' | summarize avg(req_duration_ms), percentile(req_duration_ms, 95), dcount(user_id) by bin(_time, 30m), server_datacenter",
    structured: {
      resolution: '30m',
      filter: { op: 'contains', field: 'uri', value: 'USERS' },
      groupBy: ['server_datacenter'],
      aggregations: [{ op: 'avg', field: 'req_duration_ms' }, { op: 'percentiles', field: 'req_duration_ms', argument: 95 }, { op: 'distinct', field: 'user_id' }],
    },
  },
  {
    name: '100 newest matches of GET 404',
    apl: "['http-logs'] | where method == 'GET' and status == '404' | take 100",
    structured: { limit: 100, filter: { op: 'and', children: [{ op: '==', field: 'method', value: 'GET' }, { op: '==', field: 'status', value: '404' }] } },
  },
];

async function post(url, path, body) {
  const started = performance.now();
  const response = await request(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = await response.body.json();
  if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}: ${JSON.stringify(reply).slice(0, 500)}`);
  return performance.now() - started;
}

const service = await startLocalService(join(workDir, 'service'), TOKEN);
try {
  for (const text of httpLogsNdjsonBatches({ count: options.events }, 10_000)) {
    const response = await request(`${service.url}/v1/datasets/http-logs/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      body: gzipSync(text),
    });
    await response.body.json();
    if (response.statusCode !== 200) throw new Error(`Ingest answered ${response.statusCode}.`);
  }
  console.log(`${options.events.toLocaleString('en-US')} events, ${options.runs} runs of each question, APL and structured in alternation\n`);
  console.log('| question | APL p50 | structured p50 | ratio | APL p99 | structured p99 |');
  console.log('|---|---|---|---|---|---|');
  for (const question of QUESTIONS) {
    const apl = [];
    const structured = [];
    // One warm-up of each, then alternate so that load on the machine falls on both alike.
    await post(service.url, '/v1/datasets/_apl', { apl: question.apl, ...WINDOW });
    await post(service.url, '/v1/datasets/http-logs/query', { ...WINDOW, ...question.structured });
    for (let run = 0; run < options.runs; run++) {
      apl.push(await post(service.url, '/v1/datasets/_apl', { apl: question.apl, ...WINDOW }));
      structured.push(await post(service.url, '/v1/datasets/http-logs/query', { ...WINDOW, ...question.structured }));
    }
    apl.sort((a, b) => a - b);
    structured.sort((a, b) => a - b);
    const [a50, s50] = [percentile(apl, 50), percentile(structured, 50)];
    console.log(`| ${question.name} | ${fixed(a50, 1)} ms | ${fixed(s50, 1)} ms | ${fixed(s50 / a50)} | ${fixed(percentile(apl, 99), 1)} ms | ${fixed(percentile(structured, 99), 1)} ms |`);
  }
} finally {
  await stop(service.child);
  rmSync(workDir, { recursive: true, force: true });
}
