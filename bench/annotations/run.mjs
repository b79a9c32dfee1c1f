#!/usr/bin/env node
// Benchmark of the local annotation service: bulk creates over HTTP, then filtered lists.
// Usage: npm run build && node bench/annotations/run.mjs [--count 100000] [--clients 32] [--lists 2000]
// Only talks to 127.0.0.1; bounded by --count and --lists.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startLocalService } from '../lib/processes.mjs';
import { fixed, flags, pool, summarize } from '../lib/stats.mjs';

const options = flags({ count: 100_000, clients: 32, lists: 2_000 });
const TOKEN = 'xaat-benchmark-token-0123456789abcdef';
const DATASETS = Array.from({ length: 10 }, (_, i) => `bench-${i}`);
const RANGE_START = Date.parse('2024-01-01T00:00:00Z');
const RANGE_MS = 100 * 86_400_000;
const dispatcher = new Agent({ connections: options.clients, keepAliveTimeout: 30_000 });
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** A deterministic pseudo-random sequence, so runs are comparable. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}


/** The ceiling: a bare node:http server that parses the JSON body and answers 201, in its own process. */
function startBareServer() {
  const source = `
    const { createServer } = require('node:http');
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const parsed = JSON.parse(body || '{}');
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'ann_x', ...parsed }));
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (chunk) => resolve({ child, url: `http://127.0.0.1:${/port (\d+)/.exec(String(chunk))[1]}` }));
  });
}

function annotationBody(i, next) {
  const time = RANGE_START + Math.floor(next() * RANGE_MS);
  const body = { datasets: [DATASETS[i % DATASETS.length]], type: 'deploy', time: new Date(time).toISOString(), title: `Deploy ${i}`, url: `https://example.com/deploys/${i}` };
  // One in ten is a span of up to an hour, so the overlap filter has work to do.
  if (i % 10 === 0) body.endTime = new Date(time + Math.floor(next() * 3_600_000)).toISOString();
  return JSON.stringify(body);
}

async function createAll(url, count) {
  const next = random(42);
  const bodies = Array.from({ length: count }, (_, i) => annotationBody(i, next));
  const started = performance.now();
  await pool(count, options.clients, async (i) => {
    const response = await request(`${url}/v2/annotations`, { method: 'POST', headers, body: bodies[i], dispatcher });
    await response.body.text();
    if (response.statusCode !== 201) throw new Error(`create answered ${response.statusCode}`);
  });
  return count / ((performance.now() - started) / 1000);
}

async function measureGets(url, path, total) {
  const latencies = [];
  let rows = 0;
  for (let i = 0; i < total; i++) {
    const started = performance.now();
    const response = await request(url + path(i), { headers, dispatcher });
    const text = await response.body.text();
    latencies.push(performance.now() - started);
    if (response.statusCode !== 200) throw new Error(`GET ${path(i)} answered ${response.statusCode}`);
    if (text.startsWith('[')) rows += JSON.parse(text).length;
  }
  return { ...summarize(latencies), meanRows: rows / total };
}

const dataDir = mkdtempSync(join(tmpdir(), 'timemark-bench-'));
const service = await startLocalService(dataDir, TOKEN);
const bare = await startBareServer();
try {
  const warmup = Math.min(2_000, options.count);
  await createAll(bare.url, warmup);
  const ceilingPerSecond = await createAll(bare.url, Math.min(20_000, options.count));
  const createsPerSecond = await createAll(service.url, options.count);

  const next = random(7);
  const windowPath = () => {
    const dataset = DATASETS[Math.floor(next() * DATASETS.length)];
    const start = RANGE_START + Math.floor(next() * (RANGE_MS - 86_400_000));
    return `/v2/annotations?datasets=${dataset}&start=${new Date(start).toISOString()}&end=${new Date(start + 86_400_000).toISOString()}`;
  };
  await measureGets(service.url, windowPath, 200);
  const health = await measureGets(service.url, () => '/healthz', options.lists);
  const list = await measureGets(service.url, windowPath, options.lists);

  const result = {
    machine: `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}`,
    count: options.count,
    clients: options.clients,
    createsPerSecond: Math.round(createsPerSecond),
    bareHttpCeilingPerSecond: Math.round(ceilingPerSecond),
    createsVsCeiling: fixed(createsPerSecond / ceilingPerSecond),
    list: { p50Ms: fixed(list.p50), p99Ms: fixed(list.p99), meanRows: fixed(list.meanRows, 1) },
    healthz: { p50Ms: fixed(health.p50), p99Ms: fixed(health.p99) },
    listVsHealthzP99: fixed(list.p99 / health.p99),
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  service.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
  await dispatcher.close();
  setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 500);
}
