#!/usr/bin/env node
// Compares bridge variants under the same load in alternating short slices of one run, with the
// bare handler as a slice of its own: on a machine whose speed drifts within seconds, rounds of
// run.mjs taken minutes apart move more than most changes do, while slices a few seconds apart
// share the machine's mood. Each variant is a bridge process started once; each slice loads one
// of them for --seconds and then waits for its outbox to drain, so that no variant's catch-up
// falls on another's slice. The order reverses every slice.
//
// Usage: npm run build && node bench/bridge/alternate.mjs [--slices 8] [--seconds 5] [--clients 16] VARIANT...
// VARIANT is NAME, NAME=ENV=VALUE[,ENV=VALUE...] (the bridge's environment: a config file,
// TIMEMARK_BRIDGE_CONFIG=path, or a database, DATABASE_URL=...), or NAME@/path/to/bin/timemark.js
// (another build, e.g. a git worktree of an earlier commit). Only talks to 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drained, load, startBare, startBridge, TOKEN } from './load.mjs';
import { startLocalService, stop, TIMEMARK_BIN } from '../lib/processes.mjs';
import { fixed, flags } from '../lib/stats.mjs';

const { positional: specs, ...options } = flags({ slices: 8, seconds: 5, clients: 16 }, { positional: true });
if (specs.length === 0 || Object.values(options).some((value) => !Number.isFinite(value) || value <= 0)) {
  console.error('Usage: node bench/bridge/alternate.mjs [--slices 8] [--seconds 5] [--clients 16] NAME[@bin][=ENV=VALUE,...] ...');
  process.exit(2);
}

/** "fast@/tmp/wt/bin/timemark.js=TIMEMARK_BRIDGE_CONFIG=/tmp/c.json" → its name, bin and environment. */
function parseVariant(spec) {
  const [head, ...envParts] = spec.split('=');
  const [name, bin] = head.split('@');
  const env = {};
  for (const pair of envParts.join('=').split(',').filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`${spec}: expected ENV=VALUE pairs after the name, separated by commas.`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { name, bin: bin ?? TIMEMARK_BIN, env };
}

const serviceDir = mkdtempSync(join(tmpdir(), 'timemark-bench-service-'));
const service = await startLocalService(serviceDir, TOKEN);
const subjects = [];
try {
  subjects.push({ name: 'bare', ...(await startBare()), bare: true });
  for (const variant of specs.map(parseVariant)) subjects.push({ name: variant.name, ...(await startBridge({ serviceUrl: service.url, env: variant.env, bin: variant.bin })) });
  const totals = new Map(subjects.map((subject) => [subject, { deliveries: 0, elapsed: 0, cpuUs: 0, mainUs: 0 }]));
  const slice = async (subject) => {
    const result = await load(subject.url, { clients: options.clients, seconds: options.seconds, pid: subject.child.pid });
    if (!subject.bare) await drained(subject.url);
    return result;
  };
  // One untimed slice each: a fresh process runs its first seconds unoptimized.
  for (const subject of subjects) await slice(subject);
  for (let index = 0; index < options.slices; index++) {
    const order = index % 2 === 0 ? subjects : [...subjects].reverse();
    const line = [];
    for (const subject of order) {
      const result = await slice(subject);
      const total = totals.get(subject);
      total.deliveries += result.deliveries;
      total.elapsed += result.elapsed;
      // Summed per delivery, so that the mean below weighs each delivery alike.
      total.cpuUs += result.cpuUs * result.deliveries;
      total.mainUs += result.mainUs * result.deliveries;
      line.push(`${subject.name} ${Math.round(result.rate)}/s`);
    }
    console.log(`slice ${index + 1}: ${line.join(' | ')}`);
  }
  const ceiling = totals.get(subjects[0]);
  console.log(`\n${options.slices} slices of ${options.seconds} s, ${options.clients} clients\n`);
  console.log('| handler | deliveries/s | vs bare | CPU per delivery (main thread) |');
  console.log('|---|---|---|---|');
  for (const subject of subjects) {
    const total = totals.get(subject);
    const rate = total.deliveries / total.elapsed;
    console.log(`| ${subject.name} | ${Math.round(rate)} | ${fixed(rate / (ceiling.deliveries / ceiling.elapsed), 3)} | ${Math.round(total.cpuUs / total.deliveries)} µs (${Math.round(total.mainUs / total.deliveries)} µs) |`);
  }
} finally {
  for (const subject of subjects) await subject.close();
  await stop(service.child);
  rmSync(serviceDir, { recursive: true, force: true });
}
