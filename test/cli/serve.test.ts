import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, REPO_ROOT, run, runTimemark, startTimemark } from '../helpers/child-process.js';
import { makeTempDir } from '../helpers/local-service.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('timemark serve', () => {
  it('generates a token on first start, prints it with the URL, and reuses it on restart', async () => {
    const dataDir = makeTempDir('serve');
    dirs.push(dataDir);
    const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*token: +(xaat-\S+)/;
    const first = await startTimemark(['serve', '--port', '0'], ready, { TIMEMARK_DATA_DIR: dataDir });
    const [, url, token] = first.match;
    expect(readFileSync(join(dataDir, 'token'), 'utf8').trim()).toBe(token);
    expect(statSync(join(dataDir, 'token')).mode & 0o777).toBe(0o600);
    expect(first.output()).toContain(`dashboard: ${url}/#token=${token}`);
    const response = await fetch(`${url}/v2/annotations`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    first.child.kill('SIGINT');
    expect(await exited(first.child)).toBe(0);

    const second = await startTimemark(['serve', '--port', '0', '--data-dir', dataDir], ready);
    expect(second.match[2]).toBe(token);
    second.child.kill('SIGTERM');
    await exited(second.child);
  });

  it('takes tokens from TIMEMARK_TOKENS and does not print them', async () => {
    const dataDir = makeTempDir('serve');
    dirs.push(dataDir);
    const tokens = 'xaat-first-token-aaaaaaaaaaaaaaaa,xaat-second-token-bbbbbbbbbbbbbbbb';
    const started = await startTimemark(['serve', '--port', '0', '--data-dir', dataDir], /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Try it/, { TIMEMARK_TOKENS: tokens });
    const url = started.match[1];
    for (const token of tokens.split(',')) {
      expect((await fetch(`${url}/v2/annotations`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect(started.output()).not.toContain(token);
    }
    started.child.kill('SIGTERM');
    await exited(started.child);
  });

  it.each([
    [['--port', 'http'], /Invalid --port "http". Expected a port number from 0 to 65535/],
    [['--port', '70000'], /Invalid --port "70000"/],
    [['--token', 'secret123'], /Token number 1 in --token does not start with xaat- or xapt-/],
    [['--verbose'], /^timemark serve: unknown option --verbose; see "timemark serve --help" for the options it takes\.\n$/],
  ])('exits 2 or 1 with a clear message for %j', async (args, message) => {
    const result = await runTimemark(['serve', ...args], { TIMEMARK_DATA_DIR: makeTempDir('serve-bad') });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('secret123');
  });

  it.each([
    ['empty', '', /The service token file .*\/token is empty\. Delete .*\/token to have a new service token generated, or put a valid one in it\./],
    ['malformed', 'letmein\n', /The service token in .*\/token does not start with xaat- or xapt-/],
  ])('refuses to start with an %s token file instead of accepting no token at all', async (_what, content, message) => {
    const dataDir = makeTempDir('serve-token');
    dirs.push(dataDir);
    writeFileSync(join(dataDir, 'token'), content);
    const result = await runTimemark(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).not.toContain('listening');
  });

  it('says which port is taken', async () => {
    const dataDir = makeTempDir('serve');
    dirs.push(dataDir);
    const first = await startTimemark(['serve', '--port', '0', '--data-dir', dataDir, '--token', 'xaat-port-test-aaaaaaaaaaaaaaaa'], /listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const port = first.match[1] as string;
    const second = await runTimemark(['serve', '--port', port, '--data-dir', makeTempDir('serve-taken'), '--token', 'xaat-port-test-aaaaaaaaaaaaaaaa']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    first.child.kill('SIGTERM');
    await exited(first.child);
  });
});

describe("timemark serve's banner", () => {
  it('prints commands that work as printed, from the same directory, right after npm ci', async () => {
    const dataDir = makeTempDir('serve-banner');
    dirs.push(dataDir);
    // A clone after npm ci: the CLI is not on PATH.
    const path = (process.env.PATH ?? '').split(':').filter((dir) => !existsSync(join(dir, 'timemark'))).join(':');
    const started = await startTimemark(['serve', '--port', '0', '--data-dir', dataDir], /Try it, from this directory:\n((?:  .*\n){2})/, { PATH: path });
    try {
      const commands = (started.match[1] ?? '').trim().split('\n').map((line) => line.trim());
      expect(commands[1]).toBe('./bin/timemark.js annotate create --datasets demo --type deploy --title "First deploy"');
      expect(commands[0]).not.toContain(readFileSync(join(dataDir, 'token'), 'utf8').trim());
      const tried = await run('sh', ['-c', commands.join('\n')], { env: { PATH: path }, cwd: REPO_ROOT });
      expect(tried.code, tried.stderr).toBe(0);
      expect(JSON.parse(tried.stdout)).toMatchObject({ id: expect.stringMatching(/^ann_/), datasets: ['demo'], title: 'First deploy' });
    } finally {
      started.child.kill('SIGTERM');
      await exited(started.child);
    }
  });
});

describe('timemark', () => {
  it('lists its commands and rejects unknown ones', async () => {
    expect((await runTimemark(['--help'])).stdout).toMatch(/serve[\s\S]*annotate/);
    const unknown = await runTimemark(['deploy']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "deploy"/);
    expect((await runTimemark(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
