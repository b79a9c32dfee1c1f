import { AxiomWithoutBatching } from '@axiomhq/js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeTempDir, startLocalService, useLocalService } from '../helpers/local-service.js';

const DOCUMENT = JSON.parse(readFileSync(new URL('../fixtures/dashboards/deploys.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const service = useLocalService();

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(service.url + path, {
    method,
    headers: { authorization: `Bearer ${service.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? (JSON.parse(text) as any) : undefined };
}

async function create(document: Record<string, unknown> = DOCUMENT, extra: Record<string, unknown> = {}) {
  const reply = await call('POST', '/v2/dashboards', { dashboard: document, ...extra });
  expect(reply.status, reply.text).toBe(201);
  return reply.json.dashboard as { uid: string; version: number; [key: string]: unknown };
}

describe('dashboards through @axiomhq/js', () => {
  it('gets a saved dashboard with the fields the client reads, the document as it was sent', async () => {
    const created = await create();
    const fetched = await service.axiom.dashboards.get(created.uid);
    expect(fetched).toEqual({
      uid: created.uid,
      id: expect.stringMatching(/^\d+$/),
      dashboard: DOCUMENT,
      createdAt: expect.stringMatching(ISO_MS),
      createdBy: 'local',
      updatedAt: fetched.createdAt,
      updatedBy: 'local',
      version: 1,
    });
    expect(fetched).toEqual(created);
  });

  it('lists dashboards oldest first, paged by limit and offset', async () => {
    const fresh = await startLocalService();
    try {
      const client = new AxiomWithoutBatching({ token: fresh.token, url: fresh.url });
      const uids: string[] = [];
      for (const name of ['one', 'two', 'three']) {
        const reply = await fetch(`${fresh.url}/v2/dashboards`, {
          method: 'POST',
          headers: { authorization: `Bearer ${fresh.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ dashboard: { ...DOCUMENT, name } }),
        });
        uids.push(((await reply.json()) as { dashboard: { uid: string } }).dashboard.uid);
      }
      expect((await client.dashboards.list()).map((dashboard) => dashboard.uid)).toEqual(uids);
      expect((await client.dashboards.list({ limit: 2 })).map((dashboard) => dashboard.dashboard.name)).toEqual(['one', 'two']);
      expect((await client.dashboards.list({ limit: 2, offset: 2 })).map((dashboard) => dashboard.dashboard.name)).toEqual(['three']);
      expect(await client.dashboards.list({ offset: 3 })).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('rejects an unknown uid with a 404 the client reports', async () => {
    await expect(service.axiom.dashboards.get('no-such-dashboard')).rejects.toThrow(/404.*not found/);
  });
});

