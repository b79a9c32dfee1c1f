#!/usr/bin/env node
// Benchmark of the webhook bridge: sustained signed GitHub deliveries per second and p50/p99
// acknowledgement latency, with the SQLite store and with PostgreSQL, against a bare Express
// handler that only verifies the signature (the ceiling), all measured in the same run.
// Usage: npm run build && node bench/bridge/run.mjs [--seconds 10] [--warmup 2] [--clients 16] [--database postgres://root@127.0.0.1:5432/test] [--rounds 1] [--profile] [--cpu-prof DIR]
// Only talks to 127.0.0.1; each phase is bounded by --seconds and by --max requests.
// --profile instead sends --deliveries deliveries to a PostgreSQL bridge through a counting
// proxy (pg-profile.mjs) and prints statements, round trips and waits per delivery.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { drained, load, startBare, startBridge, TOKEN } from './load.mjs';
import { startProfilingProxy } from './pg-profile.mjs';
import { startLocalService, stop } from '../lib/processes.mjs';
import { fixed, flags, median } from '../lib/stats.mjs';

const options = flags({
  seconds: 10,
  // Seconds of load before each phase's measured seconds, untimed (see load.mjs).
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

async function bridgePhase(name, serviceUrl, extraEnv, profiler) {
  const bridge = await startBridge({ serviceUrl, env: extraEnv, nodeArgs: profileArgs });
  try {
    profiler?.reset();
    const limits = profiler ? { max: options.deliveries, seconds: 600, warmup: 0 } : options;
    const result = await load(bridge.url, { ...limits, clients: options.clients, pid: bridge.child.pid });
    const outbox = await drained(bridge.url);
    return { name, ...result, drainSeconds: outbox.seconds, applied: outbox.synced, ...(profiler ? { profile: structuredClone(profiler.counts()) } : {}) };
  } finally {
    await bridge.close();
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
      const bare = await startBare(profileArgs);
      try {
        phases.push({ name: 'bare Express (verify + 200)', ...(await load(bare.url, { ...options, pid: bare.child.pid })) });
      } finally {
        await bare.close();
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
