import { describe, expect, it } from 'vitest';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';

const service = useLocalService();
const api = () => serviceApi(service);
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };

async function column(apl: string): Promise<unknown[]> {
  const reply = await api().call('POST', '/v1/datasets/_apl', { apl, ...WINDOW });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  return reply.body.tables[0].columns[0] as unknown[];
}

describe('/v2/vfields', () => {
  it('refuses what cannot be a virtual field of a dataset with 400, 404 or 409, and keeps none of them', async () => {
    await api().ingest('vf-checks', [{ _time: '2024-01-01T00:00:00Z', ms: 5, path: '/a' }]);
    await api().call('POST', '/v2/vfields', { dataset: 'vf-checks', name: 'taken', expression: 'ms * 2' });
    const cases: Array<[unknown, number, RegExp]> = [
      [{ dataset: 'no-such', name: 'x', expression: 'ms' }, 404, /Dataset "no-such" not found/],
      [{ dataset: 'vf-checks', name: 'taken', expression: 'ms' }, 409, /already has a virtual field "taken"/],
      [{ dataset: 'vf-checks', name: 'x', expression: 'ms +' }, 400, /line 1, column 5/],
      [{ dataset: 'vf-checks', name: 'x', expression: 'count()' }, 400, /count/],
      [{ dataset: 'vf-checks', name: 'x', expression: 'path * 2' }, 400, /string/],
      [{ dataset: 'vf-checks', name: '', expression: 'ms' }, 400, /Invalid name ""/],
      [{ dataset: 'vf-checks', name: 'x\ny', expression: 'ms' }, 400, /Invalid name/],
      [{ name: 'x', expression: 'ms' }, 400, /Invalid dataset null/],
      [{ dataset: 'vf-checks', name: 'x', expression: 'x'.repeat(70_000) }, 400, /Invalid expression/],
    ];
    for (const [body, status, message] of cases) {
      const reply = await api().call('POST', '/v2/vfields', body);
      expect(reply, JSON.stringify(body).slice(0, 100)).toMatchObject({ status, body: { code: status, message: expect.stringMatching(message) } });
    }
    expect((await api().call('GET', '/v2/vfields?dataset=vf-checks')).body.map((field: { name: string }) => field.name)).toEqual(['taken']);
    expect((await api().call('GET', '/v2/vfields')).body).toEqual({ code: 400, message: expect.stringMatching(/Missing the dataset query parameter/) });
    expect((await api().call('GET', '/v2/vfields/no-such')).status).toBe(404);
  });

  it('gives every query of the dataset the field: filters, groups, a replaced stored field, the structured query', async () => {
    await api().ingest('vf-query', [
      { _time: '2024-01-01T00:00:01Z', ms: 1500, path: '/cart', region: 'eu' },
      { _time: '2024-01-01T00:00:02Z', ms: 250, path: '/pay', region: 'us' },
    ]);
    for (const field of [
      { name: 'seconds', expression: 'ms / 1000.0' },
      { name: 'slow', expression: 'ms > 1000' },
      { name: 'region', expression: 'toupper(region)' },
      { name: 'later', expression: 'not_yet_ingested * 2' },
    ]) {
      expect((await api().call('POST', '/v2/vfields', { dataset: 'vf-query', ...field })).status).toBe(200);
    }
    expect(await column("['vf-query'] | where slow | project path")).toEqual(['/cart']);
    expect(await column("['vf-query'] | summarize sum(seconds)")).toEqual([1.75]);
    expect(await column("['vf-query'] | sort by _time asc | project region")).toEqual(['EU', 'US']);
    // A field that does not bind yet is left out: queries that do not name it run.
    expect(await column("['vf-query'] | count")).toEqual([2]);
    const named = await api().call('POST', '/v1/datasets/_apl', { apl: "['vf-query'] | project later", ...WINDOW });
    expect(named.body.message).toMatch(/later/);
    const structured = await api().call('POST', '/v1/datasets/vf-query/query', {
      ...WINDOW,
      aggregations: [{ op: 'count', alias: 'n' }],
      groupBy: ['region'],
      filter: { op: '==', field: 'slow', value: true },
    });
    expect(structured.body.buckets.totals).toEqual([{ id: expect.any(Number), group: { region: 'EU' }, aggregations: [{ op: 'n', value: 1 }] }]);
  });

  it('goes with its dataset', async () => {
    await api().ingest('vf-gone', [{ ms: 1 }]);
    await api().call('POST', '/v2/vfields', { dataset: 'vf-gone', name: 'double', expression: 'ms * 2' });
    expect((await api().call('DELETE', '/v2/datasets/vf-gone')).status).toBe(204);
    await api().ingest('vf-gone', [{ ms: 1 }]);
    expect((await api().call('GET', '/v2/vfields?dataset=vf-gone')).body).toEqual([]);
  });
});
