import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { killProcessTree, registerChild, unregisterChild } from '../setup/child-registry.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TIMEMARK_BIN = fileURLToPath(new URL('../../bin/timemark.js', import.meta.url));

/** This test file's children that have not exited yet. */
const running = new Set<ChildProcess>();

/**
 * Spawns a child process for a test: the only way tests start one. It runs in a process group of
 * its own and is registered (test/setup/child-registry.ts) until it exits, so that it is killed
 * when its test file ends (test/setup/kill-children.ts) or, failing that, when the run ends —
 * whatever failed before the test's own `finally` could stop it.
 */
export const spawnChild = ((command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess => {
  const child = spawn(command, args, { ...options, detached: true });
  const pid = child.pid;
  if (pid === undefined) return child; // It could not start: its 'error' event says why.
  const registry = inject('childRegistry');
  registerChild(registry, pid, [command, ...args].join(' '));
  running.add(child);
  child.once('exit', () => {
    running.delete(child);
    unregisterChild(registry, pid);
  });
  return child;
}) as typeof spawn; // Node's own overloads: the streams a caller asked for are typed as present.

/** Kills the children this test file left running, with whatever they started, and waits until they are gone. */
export async function killLeftoverChildren(): Promise<void> {
  await Promise.all(
    [...running].map((child) => {
      const gone = exited(child);
      killProcessTree(child.pid as number);
      return gone;
    }),
  );
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion and collects its output; `user` runs it as another user (needs root). */
export function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; user?: { uid: number; gid: number } } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawnChild(command, args, { env: options.env ?? process.env, cwd: options.cwd ?? REPO_ROOT, stdio: 'pipe', ...options.user });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A child may exit before it reads its input (a usage error, say): the write then fails with
    // EPIPE, which says nothing the exit code and stderr do not, so only other errors count.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs the built `timemark` command. */
export function runTimemark(args: string[], env: NodeJS.ProcessEnv = {}, user?: { uid: number; gid: number }): Promise<RunResult> {
  return run(process.execPath, [TIMEMARK_BIN, ...args], { env: { PATH: process.env.PATH, ...env }, ...(user ? { user } : {}) });
}

/**
 * Starts a long-running `timemark` command (in `cwd`, by default the repository) and resolves once
 * its stdout matches `ready`, with the match, so a test can read the port it printed.
 */
export function startTimemark(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
  cwd: string = REPO_ROOT,
): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawnChild(process.execPath, [TIMEMARK_BIN, ...args], { env: { PATH: process.env.PATH, ...env }, cwd, stdio: 'pipe' });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timemark ${args.join(' ')} did not print ${ready} within 20 s. Output:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`timemark ${args.join(' ')} exited with ${code} before it was ready. Output:\n${output}`));
    });
  });
}

/** Resolves when the child has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts `timemark serve` on a free port over `dataDir` with `token`, and resolves with the child and its URL. */
export async function startServeProcess(dataDir: string, token: string): Promise<{ child: ChildProcess; url: string }> {
  const { child, match } = await startTimemark(['serve', '--port', '0', '--data-dir', dataDir, '--token', token], /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return { child, url: match[1] as string };
}
