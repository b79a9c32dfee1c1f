#!/usr/bin/env node
// Benchmark of the webhook bridge: sustained signed GitHub deliveries per second and p50/p99
// acknowledgement latency, with the SQLite store and with PostgreSQL, against a bare Express
// handler that only verifies the signature (the ceiling), all measured in the same run.
// Usage: npm run build && node bench/bridge/run.mjs [--seconds 10] [--warmup 2] [--clients 16] [--database postgres://root@127.0.0.1:5432/test] [--rounds 1] [--profile] [--cpu-prof DIR]
// Only talks to 127.0.0.1; each phase is bounded by --seconds and by --max requests.
// --profile instead sends --deliveries deliveries to a PostgreSQL bridge through a counting
// proxy (pg-profile.mjs) and prints statements, round trips and waits per delivery.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';
import { startProfilingProxy } from './pg-profile.mjs';
import { spawnUntil, startLocalService, stop, TIMEMARK_BIN } from '../lib/processes.mjs';
import { fixed, flags, median, summarize } from '../lib/stats.mjs';

const options = flags({
  seconds: 10,
  // Seconds of load before each phase's measured seconds, untimed (see load).
  warmup: 2,
  clients: 16,
  max: 200_000,
  database: process.env.TIMEMARK_TEST_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test',
  profile: false,
  deliveries: 2_000,
  // Bare, SQLite and PostgreSQL phases are run this many times over; the summary takes the median ratio.
  rounds: 1,
  // A directory: the bare handler, each bridge and the service write a V8 CPU profile there (node --cpu-prof).
  'cpu-prof': '',
});
const profileArgs = options['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${options['cpu-prof']}`] : [];
const SECRET = 'bench-secret-0123456789';
const TOKEN = 'xaat-benchmark-token-0123456789abcdef';
const ADMIN = 'bench-admin-token-0123456789abcdef';
const template = JSON.parse(readFileSync(fileURLToPath(new URL('../../test/fixtures/webhooks/github/deployment.created.json', import.meta.url)), 'utf8'));



let sequence = 0;
/** A distinct signed delivery per request: its own deployment (so its own episode) and delivery id. */
function delivery() {
  const id = ++sequence;
  const body = JSON.stringify({ ...template, deployment: { ...template.deployment, id: 900_000_000 + id } });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'deployment',
      'x-github-delivery': `bench-${process.pid}-${id}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
  };
}

/**
 * CPU time a process has used so far, in ms (user + system), from /proc on Linux; NaN elsewhere.
 * Every thread of it, or with `thread` its main thread alone (the one that serves HTTP). Per
 * delivery it shows what the handler costs, where the throughput also depends on what else the
 * two cores run at the time (the load generator, the store's threads, the service).
 */
function cpuMs(pid, thread = false) {
  try {
    const fields = readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/**
 * Drives `url` with --clients concurrent keep-alive connections: first --warmup seconds untimed
 * (a fresh process runs its first seconds unoptimized, and the bridge has more code to warm up
 * than the bare handler: in 10-second phases that start cost the bridge a larger share of its
 * phase), then `limits.seconds` (at most `limits.max` requests) measured, with the CPU the
 * process `pid` used meanwhile.
 */
async function load(url, limits = options, pid = undefined) {
  const dispatcher = new Agent({ connections: options.clients, keepAliveTimeout: 30_000, pipelining: 1 });
  // Signed ahead of time so that the load generator's HMACs do not compete with the server.
  const prepared = Array.from({ length: Math.min(limits.max, 100_000) }, delivery);
  let sent = 0;
  const drive = async (seconds, max) => {
    const latencies = [];
    let failures = 0;
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: options.clients }, async () => {
        while (performance.now() < deadline && latencies.length < max) {
          const item = prepared[sent++ % prepared.length];
          const t0 = performance.now();
          const response = await request(`${url}/webhooks/github`, { method: 'POST', body: item.body, headers: item.headers, dispatcher });
          await response.body.dump();
          if (response.statusCode >= 300 || response.statusCode < 200) failures++;
          latencies.push(performance.now() - t0);
        }
      }),
    );
    return { latencies, failures };
  };
  if (limits.warmup > 0) await drive(limits.warmup, limits.max);
  const cpuBefore = pid === undefined ? NaN : cpuMs(pid);
  const mainBefore = pid === undefined ? NaN : cpuMs(pid, true);
  const started = performance.now();
  const { latencies, failures } = await drive(limits.seconds, limits.max);
  const elapsed = (performance.now() - started) / 1000;
  await dispatcher.close();
  // Past the prepared deliveries they repeat: a bridge answers a repeat as a duplicate, for less.
  if (sent > prepared.length) console.warn(`${url}: ${sent} requests for ${prepared.length} distinct deliveries; the rest were repeats (lower --seconds or --max).`);
  const cpuPerDelivery = ((cpuMs(pid) - cpuBefore) * 1000) / latencies.length;
  const mainPerDelivery = ((cpuMs(pid, true) - mainBefore) * 1000) / latencies.length;
  return { rate: latencies.length / elapsed, failures, elapsed, cpuUs: cpuPerDelivery, mainUs: mainPerDelivery, ...summarize(latencies) };
}

async function drained(bridgeUrl, timeoutMs = 300_000) {
  const t0 = performance.now();
  for (;;) {
    const response = await fetch(`${bridgeUrl}/admin/outbox`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const counts = await response.json();
    if (counts.pending === 0) return { seconds: (performance.now() - t0) / 1000, ...counts };
    if (performance.now() - t0 > timeoutMs) return { seconds: NaN, ...counts };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function bridgePhase(name, serviceUrl, extraEnv, profiler) {
  const dataDir = mkdtempSync(join(tmpdir(), 'timemark-bench-bridge-'));
  const { child, match } = await spawnUntil([...profileArgs, TIMEMARK_BIN, 'bridge', '--port', '0', '--data-dir', dataDir], /bridge listening on (http:\/\/[\d.:]+)/, {
    TIMEMARK_URL: serviceUrl,
    TIMEMARK_TOKEN: TOKEN,
    TIMEMARK_DATASETS: 'bench',
    GITHUB_WEBHOOK_SECRET: SECRET,
    TIMEMARK_BRIDGE_ADMIN_TOKEN: ADMIN,
    TIMEMARK_BRIDGE_LOG_LEVEL: 'warn',
    ...extraEnv,
  });
  try {
    profiler?.reset();
    const result = await load(match[1], profiler ? { max: options.deliveries, seconds: 600, warmup: 0 } : options, child.pid);
    const outbox = await drained(match[1]);
    return { name, ...result, drainSeconds: outbox.seconds, applied: outbox.synced, ...(profiler ? { profile: structuredClone(profiler.counts()) } : {}) };
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function postgresReachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** The PostgreSQL bridge through the counting proxy, for a fixed number of deliveries. */
async function profilePhase(serviceUrl, schema) {
  const target = new URL(options.database);
  const proxy = await startProfilingProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(options.database);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  try {
    return await bridgePhase('bridge, PostgreSQL store, profiled', serviceUrl, { DATABASE_URL: proxied.href, TIMEMARK_BRIDGE_DATABASE_SCHEMA: schema }, proxy);
  } finally {
    await proxy.close();
    const client = new pg.Client({ connectionString: options.database });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

let profiled;
const serviceDir = mkdtempSync(join(tmpdir(), 'timemark-bench-service-'));
const service = await startLocalService(serviceDir, TOKEN, profileArgs);
const results = [];
try {
  if (options.profile) {
    if (!(await postgresReachable(options.database))) throw new Error(`PostgreSQL at ${options.database} is not reachable: nothing to profile.`);
    profiled = await profilePhase(service.url, `bridge_bench_${randomBytes(4).toString('hex')}`);
  } else {
    const withPostgres = await postgresReachable(options.database);
    if (!withPostgres) console.log(`PostgreSQL at ${options.database} is not reachable: skipping the PostgreSQL phase.`);
    // Each round measures its own ceiling: the machine's speed drifts within minutes, so a
    // ratio is only taken between phases run one right after the other.
    for (let round = 1; round <= options.rounds; round++) {
      const phases = [];
      const bare = await spawnUntil([...profileArgs, fileURLToPath(new URL('./bare-express.mjs', import.meta.url))], /port (\d+)/, { GITHUB_WEBHOOK_SECRET: SECRET });
      try {
        phases.push({ name: 'bare Express (verify + 200)', ...(await load(`http://127.0.0.1:${bare.match[1]}`, options, bare.child.pid)) });
      } finally {
        await stop(bare.child);
      }
      phases.push(await bridgePhase('bridge, SQLite store', service.url, {}));
      if (withPostgres) {
        const schema = `bridge_bench_${randomBytes(4).toString('hex')}`;
        try {
          phases.push(await bridgePhase('bridge, PostgreSQL store', service.url, { DATABASE_URL: options.database, TIMEMARK_BRIDGE_DATABASE_SCHEMA: schema }));
        } finally {
          const client = new pg.Client({ connectionString: options.database });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          // PostgreSQL writes the phase's pages out in the background for minutes after it (its
          // checkpoint), and that I/O fell on the next round's SQLite phase, which waits on
          // fsync, but not on the bare handler: the next round starts once it is done. A role
          // that may not run CHECKPOINT (it needs superuser or pg_checkpoint) measures as before.
          await client.query('CHECKPOINT').catch(() => undefined);
          await client.end();
        }
      }
      for (const phase of phases) results.push({ ...phase, round, ratio: phase.rate / (phases[0]?.rate ?? NaN) });
    }
  }
} finally {
  await stop(service.child);
  rmSync(serviceDir, { recursive: true, force: true });
}

