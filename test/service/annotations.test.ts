import { beforeAll, describe, expect, it } from 'vitest';
import { useLocalService } from '../helpers/local-service.js';

const service = useLocalService();

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(service.url + path, {
    method,
    headers: {
      authorization: `Bearer ${service.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? (JSON.parse(text) as any) : undefined };
}

describe('creating annotations', () => {
  it('answers 201 with an ann_ id and every field it was sent, times in UTC milliseconds', async () => {
    const reply = await call('POST', '/v2/annotations', {
      datasets: ['create-a', 'create-b'],
      type: 'production-deploy',
      time: '2024-03-01T12:00:00.123456789+02:00',
      endTime: '2024-03-01T10:30:00Z',
      title: 'Deploy v1.2.3',
      description: 'Commit abc',
      url: 'https://github.com/org/repo/pull/1',
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.json).toEqual({
      id: expect.stringMatching(/^ann_[a-z2-7]{20}$/),
      datasets: ['create-a', 'create-b'],
      type: 'production-deploy',
      time: '2024-03-01T10:00:00.123Z',
      endTime: '2024-03-01T10:30:00.000Z',
      title: 'Deploy v1.2.3',
      description: 'Commit abc',
      url: 'https://github.com/org/repo/pull/1',
    });
  });

  it('defaults time to now and omits unset keys, endTime included', async () => {
    const before = Date.now();
    const reply = await call('POST', '/v2/annotations', { datasets: ['defaults'], type: 'deploy', title: null, endTime: '0001-01-01T00:00:00Z' });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.json).sort()).toEqual(['datasets', 'id', 'time', 'type']);
    expect(Date.parse(reply.json.time)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(reply.json.time)).toBeLessThanOrEqual(Date.now());
  });

  it.each([
    [{ type: 'deploy' }, /Missing datasets/],
    [{ datasets: [], type: 'deploy' }, /Invalid datasets: the list is empty/],
    [{ datasets: ['ok', ''], type: 'deploy' }, /Invalid dataset name ""/],
    [{ datasets: 'prod', type: 'deploy' }, /Invalid datasets "prod"/],
    [{ datasets: ['a'] }, /Missing type/],
    [{ datasets: ['a'], type: 'Deploy' }, /Invalid type "Deploy".*lowercase/],
    [{ datasets: ['a'], type: 'x'.repeat(257) }, /Invalid type/],
    [{ datasets: ['a'], type: 'deploy', time: 'yesterday' }, /Invalid time "yesterday"/],
    [{ datasets: ['a'], type: 'deploy', time: 1700000000 }, /Invalid time 1700000000/],
    [{ datasets: ['a'], type: 'deploy', time: '2024-01-02T00:00:00Z', endTime: '2024-01-01T00:00:00Z' }, /endTime .* before time/],
    [{ datasets: ['a'], type: 'deploy', title: 't'.repeat(257) }, /Invalid title "t+…: 257 characters. Expected at most 256/],
    [{ datasets: ['a'], type: 'deploy', description: 'd'.repeat(513) }, /Invalid description "d+…: 513 characters/],
    [{ datasets: ['a'], type: 'deploy', url: 'u'.repeat(513) }, /Invalid url "u+…: 513 characters. Expected at most 512/],
    [{ datasets: ['a'], type: 'deploy', titel: 'typo' }, /Unknown field "titel"/],
    [['not', 'an', 'object'], /must be a JSON object/],
  ])('rejects %j with a 400 that names the problem', async (body, message) => {
    const reply = await call('POST', '/v2/annotations', body);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ code: 400, message: expect.stringMatching(message) });
  });

  it('answers 400 for malformed JSON, 415 for another content type and 413 for an oversized body', async () => {
    const malformed = await call('POST', '/v2/annotations', '{"datasets": [');
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toMatch(/not valid JSON/);

    const wrongType = await call('POST', '/v2/annotations', 'datasets=a', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.json).toEqual({ code: 415, message: expect.stringMatching(/Expected application\/json/) });

    const latin1 = await call('POST', '/v2/annotations', '{}', { 'content-type': 'application/json; charset=latin1' });
    expect(latin1.status).toBe(415);
    expect(latin1.json.message).toBe('Unsupported charset "latin1". Expected UTF-8.');

    const zipped = await call('POST', '/v2/annotations', '{}', { 'content-encoding': 'x-compress-9000' });
    expect(zipped.status).toBe(415);
    expect(zipped.json.message).toMatch(/Unsupported Content-Encoding "x-compress-9000"/);

    const huge = await call('POST', '/v2/annotations', { datasets: ['a'], type: 'deploy', description: 'x'.repeat(200_000) });
    expect(huge.status).toBe(413);
    expect(huge.json.code).toBe(413);
  });
});

describe('reading, changing and deleting one annotation', () => {
  it('gets, merges a partial update, keeps unsent and null fields, then deletes with 204', async () => {
    const created = (await call('POST', '/v2/annotations', { datasets: ['lifecycle'], type: 'deploy', time: '2024-05-01T00:00:00Z', title: 'Start', url: 'https://example.com/1' })).json;

    const fetched = await call('GET', `/v2/annotations/${created.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.json).toEqual(created);

    const closed = await call('PUT', `/v2/annotations/${created.id}`, { endTime: '2024-05-01T00:10:00+00:00', title: null, description: 'Done' });
    expect(closed.status).toBe(200);
    expect(closed.json).toEqual({ ...created, endTime: '2024-05-01T00:10:00.000Z', description: 'Done' });

    const unchangedByZeroTime = await call('PUT', `/v2/annotations/${created.id}`, { endTime: '0001-01-01T00:00:00Z', id: created.id });
    expect(unchangedByZeroTime.json.endTime).toBe('2024-05-01T00:10:00.000Z');

    const cleared = await call('PUT', `/v2/annotations/${created.id}`, { url: '' });
    expect(cleared.json.url).toBeUndefined();

    const deleted = await call('DELETE', `/v2/annotations/${created.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    const gone = await call('GET', `/v2/annotations/${created.id}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ code: 404, message: expect.stringContaining('not found') });
  });

  it('refuses an update that would put endTime before time, and leaves the annotation as it was', async () => {
    const created = (await call('POST', '/v2/annotations', { datasets: ['order'], type: 'deploy', time: '2024-05-01T00:00:00Z', endTime: '2024-05-01T01:00:00Z' })).json;
    const refused = await call('PUT', `/v2/annotations/${created.id}`, { time: '2024-05-01T02:00:00Z' });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/endTime .* before time/);
    expect((await call('GET', `/v2/annotations/${created.id}`)).json).toEqual(created);
  });

  it('answers 404 for unknown ids on get, put and delete', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const reply = await call(method, '/v2/annotations/ann_doesnotexist', method === 'PUT' ? { title: 'x' } : undefined);
      expect(reply.status, method).toBe(404);
      expect(reply.json.message).toContain('not found');
    }
  });

  it('rejects a body whose id differs from the path', async () => {
    const created = (await call('POST', '/v2/annotations', { datasets: ['ids'], type: 'deploy' })).json;
    const reply = await call('PUT', `/v2/annotations/${created.id}`, { id: 'ann_other', title: 'x' });
    expect(reply.status).toBe(400);
    expect(reply.json.message).toMatch(/differs from the id in the path/);
  });
});

