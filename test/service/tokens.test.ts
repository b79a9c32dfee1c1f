import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mintToken } from '../helpers/api-tokens.js';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';

const service = useLocalService();
const api = () => serviceApi(service);

async function as(token: string, method: string, path: string, body?: unknown) {
  return serviceApi({ url: service.url, token }).call(method, path, body);
}

describe('/v2/tokens', () => {
  it('shows a token value once, in the create reply, and stores only its digest', async () => {
    const created = await api().call('POST', '/v2/tokens', {
      name: 'CI ingest',
      description: 'for the pipeline',
      expiresAt: '2099-01-01T00:00:00Z',
      datasetCapabilities: { logs: { ingest: ['create'] } },
      orgCapabilities: { annotations: ['update', 'create'] },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'CI ingest',
      description: 'for the pipeline',
      expiresAt: '2099-01-01T00:00:00.000Z',
      datasetCapabilities: { logs: { ingest: ['create'] } },
      orgCapabilities: { annotations: ['create', 'update'] },
      samlAuthenticated: false,
      token: expect.stringMatching(/^xaat-[A-Za-z0-9_-]{43}$/),
    });
    const { token, ...shown } = created.body as { token: string; id: string };
    expect((await api().call('GET', `/v2/tokens/${shown.id}`)).body).toEqual(shown);
    expect((await api().call('GET', '/v2/tokens')).body).toContainEqual(shown);
    for (const file of readdirSync(service.dataDir).filter((name) => name.startsWith('timemark.db'))) {
      expect(readFileSync(join(service.dataDir, file)).includes(token), file).toBe(false);
    }
    expect((await as(token, 'POST', '/v1/datasets/logs/ingest', [{ ok: true }])).status).toBe(200);
  });

  it('refuses a deleted token at once, and answers 404 for it afterwards', async () => {
    const { token, id } = await mintToken(service, { orgCapabilities: { annotations: ['read'] } });
    expect((await as(token, 'GET', '/v2/annotations')).status).toBe(200);
    expect((await api().call('DELETE', `/v2/tokens/${id}`)).status).toBe(204);
    expect(await as(token, 'GET', '/v2/annotations')).toMatchObject({ status: 401, body: { code: 401, message: expect.stringMatching(/Invalid token/) } });
    expect((await api().call('GET', `/v2/tokens/${id}`)).status).toBe(404);
    expect((await api().call('DELETE', `/v2/tokens/${id}`)).status).toBe(404);
  });

  it('regenerates a token: a new id and value with the same capabilities; the old one stops at existingTokenExpiresAt', async () => {
    const old = await mintToken(service, { orgCapabilities: { annotations: ['read'] } });
    const regenerated = await api().call('POST', `/v2/tokens/${old.id}/regenerate`, { existingTokenExpiresAt: new Date().toISOString(), newTokenExpiresAt: '2099-06-01T00:00:00Z' });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body).toMatchObject({ name: 'test token', orgCapabilities: { annotations: ['read'] }, expiresAt: '2099-06-01T00:00:00.000Z', token: expect.stringMatching(/^xaat-/) });
    expect(regenerated.body.id).not.toBe(old.id);
    expect((await as(regenerated.body.token, 'GET', '/v2/annotations')).status).toBe(200);
    expect(await as(old.token, 'GET', '/v2/annotations')).toMatchObject({ status: 401, body: { message: expect.stringMatching(/expired at/) } });
    expect((await api().call('GET', `/v2/tokens/${old.id}`)).body.expiresAt).toEqual(expect.any(String));
  });

  it('regenerates into the token newToken describes, and keeps the old one working until its new expiry', async () => {
    const old = await mintToken(service, { orgCapabilities: { annotations: ['read'] } });
    const replaced = await api().call('POST', `/v2/tokens/${old.id}/regenerate`, {
      existingTokenExpiresAt: '2099-01-01T00:00:00Z',
      newToken: { name: 'replacement', description: 'new', expiresAt: '2099-02-01T00:00:00Z', datasetCapabilities: { '*': { query: ['read'] } }, orgCapabilities: { users: ['read'] } },
    });
    expect(replaced.body).toMatchObject({ name: 'replacement', description: 'new', expiresAt: '2099-02-01T00:00:00.000Z', datasetCapabilities: { '*': { query: ['read'] } }, orgCapabilities: { users: ['read'] } });
    expect((await as(old.token, 'GET', '/v2/annotations')).status).toBe(200);
    expect((await as(replaced.body.token, 'GET', '/v2/annotations')).status).toBe(403);
    expect((await as(replaced.body.token, 'GET', '/v2/users')).status).toBe(200);
  });

  it('lets a token make only tokens that can do no more than it can', async () => {
    const { token } = await mintToken(service, { orgCapabilities: { apiTokens: ['create'], annotations: ['read'] }, datasetCapabilities: { logs: { query: ['read'] } } });
    expect((await as(token, 'POST', '/v2/tokens', { name: 'smaller', orgCapabilities: { annotations: ['read'] }, datasetCapabilities: { logs: { query: ['read'] } } })).status).toBe(200);
    for (const wider of [
      { orgCapabilities: { annotations: ['read', 'delete'] } },
      { orgCapabilities: { apiTokens: ['delete'] } },
      { datasetCapabilities: { other: { query: ['read'] } } },
      { datasetCapabilities: { '*': { query: ['read'] } } },
    ]) {
      const reply = await as(token, 'POST', '/v2/tokens', { name: 'wider', ...wider });
      expect(reply, JSON.stringify(wider)).toMatchObject({ status: 403, body: { code: 403, message: expect.stringMatching(/capabilities this token lacks/) } });
    }
  });

  it('takes the shapes the clients send: axiom-go zero times and empty members, axiom-py nulls', async () => {
    const go = await api().call('POST', '/v2/tokens', {
      name: 'go',
      description: '',
      expiresAt: '0001-01-01T00:00:00Z',
      datasetCapabilities: { '*': { ingest: ['create'], query: null, starredQueries: null, virtualFields: null, trim: null, vacuum: null, data: null, share: null } },
      orgCapabilities: {},
    });
    expect(go.status).toBe(200);
    expect(go.body).not.toHaveProperty('expiresAt');
    expect(go.body.datasetCapabilities).toEqual({ '*': { ingest: ['create'] } });
    const py = await api().call('POST', '/v2/tokens', { name: 'py', description: null, expiresAt: null, datasetCapabilities: null, orgCapabilities: { annotations: null, users: ['read'] } });
    expect(py.status).toBe(200);
    expect(py.body).toMatchObject({ description: '', datasetCapabilities: {}, orgCapabilities: { users: ['read'] } });
  });

  it('answers bad requests with 400 and what was expected, and stores none of them', async () => {
    const before = ((await api().call('GET', '/v2/tokens')).body as unknown[]).length;
    const cases: Array<[unknown, RegExp]> = [
      [{}, /Invalid name null/],
      [{ name: '' }, /Invalid name ""/],
      [{ name: 'x', expiresAt: '2001-01-01T00:00:00Z' }, /it has passed/],
      [{ name: 'x', expiresAt: 'tomorrow' }, /Invalid expiresAt "tomorrow"/],
      [{ name: 'x', orgCapabilities: { flux: ['read'] } }, /Unknown capability "flux"/],
      [{ name: 'x', orgCapabilities: { auditLog: ['delete'] } }, /Invalid action "delete" in orgCapabilities.auditLog. Expected one of: read/],
      [{ name: 'x', datasetCapabilities: { 'bad name': { query: ['read'] } } }, /Invalid dataset "bad name"/],
      [{ name: 'x', datasetCapabilities: { logs: { query: 'read' } } }, /Expected an array of actions/],
      [{ name: 'x', viewCapabilities: { v: { query: ['read'] } } }, /no views/],
      [[], /must be a JSON object/],
    ];
    for (const [body, message] of cases) {
      const reply = await api().call('POST', '/v2/tokens', body);
      expect(reply, JSON.stringify(body)).toMatchObject({ status: 400, body: { code: 400, message: expect.stringMatching(message) } });
    }
    const { id } = await mintToken(service, {});
    expect((await api().call('POST', `/v2/tokens/${id}/regenerate`, {})).body.message).toMatch(/Missing existingTokenExpiresAt/);
    expect((await api().call('POST', '/v2/tokens/no-such/regenerate', { existingTokenExpiresAt: new Date().toISOString() })).status).toBe(404);
    expect(((await api().call('GET', '/v2/tokens')).body as unknown[]).length).toBe(before + 1);
  });
});

