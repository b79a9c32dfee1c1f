import { describe, expect, it } from 'vitest';
import { useLocalService } from '../helpers/local-service.js';

const service = useLocalService();

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(service.url + path, {
    method,
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as any) : undefined };
}

describe('datasets', () => {
  it('creates, lists, gets and deletes a dataset, with 409 for a second create', async () => {
    const created = await call('POST', '/v2/datasets', { name: 'web-logs', description: 'Access logs' });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      id: 'web-logs',
      name: 'web-logs',
      kind: 'axiom:events:v1',
      description: 'Access logs',
      who: 'local',
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      canWrite: true,
      mapFields: [],
    });
    expect((await call('POST', '/v2/datasets', { name: 'web-logs' })).status).toBe(409);
    expect((await call('GET', '/v2/datasets')).json.map((dataset: { name: string }) => dataset.name)).toContain('web-logs');
    expect((await call('GET', '/v2/datasets/web-logs')).json.name).toBe('web-logs');
    expect((await call('DELETE', '/v2/datasets/web-logs')).status).toBe(204);
    expect((await call('GET', '/v2/datasets/web-logs')).status).toBe(404);
    expect((await call('DELETE', '/v2/datasets/web-logs')).status).toBe(404);
  });

  it('rejects a dataset name that is not allowed', async () => {
    const reply = await call('POST', '/v2/datasets', { name: 'has space' });
    expect(reply.status).toBe(400);
    expect(reply.json.message).toMatch(/Invalid name "has space"/);
  });

  it('allows annotations on datasets that were never created', async () => {
    expect((await call('POST', '/v2/annotations', { datasets: ['never-created'], type: 'deploy' })).status).toBe(201);
  });
});

describe('the current user', () => {
  it('answers GET /v2/user with id, name, email and role', async () => {
    const reply = await call('GET', '/v2/user');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ id: 'local', name: expect.any(String), email: expect.any(String), role: { id: 'owner', name: 'Owner' } });
  });
});
