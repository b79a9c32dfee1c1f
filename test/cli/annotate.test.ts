import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Annotation } from '../../src/common/annotation-contract.js';
import { runTimemark } from '../helpers/child-process.js';
import { useLocalService } from '../helpers/local-service.js';

const service = useLocalService();

async function annotate(args: string[], extraEnv: NodeJS.ProcessEnv = service.cliEnv) {
  const result = await runTimemark(['annotate', ...args], extraEnv);
  return { ...result, json: result.code === 0 ? (JSON.parse(result.stdout) as any) : undefined };
}

describe('timemark annotate', () => {
  it('creates, gets, updates, closes, lists and deletes, printing the service JSON', async () => {
    const created = await annotate([
      'create', '--datasets', 'cli-a, cli-b', '--datasets', 'cli-a', '--type', 'deploy',
      '--time', '2024-04-01T10:00:00+02:00', '--title', 'Release 7', '--description', 'Shipped', '--link', 'https://example.com/r/7',
    ]);
    expect(created.code).toBe(0);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^ann_/),
      datasets: ['cli-a', 'cli-b'],
      type: 'deploy',
      time: '2024-04-01T08:00:00.000Z',
      title: 'Release 7',
      description: 'Shipped',
      url: 'https://example.com/r/7',
    });
    const id = created.json.id as string;

    expect((await annotate(['get', id])).json).toEqual(created.json);
    expect((await annotate(['update', id, '--title', 'Release 7.1'])).json.title).toBe('Release 7.1');

    const closed = await annotate(['close', id, '--end-time', '1711962000']);
    expect(closed.json.endTime).toBe('2024-04-01T09:00:00.000Z');
    expect(closed.json.description).toBe('Shipped');

    const listed = await annotate(['list', '--datasets', 'cli-b', '--start', '2024-04-01T08:30:00Z', '--end', '2024-04-01T08:45:00Z']);
    expect((listed.json as Annotation[]).map((annotation) => annotation.id)).toEqual([id]);

    expect((await annotate(['delete', id])).json).toEqual({ id, deleted: true });
    expect((await annotate(['get', id])).code).toBe(1);
  });

  it('closes a span at now by default, given with flags instead of the environment', async () => {
    const created = await annotate(['create', '--url', service.url, '--token', service.token, '--datasets', 'cli-now', '--type', 'deploy', '--time', 'now-10m'], {});
    const before = Date.now();
    const closed = await annotate(['close', created.json.id, '--url', service.url, '--token', service.token], {});
    expect(closed.code).toBe(0);
    expect(Date.parse(closed.json.endTime)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(closed.json.endTime) - Date.parse(created.json.time)).toBeGreaterThanOrEqual(10 * 60_000 - 1000);
  });

  it.each([
    [['create', '--type', 'deploy'], /--datasets is missing; say which charts show it/],
    [['create', '--datasets', 'a'], /--type is missing; say what kind of event it is/],
    [['create', '--datasets', 'a,,b', '--type', 'deploy'], /Invalid --datasets "a,,b"/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--time', 'soon'], /Invalid --time "soon". Expected .*now-5m/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--colour', 'red'], /^timemark annotate create: unknown option --colour; see "timemark annotate create --help"/],
    [['close'], /the annotation id is missing; give it first/],
    [['get', 'a', 'b'], /unexpected argument "b"/],
    [['update', 'ann_x'], /nothing to change; give at least one of --datasets/],
    [['list', '--title', 'x'], /^timemark annotate list: unknown option --title/],
    [['frobnicate'], /^timemark annotate: unknown command "frobnicate"; use one of create, list/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--timeout', 'fast'], /Invalid --timeout "fast"; give a whole number of milliseconds of 1 or more, e.g. --timeout 5000\./],
    [['create', '--datasets'], /^timemark annotate create: --datasets needs a value; give one, e.g. --datasets production\.\n$/],
    [['create', '--datasets', 'a', '--title', '--type', 'deploy'], /--title needs a value, but --type follows it; give one, e.g. --title "Deploy v2"/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--retries', '-1'], /Invalid --retries "-1": it is negative; give a whole number of 0 or more, e.g. --retries 3\./],
    [['create', '--datasets', 'a', '--type', 'deploy', '--timeout=-5'], /Invalid --timeout "-5": it is negative; give a whole number of milliseconds of 1 or more/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--retry-ambiguous=yes'], /--retry-ambiguous takes no value; write --retry-ambiguous alone\./],
    [['create', '--datasets', 'a', '--type', 'Bad Type'], /^timemark annotate create: Invalid --type "Bad Type". Expected 1 to 256 lowercase letters, digits and dashes/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--title', 'x'.repeat(257)], /Invalid --title "x+…: 257 characters. Expected at most 256\./],
    [['create', '--datasets', 'a', '--type', 'deploy', '--link', 'x'.repeat(513)], /Invalid --link "x+…: 513 characters. Expected at most 512\./],
    [['create', '--datasets', 'a', '--type', 'deploy', '--time', '2024-05-01 14:00', '--end-time', '2024-05-01 13:59'], /Invalid --end-time 2024-05-01T13:59:00.000Z: it is before --time 2024-05-01T14:00:00.000Z/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--end-time', 'now-1h'], /Invalid --end-time .*: it is before --time/],
    [['update', 'ann_x', '--type', 'Deploy'], /Invalid --type "Deploy"/],
    [['list', '--start', 'now', '--end', 'now-1d'], /Invalid --end .*: it is before --start/],
  ])('exits 2 with one line saying what was wrong for %j', async (args, message) => {
    const result = await annotate(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('exits 2 when no service URL or token is configured', async () => {
    expect((await annotate(['list'], {})).stderr).toMatch(/no service URL; pass --url or set TIMEMARK_URL/);
    expect((await annotate(['list'], { TIMEMARK_URL: service.url })).stderr).toMatch(/no token; pass --token or set TIMEMARK_TOKEN/);
  });

  it('exits 1 with the service message and trace id when the service refuses', async () => {
    const result = await annotate(['get', 'ann_does_not_exist']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^timemark annotate get: GET \/v2\/annotations\/ann_does_not_exist answered 404: .* \[trace id [0-9a-f]+\]\.?\n$/);
  });

  it('exits 1 and never prints the token when the token is wrong', async () => {
    const token = 'xaat-wrong-token-aaaaaaaaaaaaaaaa';
    const result = await annotate(['list'], { TIMEMARK_URL: service.url, TIMEMARK_TOKEN: token });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/answered 401/);
    expect(result.stderr + result.stdout).not.toContain(token);
  });

  it('says which URL refused the connection and asks whether the service is running', async () => {
    const result = await annotate(['list', '--retries', '0'], { TIMEMARK_URL: 'http://user:secret@127.0.0.1:1', TIMEMARK_TOKEN: service.token });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'timemark annotate list: nothing answers at http://127.0.0.1:1 (connection refused): is the service running? Start one with "./bin/timemark.js serve", or point --url (TIMEMARK_URL) at yours.\n',
    );
  });

  it('says why a create that timed out was not retried, and names --retry-ambiguous', async () => {
    const silent = await startSilentService();
    try {
      const result = await annotate(['create', '--datasets', 'a', '--type', 'deploy', '--timeout', '200'], { TIMEMARK_URL: silent.url, TIMEMARK_TOKEN: service.token });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'timemark annotate create: POST /v2/annotations failed: no answer within 200 ms, so the annotation may or may not exist, and it was not sent again because that could create it twice; check with "./bin/timemark.js annotate list", or pass --retry-ambiguous to retry such failures.\n',
      );
      expect(silent.requests()).toBe(1);
      const retried = await annotate(['create', '--datasets', 'a', '--type', 'deploy', '--timeout', '200', '--retries', '1', '--retry-ambiguous'], {
        TIMEMARK_URL: silent.url,
        TIMEMARK_TOKEN: service.token,
      });
      expect(retried.stderr).toMatch(/no answer within 200 ms \(after 2 attempts\)\.\n$/);
      expect(silent.requests()).toBe(3);
    } finally {
      await silent.close();
    }
  });

  it('reads a time without an offset as UTC', async () => {
    const created = await annotate(['create', '--datasets', 'cli-utc', '--type', 'deploy', '--time', '2024-05-01 14:00', '--end-time', '2024-05-01T14:30']);
    expect(created.json).toMatchObject({ time: '2024-05-01T14:00:00.000Z', endTime: '2024-05-01T14:30:00.000Z' });
  });
});

/** A service that takes requests and never answers them. */
async function startSilentService(): Promise<{ url: string; requests(): number; close(): Promise<void> }> {
  let count = 0;
  const server = createServer(() => {
    count++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
