/**
 * The test run's own setup (test/setup/global.ts), run as `vitest run` runs it, over the fixtures
 * in test/fixtures/setup/: with no PostgreSQL answering it starts one of its own and says so;
 * with the server programs or Chromium missing it stops with one message; children that tests
 * leave behind, or whose worker dies, are killed; what did not run is named, and under CI fails.
 *
 * "No PostgreSQL answering" is a port where nothing listens, named by TIMEMARK_TEST_DATABASE_URL:
 * the machine's own server keeps running for everyone else.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, run, type RunResult } from '../helpers/child-process.js';
import { makeTempDir } from '../helpers/local-service.js';
import { isRunning } from './child-registry.js';
import { installCommand } from './install-command.js';
import { probePostgres } from './postgres.js';

const VITEST = join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const CONFIG = join(REPO_ROOT, 'test', 'fixtures', 'setup', 'vitest.config.ts');

/** A port of 127.0.0.1 where nothing listens (it was free a moment ago). */
function silentPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** PATH without the folders that hold PostgreSQL's server programs. */
const PATH_WITHOUT_POSTGRES = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !existsSync(join(dir, 'initdb')) && !existsSync(join(dir, 'pg_ctl')))
  .join(delimiter);

const tmp = makeTempDir('setup');
// The run's temporary files go here, where a server run as another account (under root) reaches them.
chmodSync(tmp, 0o755);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function vitest(env: NodeJS.ProcessEnv, files: string[] = []): Promise<RunResult> {
  const base = { ...process.env, TMPDIR: tmp, CI: '', FORCE_COLOR: '0', NO_COLOR: '1' };
  return run(process.execPath, [VITEST, 'run', '--config', CONFIG, ...files], { env: { ...base, ...env } });
}

describe('the global setup of the tests', () => {
  it('with no PostgreSQL answering, starts one of its own and says so; stops and removes it, and every child left running, at the end', { timeout: 120_000 }, async () => {
    const port = await silentPort();
    const leakPid = join(tmp, 'leak.pid');
    const crashPid = join(tmp, 'crash.pid');
    const result = await vitest({
      TIMEMARK_TEST_DATABASE_URL: `postgres://root@127.0.0.1:${port}/test`,
      TIMEMARK_FIXTURE_LEAK_PID: leakPid,
      TIMEMARK_FIXTURE_CRASH_PID: crashPid,
    });
    const output = result.stdout + result.stderr;
    const started = new RegExp(
      `PostgreSQL: nothing answers at postgres://127\\.0\\.0\\.1:${port}/test, the address in TIMEMARK_TEST_DATABASE_URL \\(ECONNREFUSED\\); ` +
        'this run started a server of its own at (postgres://timemark@127\\.0\\.0\\.1:\\d+/test), removed at the end\\.',
    ).exec(output);
    expect(started, output).not.toBeNull();
    // The fixture that used it passed; the one that failed on purpose and the one whose worker died did not.
    expect(output).toMatch(/✓ test\/fixtures\/setup\/postgres\.fixture\.ts/);
    expect(output).toContain('❯ test/fixtures/setup/leak.fixture.ts (1 test | 1 failed)');
    // The failed test's child went when its file ended; the dead worker's, at the end of the run.
    expect(output).toContain(`Killed 1 child process(es) that test workers left running:\n  ${readFileSync(crashPid, 'utf8')} ${process.execPath} -e setInterval`);
    expect(result.code).toBe(1);

    expect(await probePostgres(started?.[1] as string)).toMatchObject({ answers: false, refused: false });
    for (const file of [leakPid, crashPid]) expect(isRunning(Number(readFileSync(file, 'utf8'))), `the child in ${file}`).toBe(false);
    expect(readdirSync(tmp).filter((name) => name.startsWith('timemark-test-'))).toEqual([]);

    expect(output).toContain('Did not run (1):\n  - test/fixtures/setup/not-run.fixture.ts > needs what this machine lacks: it needs a machine this is not\n');
  });

  it('under CI, fails the run for a test that did not run', { timeout: 60_000 }, async () => {
    const result = await vitest({ CI: 'true' }, ['not-run']);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain('This test cannot run on this machine: it needs a machine this is not. Under CI every test runs, so that is a failure.');
  });

  it('with no PostgreSQL answering and its server programs hidden, stops at once with one message and the command that installs them', { timeout: 60_000 }, async () => {
    const port = await silentPort();
    const result = await vitest({ PATH: PATH_WITHOUT_POSTGRES, TIMEMARK_TEST_POSTGRES_BIN_DIRS: '', TIMEMARK_TEST_DATABASE_URL: `postgres://root@127.0.0.1:${port}/test` });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        '',
        'The tests cannot run on this machine:',
        `  - PostgreSQL: nothing answers at postgres://127.0.0.1:${port}/test, the address in TIMEMARK_TEST_DATABASE_URL (ECONNREFUSED), and the server programs that would start one for the tests, initdb and pg_ctl, are not installed (looked on PATH).`,
        `Install what is missing with:  ${installCommand(['postgres'])}`,
        '(or point TIMEMARK_TEST_DATABASE_URL at a PostgreSQL server, and CHROMIUM_PATH at a Chromium, of yours)',
        '',
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toContain('Test Files');
  });

  it('without a Chromium that runs, stops at once with one message naming CHROMIUM_PATH', { timeout: 60_000 }, async () => {
    const result = await vitest({ CHROMIUM_PATH: join(tmp, 'no-chromium') });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The tests cannot run on this machine:\n  - Chromium: CHROMIUM_PATH is ${join(tmp, 'no-chromium')}, which does not run`);
    expect(result.stderr).toContain(`Install what is missing with:  ${installCommand(['chromium'])}\n`);
    expect(result.stdout).not.toContain('Test Files');
  });
});
