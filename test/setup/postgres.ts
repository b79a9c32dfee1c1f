/**
 * The PostgreSQL the tests use: the server at TIMEMARK_TEST_DATABASE_URL (default
 * postgres://root@127.0.0.1:5432/test, the one .ci/run starts) when it answers, else a throwaway
 * server of the run's own, made with the machine's `initdb` and `pg_ctl` in a temporary folder on
 * a free port, and stopped and removed at the end.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, appendFileSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { isRunning } from './child-registry.js';
import { onPath } from './install-command.js';

export const DEFAULT_TEST_DATABASE_URL = 'postgres://root@127.0.0.1:5432/test';

/** Whether a server answers and lets the tests in; if not, whether one answered (and refused) or nothing did, and the error. */
export type Probe = { answers: true } | { answers: false; refused: boolean; detail: string };

/** Network errors that mean no server listens there, as opposed to one that answered and said no. */
const SILENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ENOENT', 'EADDRNOTAVAIL']);

/** Connects and runs `SELECT 1`: whether a server answers at `url` and lets the tests in. */
export async function probePostgres(url: string): Promise<Probe> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { answers: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const message = error instanceof Error ? error.message : String(error);
    // pg reports its own connect timeout without a code.
    const silent = SILENT.has(code) || /timeout/i.test(message);
    return { answers: false, refused: !silent, detail: silent ? code || message : message };
  } finally {
    await client.end().catch(() => {});
  }
}

export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
}

/**
 * Where distributions install the server programs, which are not on PATH there (Debian and Ubuntu,
 * the PGDG packages of RHEL and Fedora, Homebrew). TIMEMARK_TEST_POSTGRES_BIN_DIRS replaces the
 * list (colon-separated; empty to look on PATH only).
 */
function installationDirs(env: NodeJS.ProcessEnv): string[] {
  if (env.TIMEMARK_TEST_POSTGRES_BIN_DIRS !== undefined) return env.TIMEMARK_TEST_POSTGRES_BIN_DIRS.split(delimiter).filter(Boolean);
  const versioned = (root: string, match: RegExp, below: string): string[] => {
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return [];
    }
    return names
      .filter((name) => match.test(name))
      .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))
      .map((name) => join(root, name, below));
  };
  return [
    ...versioned('/usr/lib/postgresql', /^\d/, 'bin'),
    ...versioned('/usr', /^pgsql-\d/, 'bin'),
    ...versioned('/opt/homebrew/opt', /^postgresql/, 'bin'),
    ...versioned('/usr/local/opt', /^postgresql/, 'bin'),
  ];
}

/** Describes where `findPostgresBinaries` looks, for the message that says they are missing. */
export function searchedPlaces(env: NodeJS.ProcessEnv): string {
  const dirs = env.TIMEMARK_TEST_POSTGRES_BIN_DIRS !== undefined ? installationDirs(env) : ['/usr/lib/postgresql/*/bin', '/usr/pgsql-*/bin', '<homebrew>/opt/postgresql*/bin'];
  return dirs.length === 0 ? 'on PATH' : `on PATH and in ${dirs.join(', ')}`;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first folder, on PATH then in the installation folders, that holds both `initdb` and `pg_ctl`. */
export function findPostgresBinaries(env: NodeJS.ProcessEnv): PostgresBinaries | undefined {
  const path = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const dir of [...path, ...installationDirs(env)]) {
    const initdb = join(dir, 'initdb');
    const pgCtl = join(dir, 'pg_ctl');
    if (executable(initdb) && executable(pgCtl)) return { initdb, pgCtl };
  }
  return undefined;
}

/**
 * `initdb`, `pg_ctl` and the server refuse to run as root. As root (a container, CI), the
 * throwaway server is made and run as an unprivileged account — `postgres` where the PostgreSQL
 * package created it, else `nobody` — through `runuser -u <account> --` (util-linux; `setpriv`
 * where runuser is missing), and its folder is given to that account.
 */
interface Account {
  name: string;
  uid: number;
  gid: number;
}

