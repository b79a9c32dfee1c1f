import { beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../helpers/api-tokens.js';
import { useLocalService } from '../helpers/local-service.js';
import { LOGS, PULL_REQUEST_EVENTS, PUSH_EVENTS, TRACES } from '../engine/query/multi-table.fixtures.js';

/**
 * Queries that read several datasets (union, join, lookup) or none (print, datatable) over HTTP on
 * the real local service: the reply names every dataset read, a dataset pattern matches only the
 * datasets the token may query, and externaldata is a 400 that says why.
 */

const service = useLocalService();
const WINDOW = { startTime: '2024-05-01T00:00:00Z', endTime: '2024-05-02T00:00:00Z' };

beforeAll(async () => {
  for (const [dataset, events] of [
    ['otel-demo-traces', TRACES],
    ['otel-demo-logs', LOGS],
    ['github-push-event', PUSH_EVENTS],
    ['github-pull-request-event', PULL_REQUEST_EVENTS],
  ] as const) {
    expect(await service.axiom.ingest(dataset, events as unknown as Record<string, unknown>[])).toMatchObject({ failed: 0 });
  }
});

async function apl(query: string, token = service.token): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${service.url}/v1/datasets/_apl?format=tabular`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ apl: query, ...WINDOW }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('APL over several tables, over HTTP', () => {
  it('joins two datasets and names both in the reply', async () => {
    const { status, body } = await apl("['otel-demo-traces'] | join kind=leftouter ['otel-demo-logs'] on trace_id | summarize count() by span_id | order by span_id asc");
    expect(status).toBe(200);
    expect(body.datasetNames).toEqual(['otel-demo-traces', 'otel-demo-logs']);
    expect(body.tables[0].columns).toEqual([
      ['s1', 's2', 's3', 's4'],
      [1, 1, 2, 1],
    ]);
    expect(body.status.rowsExamined).toBe(TRACES.length + LOGS.length);
  });

  it('answers print and datatable without reading a dataset', async () => {
    const { status, body } = await apl("print greeting = strcat('hello', ' ', 'world')");
    expect(status).toBe(200);
    expect(body.datasetNames).toEqual([]);
    expect(body.tables[0].columns).toEqual([['hello world']]);
  });

  it('matches a union pattern only against the datasets the token may query', async () => {
    const { token } = await mintToken(service, { datasetCapabilities: { 'github-push-event': { query: ['read'] } } });
    const all = await apl('union withsource=ds github* | summarize count() by ds | order by ds asc');
    expect(all.body.tables[0].columns).toEqual([
      ['github-pull-request-event', 'github-push-event'],
      [3, 2],
    ]);
    const some = await apl('union withsource=ds github* | summarize count() by ds', token);
    expect(some.status).toBe(200);
    expect(some.body.tables[0].columns).toEqual([['github-push-event'], [2]]);
    const named = await apl("['github-push-event'] | union ['github-pull-request-event'] | count", token);
    expect(named.status).toBe(403);
  });

  it('refuses externaldata with a 400 that says it is hosted-only', async () => {
    const { status, body } = await apl('externaldata (a:string) ["https://example.com/a.csv"] with (format="csv")');
    expect(status).toBe(400);
    expect(body.message).toMatch(/^line 1, column 1: externaldata is not available on the local service/);
    expect(body.detail).toMatchObject({ compileErrorCode: 9, line: 1, column: 1 });
  });
});
