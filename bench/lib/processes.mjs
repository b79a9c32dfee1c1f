/** Child processes for the benchmarks: the system under test always runs in its own process. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const TIMEMARK_BIN = fileURLToPath(new URL('../../bin/timemark.js', import.meta.url));

/** Spawns `node ...args` and resolves with the child and the match once its stdout matches `ready`. */
export function spawnUntil(args, ready, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let output = '';
    const onData = (chunk) => {
      output += chunk;
      const match = ready.exec(output);
      if (!match) return;
      // From here on the child's stdout (its log lines) is read and dropped, never kept or searched:
      // a benchmark must not slow the process it measures by draining its pipe slowly.
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({ child, match });
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => reject(new Error(`node ${args.join(' ')} exited with ${code}: ${output}`)));
  });
}

/** Starts `timemark serve` on a free port and resolves with its URL; `nodeArgs` go to node (e.g. --cpu-prof). */
export async function startLocalService(dataDir, token, nodeArgs = []) {
  const { child, match } = await spawnUntil([...nodeArgs, TIMEMARK_BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--token', token], /listening on (http:\/\/[\d.:]+)/);
  return { child, url: match[1] };
}

/** Sends SIGTERM and resolves once the child has exited. */
export function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