function unprivilegedAccount(): Account {
  for (const name of ['postgres', 'nobody']) {
    const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (uid.status === 0 && gid.status === 0) return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('Running as root, the tests need an unprivileged account to run a PostgreSQL server as (initdb refuses root), and neither "postgres" nor "nobody" exists.');
}

/** The command line that runs `command` as `account`, or as this user when it is not root. */
function asAccount(account: Account | undefined, command: string, args: string[]): [string, string[]] {
  if (!account) return [command, args];
  if (onPath('runuser')) return ['runuser', ['-u', account.name, '--', command, ...args]];
  return ['setpriv', [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--init-groups', '--', command, ...args]];
}

const SERVER_PREFIX = 'timemark-test-postgres-';
const SUPERUSER = 'timemark';

export interface ThrowawayPostgres {
  /** Initialises the cluster, starts it on a free port of 127.0.0.1, creates the database `test`, and resolves with its URL. */
  start(): Promise<string>;
  /** Stops the server and removes its folder; synchronous, so that it also runs in an `exit` handler; idempotent. */
  stop(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('No port was assigned.'))));
    });
  });
}

function runOrThrow(what: string, [command, args]: [string, string[]]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${what} failed (${result.error?.message ?? `exit ${result.status}`}): ${`${result.stdout ?? ''}${result.stderr ?? ''}`.trim()}`);
  }
}

/**
 * A server in a new temporary folder, not started yet: the caller can arrange for `stop` to run
 * on exit before `start` creates anything that would need it.
 */
export function prepareThrowawayPostgres(binaries: PostgresBinaries): ThrowawayPostgres {
  const account = process.getuid?.() === 0 ? unprivilegedAccount() : undefined;
  const dir = mkdtempSync(join(tmpdir(), `${SERVER_PREFIX}${process.pid}-`));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  if (account) chownSync(dir, account.uid, account.gid);
  let started = false;
  const stop = (): void => {
    if (started) spawnSync(...asAccount(account, binaries.pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']), { stdio: 'ignore' });
    started = false;
    rmSync(dir, { recursive: true, force: true });
  };
  const start = async (): Promise<string> => {
    // Nothing here needs to survive a crash of the machine, so the server skips every fsync.
    runOrThrow('initdb', asAccount(account, binaries.initdb, ['-D', data, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']));
    let port = 0;
    for (let attempt = 1; !started; attempt++) {
      port = await freePort();
      appendFileSync(
        join(data, 'postgresql.conf'),
        [`listen_addresses = '127.0.0.1'`, `port = ${port}`, `unix_socket_directories = ''`, 'fsync = off', 'synchronous_commit = off', 'full_page_writes = off', ''].join('\n'),
      );
      try {
        started = true;
        runOrThrow('pg_ctl start', asAccount(account, binaries.pgCtl, ['-D', data, '-l', log, '-w', '-t', '60', 'start']));
      } catch (error) {
        started = existsSync(join(data, 'postmaster.pid'));
        // Another process may have taken the port between the probe and the start: try another.
        const taken = existsSync(log) && /could not bind|already in use/i.test(readFileSync(log, 'utf8'));
        if (!taken || attempt === 3) throw new Error(`${(error as Error).message}\n${existsSync(log) ? readFileSync(log, 'utf8') : ''}`);
      }
    }
    const admin = new pg.Client({ connectionString: `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE test');
    } finally {
      await admin.end();
    }
    return `postgres://${SUPERUSER}@127.0.0.1:${port}/test`;
  };
  return { start, stop };
}

/** A process's command line, from /proc where there is one, else from ps; empty when it is gone. */
function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    const ps = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
    return ps.status === 0 ? ps.stdout : '';
  }
}

/**
 * Servers left by runs whose main process is gone (killed with SIGKILL, say) are stopped with
 * SIGQUIT (PostgreSQL's immediate shutdown) and their folders removed.
 */
export function sweepAbandonedServers(): void {
  for (const name of readdirSync(tmpdir())) {
    const owner = Number(name.startsWith(SERVER_PREFIX) ? name.slice(SERVER_PREFIX.length).split('-')[0] : NaN);
    if (!Number.isInteger(owner) || owner === process.pid || isRunning(owner)) continue;
    const dir = join(tmpdir(), name);
    try {
      const postmaster = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      // Only while that pid is still this folder's server: pids are reused.
      if (Number.isInteger(postmaster) && postmaster > 0 && commandLineOf(postmaster).includes(dir)) process.kill(postmaster, 'SIGQUIT');
    } catch {
      // Never started, or already stopped.
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
