/**
 * The command line as a user meets it: --help on every command and subcommand shows that
 * command's own options, the version answers to all its usual spellings, and each command loads
 * only the modules it needs (the reason `timemark --version` is fast; bench/cli has the figures).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
      return readFileSync(trace, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith('file:'))
        .map((url) => url.slice(pathToFileURL(REPO_ROOT).href.length));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('--version loads nothing but the CommonJS entry, which answers it', async () => {
    expect(await modulesLoadedBy(['--version'])).toEqual(['bin/timemark.js']);
    expect(await modulesLoadedBy(['--help'])).toContain('build/src/cli/main.js');
  });

  it('a command that succeeds does not load what only explains failures', async () => {
    const loaded = await modulesLoadedBy(['annotate', '--help']);
    expect(loaded).toContain('build/src/cli/commands/annotate.js');
    expect(loaded.filter((path) => /node_modules\/|\/(service-failure|self-command)\.js/.test(path))).toEqual([]);
  });

  it('annotate create loads the client and no package, service, bridge or database code', async () => {
    const loaded = await modulesLoadedBy(['annotate', 'create', '--datasets', 'a', '--type', 'deploy', '--retries', '0'], {
      TIMEMARK_URL: 'http://127.0.0.1:1',
      TIMEMARK_TOKEN: 'xaat-not-used',
    });
    expect(loaded).toContain('build/src/cli/commands/annotate.js');
    expect(loaded).toContain('build/src/client/transport.js');
    expect(loaded.filter((path) => /node_modules\/|build\/src\/service\/|build\/webhook-server\/|\/commands\/(serve|bridge|start)\.js/.test(path))).toEqual([]);
  });

  it('serve --help reads the service settings without starting to load the server', async () => {
    const loaded = await modulesLoadedBy(['serve', '--help']);
    expect(loaded.filter((path) => /build\/src\/service\/server\.js|node_modules\/(express|better-sqlite3|@duckdb)/.test(path))).toEqual([]);
  });
});
