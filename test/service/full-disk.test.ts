/**
 * The service with its data dir on a small filesystem (a 64 MB tmpfs, mounted for the test), filled
 * up: every write route answers 507 with a sentence naming the cause and the data-dir setting,
 * nothing is half-written (the same request succeeds once space is back, without a restart, and
 * is stored once), /readyz says `disk full`, the log has one error line for the episode, and every
 * write acknowledged before the disk filled up is still there.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { startService, type RunningService } from '../../src/service/server.js';
import { TEST_TOKEN, testServiceConfig } from '../helpers/local-service.js';
import { runOnlyIf } from '../helpers/requirements.js';
import { mountSmallFilesystem, type SmallFilesystem } from '../helpers/small-filesystem.js';

const DOCUMENT = JSON.parse(readFileSync(new URL('../fixtures/dashboards/deploys.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const DATASET = 'full-disk';

/** One request per write route, unique per `round` so that each round creates new things. */
function writes(round: string): Array<{ route: string; path: string; body: unknown }> {
  return [
    { route: 'ingest', path: `/v1/datasets/${DATASET}/ingest`, body: [{ round, n: 1 }, { round, n: 2 }] },
    { route: 'annotations', path: '/v2/annotations', body: { datasets: [DATASET], type: 'deploy', title: `deploy ${round}` } },
    { route: 'datasets', path: '/v2/datasets', body: { name: `fd-${round}`, description: 'made on a full disk' } },
    { route: 'dashboards', path: '/v2/dashboards', body: { dashboard: { ...DOCUMENT, name: `board ${round}` } } },
    {
      route: 'monitors',
      path: '/v2/monitors',
      body: { name: `monitor ${round}`, type: 'Threshold', aplQuery: `['${DATASET}'] | summarize count()`, operator: 'Above', threshold: 1e9, intervalMinutes: 60, rangeMinutes: 5 },
    },
    { route: 'notifiers', path: '/v2/notifiers', body: { name: `notifier ${round}`, properties: { customWebhook: { url: 'http://127.0.0.1:9/' } } } },
    { route: 'tokens', path: '/v2/tokens', body: { name: `token ${round}`, description: '', datasetCapabilities: { [DATASET]: { ingest: ['create'] } } } },
    { route: 'vfields', path: '/v2/vfields', body: { dataset: DATASET, name: `vf_${round}`, expression: 'n * 2' } },
  ];
}

describe('the service on a full disk', () => {
  // Mounted in beforeAll, so that a run that skips these tests mounts nothing.
  let disk: SmallFilesystem | undefined;
  let mounted = false;
  let dataDir = '';
  const lines: Array<Record<string, unknown>> = [];
  let service: RunningService | undefined;

  async function call(path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') {
    const response = await fetch(`${service?.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, type: response.headers.get('content-type'), body: text === '' ? undefined : (JSON.parse(text) as any) };
  }

  beforeAll(async () => {
    disk = mountSmallFilesystem('timemark-full-disk-', 64);
    mounted = disk.mounted;
    if (!mounted) return;
    dataDir = join(disk.mountPoint, 'data');
    mkdirSync(dataDir);
    const logger = createLogger({ name: 'timemark-service', level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    service = await startService(testServiceConfig({ dataDir }), { logger });
  });
  afterAll(async () => {
    await service?.close();
    disk?.remove();
  });

  it('answers 507 on every write route, says disk full, logs the episode once, and takes the same writes again once space is back', async (context) => {
    runOnlyIf(context, mounted, 'it mounts a 64 MB tmpfs, which needs root');

    // Acknowledged before the disk fills up: all of it must survive.
    for (const write of writes('before')) expect([200, 201], write.route).toContain((await call(write.path, write.body)).status);

    // The SQLite WAL handed back to the filesystem, so that no write can reuse its pages.
    const db = new Database(join(dataDir, 'timemark.db'));
    expect(db.pragma('wal_checkpoint(TRUNCATE)', { simple: true })).toBe(0);
    db.close();
    disk?.fill();

    for (const attempt of [1, 2]) {
      for (const write of writes('full')) {
        const reply = await call(write.path, write.body);
        expect({ route: write.route, attempt, status: reply.status, type: reply.type }).toEqual({ route: write.route, attempt, status: 507, type: expect.stringMatching(/^application\/json/) });
        expect(reply.body).toEqual({
          code: 507,
          message: `The disk holding the data dir ${dataDir} is full, so nothing was written. Free space on it, or move the data dir (--data-dir / TIMEMARK_DATA_DIR) to a larger disk; then send the request again.`,
        });
      }
    }
    const unready = await call('/readyz');
    expect(unready.status).toBe(503);
    expect(unready.body.checks.disk).toBe('disk full');
    // Errors of the write routes (a failing readiness probe logs its own 503, as for any other cause).
    const errors = () => lines.filter((line) => line.level === 50 && line.route !== '/readyz');
    expect(errors().map((line) => line.msg)).toEqual([expect.stringMatching(/^disk full: /)]);
    expect(lines.filter((line) => line.msg === 'request' && line.status === 507 && line.level === 40)).toHaveLength(16);

    disk?.free();
    // No restart: the readiness probe finds the space, and the service is ready again soon after.
    expect((await call('/readyz')).body.checks.disk).toBe('ok');
    for (let waited = 0; (await call('/readyz')).status !== 200; waited += 100) {
      if (waited > 10_000) throw new Error(`Not ready 10 s after space was freed: ${JSON.stringify((await call('/readyz')).body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(lines.filter((line) => line.msg === 'disk space available again: writes are taken again')).toHaveLength(1);
    // The very requests that failed, sent again: nothing of them was half-written.
    for (const write of writes('full')) {
      const reply = await call(write.path, write.body);
      expect([200, 201], `${write.route}: ${JSON.stringify(reply.body)}`).toContain(reply.status);
    }
    for (const write of writes('after')) expect([200, 201], write.route).toContain((await call(write.path, write.body)).status);

    const titles = ((await call(`/v2/annotations?datasets=${DATASET}`)).body as Array<{ title: string }>).map((annotation) => annotation.title).sort();
    expect(titles).toEqual(['deploy after', 'deploy before', 'deploy full']);
    const datasets = ((await call('/v2/datasets')).body as Array<{ name: string }>).map((dataset) => dataset.name).filter((name) => name.startsWith('fd-'));
    expect(datasets.sort()).toEqual(['fd-after', 'fd-before', 'fd-full']);
    const counted = await call('/v1/datasets/_apl?format=legacy', { apl: `['${DATASET}'] | summarize events = count() by round | order by round asc` });
    expect(counted.status).toBe(200);
    expect((counted.body.buckets.totals as Array<{ group: { round: string }; aggregations: Array<{ value: number }> }>).map((row) => [row.group.round, row.aggregations[0]?.value])).toEqual([
      ['after', 2],
      ['before', 2],
      ['full', 2],
    ]);
    expect(errors()).toHaveLength(1);
  });
});
