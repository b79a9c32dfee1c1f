import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Annotation } from '../../src/client/types.js';
import { runTimemark } from '../helpers/child-process.js';
import { startLocalService, type LocalService } from '../helpers/local-service.js';

let service: LocalService;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  service = await startLocalService();
  env = { TIMEMARK_URL: service.url, TIMEMARK_TOKEN: service.token };
});
afterAll(async () => {
  await service.close();
});

async function annotate(args: string[], extraEnv: NodeJS.ProcessEnv = env) {
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
    [['create', '--type', 'deploy'], /needs --datasets/],
    [['create', '--datasets', 'a'], /needs --type/],
    [['create', '--datasets', 'a,,b', '--type', 'deploy'], /Invalid --datasets "a,,b"/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--time', 'soon'], /Invalid --time "soon". Expected .*now-5m/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--colour', 'red'], /Unknown option '--colour'/],
    [['close'], /needs the annotation id/],
    [['get', 'a', 'b'], /unexpected argument "b"/],
    [['update', 'ann_x'], /needs at least one field/],
    [['list', '--title', 'x'], /does not take --title/],
    [['frobnicate'], /Unknown annotate command "frobnicate"/],
    [['create', '--datasets', 'a', '--type', 'deploy', '--timeout', 'fast'], /Invalid --timeout "fast"/],
  ])('exits 2 with one line saying what was wrong for %j', async (args, message) => {
    const result = await annotate(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('exits 2 when no service URL or token is configured', async () => {
    expect((await annotate(['list'], {})).stderr).toMatch(/No service URL. Pass --url or set TIMEMARK_URL/);
    expect((await annotate(['list'], { TIMEMARK_URL: service.url })).stderr).toMatch(/No token. Pass --token or set TIMEMARK_TOKEN/);
  });

  it('exits 1 with the service message and trace id when the service refuses', async () => {
    const result = await annotate(['create', '--datasets', 'a', '--type', 'Bad Type']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^timemark annotate: POST \/v2\/annotations answered 400: Invalid type "Bad Type".* \[trace id [0-9a-f]+\]\n$/);
  });

  it('exits 1 and never prints the token when the token is wrong', async () => {
    const token = 'xaat-wrong-token-aaaaaaaaaaaaaaaa';
    const result = await annotate(['list'], { TIMEMARK_URL: service.url, TIMEMARK_TOKEN: token });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/answered 401/);
    expect(result.stderr + result.stdout).not.toContain(token);
  });

  it('exits 1 with a one-line reason when the service is unreachable', async () => {
    const result = await annotate(['list', '--retries', '0'], { TIMEMARK_URL: 'http://127.0.0.1:1', TIMEMARK_TOKEN: service.token });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^timemark annotate: GET \/v2\/annotations failed: .*ECONNREFUSED.*\n$/);
  });
});
