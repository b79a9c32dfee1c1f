import type { ChildProcess } from 'node:child_process';
import { exited } from './child-process.js';

/**
 * Sends requests 0 … total−1 from `concurrency` workers and kills `child` with SIGKILL once
 * `killAfter` of them were acknowledged (`send` resolves true), then waits for it to be gone.
 * A request cut off by the kill throws or resolves false: it was never acknowledged, so nothing
 * is owed for it. Resolves with the numbers of the acknowledged requests.
 */
export async function burstUntilKilled(options: {
  child: ChildProcess;
  total: number;
  killAfter: number;
  concurrency: number;
  send: (n: number) => Promise<boolean>;
}): Promise<Set<number>> {
  const acknowledged = new Set<number>();
  let next = 0;
  let killed = false;
  const worker = async (): Promise<void> => {
    while (next < options.total && !killed) {
      const n = next++;
      try {
        if (!(await options.send(n))) continue;
        acknowledged.add(n);
        if (acknowledged.size >= options.killAfter && !killed) {
          killed = true;
          options.child.kill('SIGKILL');
        }
      } catch {
        // Cut off by the kill.
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  await exited(options.child);
  return acknowledged;
}
