// What the bridge benchmarks share: signed GitHub deliveries, a closed-loop load of them over
// keep-alive connections, the CPU a process used, a bridge started as a child process, and the
// wait for its outbox to drain. Only talks to 127.0.0.1.
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { spawnUntil, stop, TIMEMARK_BIN } from '../lib/processes.mjs';
import { summarize } from '../lib/stats.mjs';

export const SECRET = 'bench-secret-0123456789';
export const TOKEN = 'xaat-benchmark-token-0123456789abcdef';
export const ADMIN = 'bench-admin-token-0123456789abcdef';
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
export function cpuMs(pid, thread = false) {
  try {
    const fields = readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/**
 * Drives `url` with `clients` concurrent keep-alive connections, each sending its next delivery
 * once the last is answered: first `warmup` seconds untimed (a fresh process runs its first
 * seconds unoptimized, and the bridge has more code to warm up than the bare handler), then
 * `seconds` (at most `max` requests) measured, with the CPU the process `pid` used meanwhile.
 */
export async function load(url, { clients, seconds, warmup = 0, max = Number.POSITIVE_INFINITY, pid }) {
  const dispatcher = new Agent({ connections: clients, keepAliveTimeout: 30_000, pipelining: 1 });
  // Signed ahead of time so that the load generator's HMACs do not compete with the server.
  const prepared = Array.from({ length: Math.min(max, 100_000) }, delivery);
  let sent = 0;
  const drive = async (limitSeconds) => {
    const latencies = [];
    let failures = 0;
    let begun = 0;
    const deadline = performance.now() + limitSeconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < deadline && begun < max) {
          begun++;
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
  try {
    if (warmup > 0) await drive(warmup);
    const cpuBefore = pid === undefined ? NaN : cpuMs(pid);
    const mainBefore = pid === undefined ? NaN : cpuMs(pid, true);
    const started = performance.now();
    const { latencies, failures } = await drive(seconds);
    const elapsed = (performance.now() - started) / 1000;
    // Past the prepared deliveries they repeat: a bridge answers a repeat as a duplicate, for less.
    if (sent > prepared.length) console.warn(`${url}: ${sent} requests for ${prepared.length} distinct deliveries; the rest were repeats (lower --seconds or --max).`);
    const cpuUs = ((cpuMs(pid) - cpuBefore) * 1000) / latencies.length;
    const mainUs = ((cpuMs(pid, true) - mainBefore) * 1000) / latencies.length;
    return { rate: latencies.length / elapsed, deliveries: latencies.length, failures, elapsed, cpuUs, mainUs, ...summarize(latencies) };
  } finally {
    await dispatcher.close();
  }
}

/** Waits until the bridge's outbox has nothing pending; NaN seconds if that takes past `timeoutMs`. */
export async function drained(bridgeUrl, timeoutMs = 300_000) {
  const t0 = performance.now();
  for (;;) {
    const response = await fetch(`${bridgeUrl}/admin/outbox`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const counts = await response.json();
    if (counts.pending === 0) return { seconds: (performance.now() - t0) / 1000, ...counts };
    if (performance.now() - t0 > timeoutMs) return { seconds: NaN, ...counts };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Starts `node [nodeArgs] <bin> bridge` on a free port with a fresh data dir, sending to the
 * service at `serviceUrl`; `env` adds to or overrides its environment. `close` stops it and
 * removes the data dir.
 */
export async function startBridge({ serviceUrl, env = {}, nodeArgs = [], bin = TIMEMARK_BIN }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'timemark-bench-bridge-'));
  try {
    const { child, match } = await spawnUntil([...nodeArgs, bin, 'bridge', '--port', '0', '--data-dir', dataDir], /bridge listening on (http:\/\/[\d.:]+)/, {
      TIMEMARK_URL: serviceUrl,
      TIMEMARK_TOKEN: TOKEN,
      TIMEMARK_DATASETS: 'bench',
      GITHUB_WEBHOOK_SECRET: SECRET,
      TIMEMARK_BRIDGE_ADMIN_TOKEN: ADMIN,
      TIMEMARK_BRIDGE_LOG_LEVEL: 'warn',
      ...env,
    });
    return {
      child,
      url: match[1],
      close: async () => {
        await stop(child);
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Starts the ceiling, bench/bridge/bare-express.mjs; resolves with its process and URL. */
export async function startBare(nodeArgs = []) {
  const { child, match } = await spawnUntil([...nodeArgs, fileURLToPath(new URL('./bare-express.mjs', import.meta.url))], /port (\d+)/, { GITHUB_WEBHOOK_SECRET: SECRET });
  return { child, url: `http://127.0.0.1:${match[1]}`, close: () => stop(child) };
}
