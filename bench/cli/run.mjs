#!/usr/bin/env node
// Start-up cost of the command line: `timemark --version` against `node -e 0`, and
// `timemark annotate create` against a bare node:http POST of the same annotation (bare-post.mjs),
// all in the same run, each command run as a new process like a shell or a CI step runs it.
// The four commands take turns, so that load on the machine falls on all of them alike.
// Usage: npm run build && node bench/cli/run.mjs [--runs 40]
// Only talks to 127.0.0.1 (a `timemark serve` started on a free port, with a fresh data dir).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalService, stop, TIMEMARK_BIN } from '../lib/processes.mjs';
import { fixed, flags, percentile } from '../lib/stats.mjs';

const options = flags({ runs: 40 });
const TOKEN = 'xaat-benchmark-token-0123456789abcdef';
const BARE_POST = fileURLToPath(new URL('./bare-post.mjs', import.meta.url));

/** Runs a command to its end; resolves with the wall time in milliseconds. */
function timed(args, env = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH, ...env } });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const elapsed = performance.now() - started;
      if (code === 0) resolve(elapsed);
      else reject(new Error(`node ${args.join(' ')} exited with ${code}: ${stderr}`));
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'timemark-bench-cli-'));
const service = await startLocalService(dataDir, TOKEN);
try {
  const env = { TIMEMARK_URL: service.url, TIMEMARK_TOKEN: TOKEN };
  const commands = {
    'node -e 0': () => timed(['-e', '0']),
    'timemark --version': () => timed([TIMEMARK_BIN, '--version']),
    'node:http POST (bare-post.mjs)': () => timed([BARE_POST, service.url, TOKEN]),
    'timemark annotate create': () => timed([TIMEMARK_BIN, 'annotate', 'create', '--datasets', 'bench-cli', '--type', 'deploy', '--title', 'Bench'], env),
  };
  const times = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  // One warm-up round fills the file system cache, as any second run of a command would find it.
  for (const run of Object.values(commands)) await run();
  for (let round = 0; round < options.runs; round++) {
    for (const [name, run] of Object.entries(commands)) times[name].push(await run());
  }
  const median = (name) => percentile([...times[name]].sort((a, b) => a - b), 50);
  const p90 = (name) => percentile([...times[name]].sort((a, b) => a - b), 90);
  console.log(`${options.runs} runs each, interleaved; Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}`);
  console.log('| command | p50 ms | p90 ms | baseline | ratio of p50s |');
  console.log('|---|---|---|---|---|');
  const rows = [
    ['node -e 0', undefined],
    ['timemark --version', 'node -e 0'],
    ['node:http POST (bare-post.mjs)', undefined],
    ['timemark annotate create', 'node:http POST (bare-post.mjs)'],
  ];
  for (const [name, baseline] of rows) {
    console.log(`| ${name} | ${fixed(median(name), 1)} | ${fixed(p90(name), 1)} | ${baseline ?? '—'} | ${baseline ? fixed(median(name) / median(baseline)) : '—'} |`);
  }
} finally {
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
}
