/**
 * The command line as a user meets it: --help on every command and subcommand shows that
 * command's own options, the version answers to all its usual spellings, and each command loads
 * only the modules it needs (the reason `timemark --version` is fast; bench/cli has the figures).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, run, runTimemark, TIMEMARK_BIN } from '../helpers/child-process.js';

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('timemark --help', () => {
  it.each([
    [['--help'], 'Usage: timemark <command>', ['serve', 'annotate', 'bridge', 'start', 'version']],
    [['annotate', '--help'], 'Usage: timemark annotate <command>', ['create', 'list', 'get ID', 'update ID', 'close ID', 'delete ID']],
    [['annotate', 'create', '--help'], 'Usage: timemark annotate create --datasets A,B --type TYPE', ['--datasets A,B', '--type TYPE', '--end-time T', '--retry-ambiguous', '--timeout MS', '-h, --help']],
    [['annotate', 'list', '-h'], 'Usage: timemark annotate list', ['--start T', '--end T', '--datasets A,B']],
    [['annotate', 'get', '--help'], 'Usage: timemark annotate get ID', ['--url URL', '--token TOKEN']],
    [['annotate', 'update', '--help'], 'Usage: timemark annotate update ID', ['--title TEXT', '--link URL']],
    [['annotate', 'close', '--help'], 'Usage: timemark annotate close ID', ['--end-time T']],
    [['annotate', 'delete', '--help'], 'Usage: timemark annotate delete ID', ['--org-id ID']],
    [['serve', '--help'], 'Usage: timemark serve', ['--port N', '--data-dir DIR', '--token TOKEN', 'TIMEMARK_LOG_LEVEL']],
    [['bridge', '--help'], 'Usage: timemark bridge', ['--config FILE', 'DATABASE_URL', 'GITHUB_WEBHOOK_SECRET', 'dead-letters --help']],
    [['bridge', 'dead-letters', '--help'], 'Usage: timemark bridge dead-letters', ['--url URL', '--admin-token TOKEN', 'TIMEMARK_BRIDGE_URL']],
    [['start', '--help'], 'Usage: timemark start', ['--bridge-port N', '--bridge-data-dir DIR']],
    [['help', 'annotate', 'create'], 'Usage: timemark annotate create', ['--retry-ambiguous']],
  ])('%j prints that command’s usage and options and exits 0', async (args, usage, mentions) => {
    const result = await runTimemark(args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.startsWith(usage)).toBe(true);
    for (const text of mentions) expect(result.stdout).toContain(text);
    expect(result.stderr).toBe('');
  });

  it('shows only the options a subcommand takes', async () => {
    const get = (await runTimemark(['annotate', 'get', '--help'])).stdout;
    expect(get).not.toContain('--title');
    expect(get).not.toContain('--retry-ambiguous');
    const close = (await runTimemark(['annotate', 'close', '--help'])).stdout;
    expect(close).not.toContain('--datasets');
  });

  it('says, wherever times are read, that a time without an offset is UTC', async () => {
    for (const sub of ['create', 'list', 'update', 'close']) {
      expect((await runTimemark(['annotate', sub, '--help'])).stdout.replace(/\s+/g, ' ')).toContain('a time without an offset, e.g. "2024-05-01 14:00", is read as UTC');
    }
  });
});

describe('timemark version', () => {
  it.each([['--version'], ['-V'], ['-v'], ['version']])('%s prints the package version', async (flag) => {
    expect(await runTimemark([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });
});

describe('what each command loads', () => {
  /** The modules a command line loaded, recorded by a loader hook. */
  async function modulesLoadedBy(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), 'timemark-trace-'));
    const trace = join(dir, 'modules.txt');
    try {
      await run(process.execPath, ['--import', pathToFileURL(join(REPO_ROOT, 'test/helpers/module-trace.mjs')).href, TIMEMARK_BIN, ...args], {
        env: { PATH: process.env.PATH, TIMEMARK_MODULE_TRACE: trace, ...env },
      });
      const urls = readFileSync(trace, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith('file:'))
        .map((url) => url.slice(pathToFileURL(REPO_ROOT).href.length));
      return [...new Set(urls)];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('--version loads nothing but the CommonJS entry and the version it answers with', async () => {
    expect(await modulesLoadedBy(['--version'])).toEqual(['bin/timemark.js', 'build/src/cli/version.cjs']);
    expect(await modulesLoadedBy(['--help'])).toContain('build/src/cli/main.js');
  });

  it.each(['annotate', 'ingest', 'query'])('%s loads its one-file bundle and no ES module', async (command) => {
    expect(await modulesLoadedBy([command, '--help'])).toEqual(['bin/timemark.js', `build/cli/${command}/index.cjs`]);
  });

  it('the other commands load the ES modules they need, and no bundle', async () => {
    const loaded = await modulesLoadedBy(['bridge', '--help']);
    expect(loaded).toContain('build/src/cli/main.js');
    expect(loaded).toContain('build/src/cli/commands/bridge.js');
    expect(loaded.filter((path) => path.startsWith('build/cli/'))).toEqual([]);
  });

  it('a command that succeeds does not load what only explains failures', async () => {
    // The bundles keep those modules in files of their own, loaded when a request fails.
    const failed = await modulesLoadedBy(['annotate', 'list', '--url', 'http://127.0.0.1:1', '--token', 'xaat-not-used', '--retries', '0']);
    const failureOnly = failed.filter((path) => path.startsWith('build/cli/annotate/') && path !== 'build/cli/annotate/index.cjs');
    expect(failureOnly.length).toBeGreaterThan(0);
    const succeeded = await modulesLoadedBy(['annotate', 'create', '--help']);
    expect(succeeded.filter((path) => failureOnly.includes(path))).toEqual([]);
    // And so does the ES module path.
    const serveHelp = await modulesLoadedBy(['serve', '--help']);
    expect(serveHelp).toContain('build/src/cli/commands/serve.js');
    expect(serveHelp.filter((path) => /\/(service-failure|service-connection)\.js$/.test(path))).toEqual([]);
  });

  it('annotate create loads its bundle (and the files that explain its failure), no package, service, bridge or database code', async () => {
    const loaded = await modulesLoadedBy(['annotate', 'create', '--datasets', 'a', '--type', 'deploy', '--retries', '0'], {
      TIMEMARK_URL: 'http://127.0.0.1:1',
      TIMEMARK_TOKEN: 'xaat-not-used',
    });
    expect(loaded).toContain('build/cli/annotate/index.cjs');
    expect(loaded.filter((path) => !/^(bin\/timemark\.js|build\/cli\/annotate\/[\w.]+)$/.test(path))).toEqual([]);
  });

  it('the annotate and query bundles hold no package, and ingest only csv-parse; each needs nothing but Node at run time', () => {
    for (const command of ['annotate', 'ingest', 'query']) {
      const dir = join(REPO_ROOT, 'build', 'cli', command);
      // ncc lists every package it bundled in licenses.txt, and writes none when there is none.
      const licenses = existsSync(join(dir, 'licenses.txt')) ? readFileSync(join(dir, 'licenses.txt'), 'utf8') : '';
      const packages = [...licenses.matchAll(/^([@\w][\w./@-]*)\n(?:MIT|ISC|BSD|Apache)/gm)].map((match) => match[1]);
      expect(packages, command).toEqual(command === 'ingest' ? ['csv-parse'] : []);
      const required = [...readFileSync(join(dir, 'index.cjs'), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1] ?? '');
      expect(required.filter((name) => !isBuiltin(name)), command).toEqual([]);
    }
  });

  it('serve --help reads the service settings without starting to load the server', async () => {
    const loaded = await modulesLoadedBy(['serve', '--help']);
    expect(loaded.filter((path) => /build\/src\/service\/server\.js|node_modules\/(express|better-sqlite3|@duckdb)/.test(path))).toEqual([]);
  });
});

