import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TIMEMARK_BIN = fileURLToPath(new URL('../../bin/timemark.js', import.meta.url));

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
    const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd ?? REPO_ROOT, stdio: 'pipe', ...options.user });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Runs the built `timemark` command. */
export function runTimemark(args: string[], env: NodeJS.ProcessEnv = {}, user?: { uid: number; gid: number }): Promise<RunResult> {
  return run(process.execPath, [TIMEMARK_BIN, ...args], { env: { PATH: process.env.PATH, ...env }, ...(user ? { user } : {}) });
}

/**
 * Starts a long-running `timemark` command and resolves once its stdout matches `ready`,
 * with the match, so a test can read the port it printed.
 */
export function startTimemark(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TIMEMARK_BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: 'pipe' });
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
