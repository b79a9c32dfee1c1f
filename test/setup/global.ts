/**
 * The test run's services, prepared once before any test file runs (vitest `globalSetup`):
 *
 * - PostgreSQL: the server at TIMEMARK_TEST_DATABASE_URL (default postgres://root@127.0.0.1:5432/test)
 *   when it answers; else a throwaway server of the run's own (test/setup/postgres.ts) when the
 *   server programs are installed — also when a server answers at the default address but does
 *   not let the tests in (a laptop's own PostgreSQL), while a URL you set yourself is used or
 *   the run stops;
 * - Chromium, for the browser tests (test/setup/chromium.ts);
 * - the register of child processes (test/setup/child-registry.ts).
 *
 * Whatever is missing stops the run at once with one message that names it and the one command
 * that installs it, instead of a failure per test. The throwaway server and the children still
 * running are removed in the teardown, and on any exit of the main process: vitest ends a run cut
 * short by Ctrl+C with `process.exit`, without calling this teardown.
 */
import type { TestProject } from 'vitest/node';
import { redactUrl } from '../../src/common/redact-url.js';
import { closeChildRegistry, createChildRegistry, sweepAbandonedRegistries } from './child-registry.js';
import { findChromium } from './chromium.js';
import { installCommand, type Missing } from './install-command.js';
import { DEFAULT_TEST_DATABASE_URL, findPostgresBinaries, prepareThrowawayPostgres, probePostgres, searchedPlaces, sweepAbandonedServers } from './postgres.js';

/** Prints what is missing and ends the run: one message, no stack traces. */
function stopRun(problems: string[], missing: Missing[]): never {
  const lines = ['', 'The tests cannot run on this machine:', ...problems.map((problem) => `  - ${problem}`)];
  if (missing.length > 0) {
    lines.push(`Install what is missing with:  ${installCommand(missing)}`);
    lines.push('(or point TIMEMARK_TEST_DATABASE_URL at a PostgreSQL server, and CHROMIUM_PATH at a Chromium, of yours)');
  }
  console.error(`${lines.join('\n')}\n`);
  // Thrown, the error would come back with vitest's stack trace and code frame around it.
  process.exit(1);
}

export default async function setup(project: TestProject): Promise<() => void> {
  const env = process.env;
  sweepAbandonedServers();
  sweepAbandonedRegistries();

  const configured = env.TIMEMARK_TEST_DATABASE_URL || undefined;
  const probeUrl = configured ?? DEFAULT_TEST_DATABASE_URL;
  const where = `${redactUrl(probeUrl)}${configured ? ', the address in TIMEMARK_TEST_DATABASE_URL' : ''}`;
  const probe = await probePostgres(probeUrl);
  const chromium = findChromium(env);
  const found = probe.answers ? '' : probe.refused ? `the server at ${where} refused the tests (${probe.detail})` : `nothing answers at ${where} (${probe.detail})`;
  const problems: string[] = [];
  const missing: Missing[] = [];
  const binaries = probe.answers ? undefined : findPostgresBinaries(env);
  if (!probe.answers && probe.refused && configured) {
    problems.push(`PostgreSQL: ${found}. Point TIMEMARK_TEST_DATABASE_URL at a database the tests may create schemas in, or unset it to let them start a server of their own.`);
  } else if (!probe.answers && !binaries) {
    missing.push('postgres');
    problems.push(`PostgreSQL: ${found}, and the server programs that would start one for the tests, initdb and pg_ctl, are not installed (looked ${searchedPlaces(env)}).`);
  }
  if ('problem' in chromium) {
    missing.push('chromium');
    problems.push(chromium.problem);
  }
  if (problems.length > 0) stopRun(problems, missing);

  const registry = createChildRegistry();
  const server = binaries ? prepareThrowawayPostgres(binaries) : undefined;
  const cleanUp = (): string[] => {
    const killed = closeChildRegistry(registry);
    server?.stop();
    return killed;
  };
  process.on('exit', cleanUp);

  let databaseUrl = probeUrl;
  if (server) {
    try {
      databaseUrl = await server.start();
    } catch (error) {
      stopRun([`PostgreSQL: ${found}, and starting a server for the tests failed: ${error instanceof Error ? error.message : String(error)}`], []);
    }
    console.log(`PostgreSQL: ${found}; this run started a server of its own at ${databaseUrl}, removed at the end.`);
  }
  project.provide('databaseUrl', databaseUrl);
  project.provide('chromiumPath', 'path' in chromium ? chromium.path : '');
  project.provide('childRegistry', registry);

  return () => {
    process.off('exit', cleanUp);
    const killed = cleanUp();
    if (killed.length > 0) console.warn(`Killed ${killed.length} child process(es) that test workers left running:\n  ${killed.join('\n  ')}`);
  };
}