describe('the one-file bundles of annotate, ingest and query', () => {
  /** The same command line through the ES module path that every other command takes (bin/timemark.js's fallback). */
  function runEsModulePath(args: string[], env: NodeJS.ProcessEnv) {
    const script = `
      const args = process.argv.slice(1);
      process.argv[1] = ${JSON.stringify(TIMEMARK_BIN)}; // where suggested commands are worded from
      const [{ main }, { processIo }] = await Promise.all([import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'build/src/cli/main.js')).href)}), import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'build/src/cli/io.js')).href)})]);
      process.exitCode = await main(args, processIo());`;
    return run(process.execPath, ['--input-type=module', '-e', script, ...args], { env: { PATH: process.env.PATH, ...env } });
  }

  const refused = { TIMEMARK_URL: 'http://user:secret@127.0.0.1:1', TIMEMARK_TOKEN: 'xaat-not-used' };
  it.each<[string[], NodeJS.ProcessEnv?]>([
    [['annotate']],
    [['annotate', '--help']],
    [['annotate', 'help', 'close']],
    [['annotate', 'update', '-h']],
    [['annotate', 'nope']],
    [['annotate', 'get']],
    [['annotate', 'create', '--type', 'deploy']],
    [['annotate', 'create', '--datasets', 'a', '--type', 'Deploy!']],
    [['annotate', 'create', '--datasets', 'a', '--type', 'deploy', '--color', 'red']],
    [['annotate', 'create', '--datasets', 'a', '--type', 'deploy']],
    [['annotate', 'create', '--datasets', 'a', '--type', 'deploy', '--url', 'ftp://example.com', '--token', 'xaat-x']],
    [['annotate', 'list', '--timeout', '-5'], refused],
    [['annotate', 'list', '--retries', '0'], refused],
    [['annotate', 'delete', 'ann_1', '--retries', '0', '--url', 'http://127.0.0.1:1', '--token', 'xaat-x']],
    [['ingest']],
    [['ingest', '--help']],
    [['ingest', 'logs', '--batch-size', '0'], refused],
    [['ingest', 'logs', '/nonexistent/events.ndjson'], refused],
    [['query']],
    [['query', '--help']],
    [['query', "['logs']", '--format', 'xml'], refused],
    [['query', "['logs'] | count", '--retries', '0'], refused],
  ])('%j answers as the ES module path does', async (args, env = {}) => {
    const [bundled, esModules] = await Promise.all([runTimemark(args, env), runEsModulePath(args, env)]);
    expect(bundled).toEqual(esModules);
  });
});
