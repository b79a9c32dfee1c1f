import { createDiskWatch } from '../../src/common/disk-full.js';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenHttp, type HttpListener } from '../../src/common/http/listen.js';
import { createLogger } from '../../src/common/logger.js';
import { createDecodePool, type DecodePool } from '../../src/engine/ingest/decode-pool.js';
import { openEventStore, type EventStore } from '../../src/engine/store/event-store.js';
import { createTokenStore } from '../../src/service/access/token-store.js';
import { createQueryHistory } from '../../src/service/query/history.js';
import { createVirtualFieldStore } from '../../src/service/vfields/store.js';
import { createServiceApp } from '../../src/service/app.js';
import { createAnnotationStore } from '../../src/service/annotations/store.js';
import { createDashboardStore } from '../../src/service/dashboards/store.js';
import { openServiceDatabase, type ServiceDatabase } from '../../src/service/database.js';
import { createDatasets } from '../../src/service/datasets/datasets.js';
import { createDatasetStore } from '../../src/service/datasets/store.js';
import { createMonitorQueryEngine } from '../../src/service/monitors/engine.js';
import { createMonitorRuntime } from '../../src/service/monitors/runtime.js';
import { createServiceMetrics } from '../../src/service/ops/metrics.js';
import { serviceReadiness } from '../../src/service/ops/readiness.js';
import { makeTempDir, TEST_ORG, TEST_TOKEN } from '../helpers/local-service.js';

/** The service's app on its real stores, with its log lines kept, so that a test can also break the store under it. */
describe('the local service in operation', () => {
  const dataDir = makeTempDir('operations');
  const lines: Array<Record<string, unknown>> = [];
  let db: ServiceDatabase;
  let events: EventStore;
  let decoder: DecodePool;
  let listener: HttpListener;
  const auth = { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' };

  beforeAll(async () => {
    db = openServiceDatabase(dataDir);
    events = await openEventStore({ dataDir, memoryLimit: '512MB', threads: 1 });
    decoder = createDecodePool(1);
    const annotations = createAnnotationStore(db);
    const logger = createLogger({ name: 'timemark-service', level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    const metrics = createServiceMetrics({ countAnnotations: () => annotations.count() });
    const disk = createDiskWatch({ dataDir, setting: '--data-dir / TIMEMARK_DATA_DIR', logger });
    const monitors = createMonitorRuntime({
      db,
      annotations,
      engine: createMonitorQueryEngine({ reader: events, clock: Date.now }),
      logger,
      registry: metrics.registry,
      serviceUrl: () => listener.url,
    });
    const app = createServiceApp({
      annotations,
      monitors,
      datasets: createDatasets(createDatasetStore(db), events),
      events,
      decoder,
      dashboards: createDashboardStore(db),
      tokens: [TEST_TOKEN],
      apiTokens: createTokenStore(db),
      vfields: createVirtualFieldStore(db),
      history: createQueryHistory(db),
      orgId: TEST_ORG,
      createdMs: Date.now(),
      logger,
      metrics,
      readiness: serviceReadiness(db, events, disk),
      disk,
    });
    listener = await listenHttp(app, { port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await listener.close();
    await decoder.close();
    await events.close();
    if (db.open) db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs one JSON line per request: method, route pattern, status, duration and the trace id of the reply, never the token', async () => {
    const created = await fetch(`${listener.url}/v2/annotations`, { method: 'POST', headers: auth, body: JSON.stringify({ datasets: ['ops'], type: 'deploy' }) });
    const id = ((await created.json()) as { id: string }).id;
    const fetched = await fetch(`${listener.url}/v2/annotations/${id}?datasets=secret-looking-query`, { headers: auth });
    await fetch(`${listener.url}/v2/nowhere`, { headers: { authorization: 'Bearer xaat-wrong-token-but-never-logged' } });

    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests.slice(-3)).toEqual([
      { level: 30, time: expect.any(Number), pid: process.pid, hostname: expect.any(String), name: 'timemark-service', msg: 'request', method: 'POST', route: '/v2/annotations', status: 201, durationMs: expect.any(Number), traceId: created.headers.get('x-axiom-trace-id') },
      expect.objectContaining({ method: 'GET', route: '/v2/annotations/:id', status: 200, traceId: fetched.headers.get('x-axiom-trace-id') }),
      expect.objectContaining({ method: 'GET', route: '(unmatched)', status: 401 }),
    ]);
    const text = JSON.stringify(lines);
    for (const secret of [TEST_TOKEN, 'xaat-wrong-token-but-never-logged', 'secret-looking-query', id]) expect(text).not.toContain(secret);
  });

  it('serves Prometheus metrics: requests by route and status, latency, and the annotation count', async () => {
    const response = await fetch(`${listener.url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain('timemark_service_http_requests_total{method="POST",route="/v2/annotations",status="201"} 1');
    expect(text).toContain('timemark_service_http_requests_total{method="GET",route="(unmatched)",status="401"} 1');
    expect(text).toMatch(/timemark_service_http_request_duration_seconds_count\{method="GET",route="\/v2\/annotations\/:id"\} 1/);
    expect(text).toContain('timemark_service_annotations 1');
    expect(text).toContain('# TYPE timemark_service_ingested_events_total counter');
    expect(text).toContain('# TYPE timemark_service_query_duration_seconds histogram');
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('is ready while the store takes writes, and answers a fault with a 500 that hides it, logged with its stack', async () => {
    expect(await (await fetch(`${listener.url}/readyz`)).json()).toEqual({ status: 'ready', checks: { store: 'ok', events: 'ok', disk: 'ok' } });

    db.close();
    const probe = await fetch(`${listener.url}/readyz`);
    expect(probe.status).toBe(503);
    expect(await probe.json()).toEqual({ status: 'not ready', checks: { store: 'the SQLite store is closed', events: 'ok', disk: 'ok' } });

    const failed = await fetch(`${listener.url}/v2/annotations`, { headers: auth });
    const traceId = failed.headers.get('x-axiom-trace-id');
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ code: 500, message: `Internal error. The service log has the details (trace id ${traceId}).` });
    const fault = lines.find((line) => line.msg === 'request failed' && line.traceId === traceId);
    expect(fault).toMatchObject({ level: 50, method: 'GET', route: '/v2/annotations', err: { type: 'TypeError', message: expect.stringMatching(/not open/), stack: expect.stringContaining('at ') } });
    expect((await fetch(`${listener.url}/healthz`)).status).toBe(200);
  });
});