describe('queries, virtual fields and history with API tokens', () => {
  it('lets an APL query read only the datasets the token may query', async () => {
    await api().ingest('readable', [{ a: 1 }]);
    await api().ingest('secret', [{ a: 2 }]);
    const { token } = await mintToken(service, { datasetCapabilities: { readable: { query: ['read'] } } });
    expect((await as(token, 'POST', '/v1/datasets/_apl', { apl: "['readable'] | count" })).status).toBe(200);
    expect(await as(token, 'POST', '/v1/query/_apl', { apl: "['secret'] | count" })).toMatchObject({
      status: 403,
      body: { code: 403, message: 'This token lacks the query:read capability on dataset "secret". Expected a token whose capabilities include it.' },
    });
    // Whether a dataset exists is not told to a token that may not query it.
    expect((await as(token, 'POST', '/v1/datasets/_apl', { apl: "['no-such'] | count" })).status).toBe(403);
    expect((await as(token, 'POST', '/v1/datasets/secret/query', { startTime: '2020-01-01T00:00:00Z' })).status).toBe(403);
  });

  it('checks virtualFields on the field\'s dataset for every virtual field call', async () => {
    await api().ingest('vf-a', [{ ms: 1 }]);
    await api().ingest('vf-b', [{ ms: 1 }]);
    const { token } = await mintToken(service, { datasetCapabilities: { 'vf-a': { virtualFields: ['create', 'read', 'update', 'delete'] }, 'vf-b': { virtualFields: ['read'] } } });
    const field = await as(token, 'POST', '/v2/vfields', { dataset: 'vf-a', name: 'seconds', expression: 'ms / 1000' });
    expect(field.status).toBe(200);
    expect((await as(token, 'POST', '/v2/vfields', { dataset: 'vf-b', name: 'seconds', expression: 'ms / 1000' })).status).toBe(403);
    const other = await api().call('POST', '/v2/vfields', { dataset: 'vf-b', name: 'seconds', expression: 'ms / 1000' });
    expect((await as(token, 'GET', `/v2/vfields/${other.body.id}`)).status).toBe(200);
    expect((await as(token, 'PUT', `/v2/vfields/${other.body.id}`, { dataset: 'vf-b', name: 'seconds', expression: 'ms' })).status).toBe(403);
    expect((await as(token, 'DELETE', `/v2/vfields/${other.body.id}`)).status).toBe(403);
    expect((await as(token, 'GET', '/v2/vfields?dataset=vf-b')).status).toBe(200);
    expect((await as(token, 'DELETE', `/v2/vfields/${field.body.id}`)).status).toBe(204);
  });

  it('lets a saved query be read back only by a token that may query its dataset', async () => {
    await api().ingest('history-ds', [{ a: 1 }]);
    const saver = await mintToken(service, { datasetCapabilities: { 'history-ds': { query: ['read'] } } });
    const response = await fetch(`${service.url}/v1/datasets/history-ds/query?saveAsKind=analytics`, {
      method: 'POST',
      headers: { authorization: `Bearer ${saver.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ startTime: '2020-01-01T00:00:00Z' }),
    });
    const id = response.headers.get('x-axiom-history-query-id') as string;
    expect((await as(saver.token, 'GET', `/v1/datasets/_history/${id}`)).body).toMatchObject({ id, who: saver.id, dataset: 'history-ds', kind: 'analytics' });
    const outsider = await mintToken(service, { datasetCapabilities: { other: { query: ['read'] } } });
    expect((await as(outsider.token, 'GET', `/v1/datasets/_history/${id}`)).status).toBe(403);
  });
});