describe('writing dashboards (local extension)', () => {
  it('updates a dashboard based on its current version and counts the version up', async () => {
    const created = await create();
    const reply = await call('PUT', `/v2/dashboards/uid/${created.uid}`, { dashboard: { ...DOCUMENT, name: 'Renamed' }, version: 1 });
    expect(reply.status).toBe(200);
    expect(reply.json.dashboard).toMatchObject({ uid: created.uid, version: 2, createdAt: created.createdAt, dashboard: { name: 'Renamed' } });
    expect((await service.axiom.dashboards.get(created.uid)).version).toBe(2);
  });

  it('refuses an update based on a stale version with a 409, and keeps the newer document', async () => {
    const created = await create();
    expect((await call('PUT', `/v2/dashboards/uid/${created.uid}`, { dashboard: { ...DOCUMENT, name: 'First writer' }, version: 1 })).status).toBe(200);
    const stale = await call('PUT', `/v2/dashboards/uid/${created.uid}`, { dashboard: { ...DOCUMENT, name: 'Second writer' }, version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.json).toEqual({ code: 409, message: expect.stringContaining('is at version 2') });
    expect((await service.axiom.dashboards.get(created.uid)).dashboard.name).toBe('First writer');
  });

  it('needs the version read, unless the update says overwrite', async () => {
    const created = await create();
    const missing = await call('PUT', `/v2/dashboards/uid/${created.uid}`, { dashboard: DOCUMENT });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toMatch(/Missing version/);
    const overwritten = await call('PUT', `/v2/dashboards/uid/${created.uid}`, { dashboard: { ...DOCUMENT, name: 'Forced' }, overwrite: true });
    expect(overwritten.json.dashboard).toMatchObject({ version: 2, dashboard: { name: 'Forced' } });
  });

  it('creates with a chosen uid once; again only with overwrite', async () => {
    const created = await create(DOCUMENT, { uid: 'team-deploys' });
    expect(created.uid).toBe('team-deploys');
    const again = await call('POST', '/v2/dashboards', { dashboard: DOCUMENT, uid: 'team-deploys' });
    expect(again.status).toBe(409);
    const replaced = await create({ ...DOCUMENT, name: 'Replaced' }, { uid: 'team-deploys', overwrite: true });
    expect(replaced).toMatchObject({ uid: 'team-deploys', version: 2, dashboard: { name: 'Replaced' } });
  });

  it('deletes with a 204 and an empty body; the uid is then unknown', async () => {
    const created = await create();
    const deleted = await call('DELETE', `/v2/dashboards/uid/${created.uid}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await call('GET', `/v2/dashboards/uid/${created.uid}`)).status).toBe(404);
    expect((await call('DELETE', `/v2/dashboards/uid/${created.uid}`)).status).toBe(404);
    expect((await call('PUT', `/v2/dashboards/uid/${created.uid}`, { dashboard: DOCUMENT, version: 1 })).status).toBe(404);
  });

  it.each([
    [{ dashboard: { charts: [] } }, /Invalid dashboard\.name nothing/],
    [{ dashboard: { name: 'x', charts: {} } }, /Invalid dashboard\.charts \{\}/],
    [{ dashboard: { name: 'x', charts: [{ id: 'a' }, { id: 'a' }] } }, /Duplicate chart id "a"/],
    [{ dashboard: { name: 'x', charts: [{ id: 'a', query: { apl: 42 } }] } }, /dashboard\.charts\[0\]\.query\.apl 42/],
    [{ dashboard: { name: 'x', charts: [], refreshTime: '60' } }, /dashboard\.refreshTime "60"/],
    [{ dashboard: { name: 'x', charts: [] }, uid: 'has space' }, /Invalid uid "has space"/],
    [{ dashboard: { name: 'x', charts: [] }, colour: 'red' }, /Unknown field "colour"/],
    [{ name: 'x', charts: [] }, /Unknown field "name"/],
    [[], /must be a JSON object, got \[\]/],
  ])('answers 400 naming what is wrong in %j', async (body, message) => {
    const reply = await call('POST', '/v2/dashboards', body);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ code: 400, message: expect.stringMatching(message) });
  });

  it.each([
    ['limit=0', /Invalid limit "0"\. Expected an integer from 1 to 1000/],
    ['limit=1001', /Invalid limit "1001"/],
    ['offset=-1', /Invalid offset "-1"\. Expected an integer of at least 0/],
    ['limit=ten', /Invalid limit "ten"/],
  ])('answers 400 for the list parameters %s', async (query, message) => {
    const reply = await call('GET', `/v2/dashboards?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.json.message).toMatch(message);
  });

  it('needs a token like every other API route', async () => {
    const reply = await fetch(`${service.url}/v2/dashboards`);
    expect(reply.status).toBe(401);
  });

  it('keeps saved dashboards across a restart', async () => {
    const dataDir = makeTempDir('dashboards-restart');
    const first = await startLocalService({ dataDir });
    const reply = await fetch(`${first.url}/v2/dashboards`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dashboard: DOCUMENT }),
    });
    const { uid } = ((await reply.json()) as { dashboard: { uid: string } }).dashboard;
    await first.close();
    const second = await startLocalService({ dataDir });
    try {
      const client = new AxiomWithoutBatching({ token: second.token, url: second.url });
      expect((await client.dashboards.get(uid)).dashboard).toEqual(DOCUMENT);
    } finally {
      await second.close();
    }
  });
});

describe('the dashboard page', () => {
  it('serves the page at / without a token, with a CSP that allows no inline script', async () => {
    const reply = await fetch(`${service.url}/`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = reply.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await reply.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=/);
  });

  it.each([
    ['/assets/js/dashboard/main.js', /javascript/],
    ['/assets/js/common/dashboard-link.js', /javascript/],
    ['/assets/dashboard.css', /text\/css/],
    ['/assets/vendor/uPlot.iife.min.js', /javascript/],
    ['/assets/vendor/uPlot.min.css', /text\/css/],
  ])('serves %s', async (path, type) => {
    const reply = await fetch(service.url + path);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(type);
  });

  it('answers 404 for assets it does not have, 405 for writes to the page', async () => {
    expect((await fetch(`${service.url}/assets/js/dashboard/nope.js`)).status).toBe(404);
    expect((await fetch(`${service.url}/assets/js/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${service.url}/`, { method: 'POST' })).status).toBe(405);
  });
});