describe('listing annotations', () => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const fixtures = [
      { key: 'early', datasets: ['list-x'], time: '2024-06-01T00:00:00Z' },
      { key: 'span', datasets: ['list-x', 'list-y'], time: '2024-06-01T01:00:00Z', endTime: '2024-06-01T05:00:00Z' },
      { key: 'late', datasets: ['list-y'], time: '2024-06-01T06:00:00Z' },
      { key: 'other', datasets: ['list-z'], time: '2024-06-01T03:00:00Z' },
    ];
    for (const { key, ...fields } of fixtures) {
      ids[key] = (await call('POST', '/v2/annotations', { type: 'deploy', ...fields })).json.id;
    }
  });

  async function listIds(query: string): Promise<string[]> {
    const reply = await call('GET', `/v2/annotations${query}`);
    expect(reply.status).toBe(200);
    return (reply.json as { id: string }[]).map((annotation) => annotation.id);
  }

  it('filters by comma-separated, encoded and repeated datasets, in ascending time order', async () => {
    const expected = [ids.early, ids.span, ids.late];
    expect(await listIds('?datasets=list-x,list-y')).toEqual(expected);
    expect(await listIds('?datasets=list-x%2Clist-y')).toEqual(expected);
    expect(await listIds('?datasets=list-x&datasets=list-y&datasets=')).toEqual(expected);
    expect(await listIds('?datasets=list-z')).toEqual([ids.other]);
  });

  it('matches spans that overlap the window, not only ones that start in it', async () => {
    expect(await listIds('?datasets=list-x,list-y&start=2024-06-01T02:00:00Z&end=2024-06-01T04:00:00Z')).toEqual([ids.span]);
    expect(await listIds('?datasets=list-x,list-y&start=2024-06-01T05:30:00Z')).toEqual([ids.late]);
    expect(await listIds('?datasets=list-x,list-y&end=2024-06-01T00:30:00Z')).toEqual([ids.early]);
  });

  it('uses the first start when start is repeated and treats the zero time as unset', async () => {
    expect(await listIds('?datasets=list-y&start=2024-06-01T05:30:00Z&start=2024-06-01T00:00:00Z')).toEqual([ids.late]);
    expect(await listIds('?datasets=list-x&start=0001-01-01T00:00:00Z&end=0001-01-01T00:00:00Z')).toEqual([ids.early, ids.span]);
  });

  it('answers [] when nothing matches and 400 for an unreadable or reversed window', async () => {
    expect(await listIds('?datasets=nothing-here')).toEqual([]);
    const bad = await call('GET', '/v2/annotations?start=last-tuesday');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/Invalid start "last-tuesday"/);
    const reversed = await call('GET', '/v2/annotations?start=2024-06-02T00:00:00Z&end=2024-06-01T00:00:00Z');
    expect(reversed.status).toBe(400);
    const tooMany = await call('GET', `/v2/annotations?datasets=${Array.from({ length: 101 }, (_, i) => `d${i}`).join(',')}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.message).toMatch(/101 names. Expected at most 100/);
  });

  it('finds an annotation under its new datasets and time after an update', async () => {
    const created = (await call('POST', '/v2/annotations', { datasets: ['move-a'], type: 'deploy', time: '2024-07-01T00:00:00Z' })).json;
    await call('PUT', `/v2/annotations/${created.id}`, { datasets: ['move-b'], time: '2024-07-02T00:00:00Z' });
    expect(await listIds('?datasets=move-a')).toEqual([]);
    expect(await listIds('?datasets=move-b&start=2024-07-01T12:00:00Z')).toEqual([created.id]);
  });
});

describe('errors outside the routes', () => {
  it('answers JSON 404 for unknown paths and JSON 405 with Allow for wrong methods', async () => {
    const unknown = await call('GET', '/v2/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
    expect(unknown.json.message).toContain('not found');

    const wrongMethod = await call('PATCH', '/v2/annotations/ann_x', { title: 'x' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, PUT, DELETE');
    expect(wrongMethod.json.code).toBe(405);
  });

  it('serves /healthz without a token', async () => {
    const response = await fetch(`${service.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});