console.log(`\n${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, ${options.clients} clients, ${options.seconds} s per phase\n`);
if (results.length > 0) {
  console.log('| round | handler | deliveries/s | vs ceiling | ack p50 | ack p99 | CPU per delivery | non-2xx | outbox drained after |');
  console.log('|---|---|---|---|---|---|---|---|---|');
}
for (const result of results) {
  const drain = result.drainSeconds === undefined ? '—' : `${fixed(result.drainSeconds, 1)} s (${result.applied} applied)`;
  console.log(`| ${result.round} | ${result.name} | ${Math.round(result.rate)} | ${fixed(result.ratio, 2)} | ${fixed(result.p50)} ms | ${fixed(result.p99)} ms | ${Number.isNaN(result.cpuUs) ? '—' : `${Math.round(result.cpuUs)} µs (main thread ${Math.round(result.mainUs)} µs)`} | ${result.failures} | ${drain} |`);
}
if (options.rounds > 1) {
  console.log('\n| handler | median ratio to the ceiling of its round | lowest | highest |');
  console.log('|---|---|---|---|');
  for (const name of [...new Set(results.map((result) => result.name))].slice(1)) {
    const ratios = results.filter((result) => result.name === name).map((result) => result.ratio).sort((a, b) => a - b);
    console.log(`| ${name} | ${fixed(median(ratios), 2)} | ${fixed(ratios[0], 2)} | ${fixed(ratios.at(-1), 2)} |`);
  }
}

if (profiled) {
  const n = profiled.count;
  console.log(`\nProfile: ${n} deliveries (${options.clients} clients) to the PostgreSQL bridge through a counting proxy, ${Math.round(profiled.rate)} deliveries/s, outbox drained; per delivery:\n`);
  console.log('| path | transactions | round trips | statements | wait in round trips |');
  console.log('|---|---|---|---|---|');
  for (const [heading, counts] of Object.entries(profiled.profile)) {
    if (heading === 'admin') continue;
    console.log(`| ${heading} | ${fixed(counts.transactions / n, 2)} | ${fixed(counts.roundTrips / n, 2)} | ${fixed(counts.statements / n, 2)} | ${fixed(counts.waitMs / n, 2)} ms |`);
  }
}
