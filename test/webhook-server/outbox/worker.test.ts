import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAnnotationsClient, type AnnotationsClient } from '../../../src/client/index.js';
import { createLogger } from '../../../src/common/logger.js';
import { episodeMarker } from '../../../webhook-server/src/correlation/episode.js';
import { createBridgeMetrics, type BridgeMetrics } from '../../../webhook-server/src/ops/metrics.js';
import { createOutboxWorker, DELIVERY_DEFAULTS, type OutboxWorker } from '../../../webhook-server/src/outbox/worker.js';
import type { BridgeEvent } from '../../../webhook-server/src/sources/types.js';
import { openSqliteStore } from '../../../webhook-server/src/store/sqlite.js';
import type { BridgeStore, EpisodeRow } from '../../../webhook-server/src/store/types.js';
import { makeTempDir, startLocalService, type LocalService } from '../../helpers/local-service.js';
import { eventually } from '../helpers/bridge.js';

const EVENTS = JSON.parse(readFileSync(new URL('../../fixtures/bridge/rollout-events.json', import.meta.url), 'utf8')) as Record<'start' | 'finish', BridgeEvent>;
const TARGET = { datasets: ['outbox'], type: 'deploy', title: 'Deploy acme/shop to production' };
const FAST = { ...DELIVERY_DEFAULTS, concurrency: 2, pollMs: 20, baseDelayMs: 10, maxDelayMs: 40, maxAttempts: 3 };

let service: LocalService;
let serviceClient: AnnotationsClient;
beforeAll(async () => {
  service = await startLocalService();
  serviceClient = createAnnotationsClient({ url: service.url, token: service.token, retries: 0 });
});
afterAll(async () => {
  await serviceClient.close();
  await service.close();
});

interface Harness {
  store: BridgeStore;
  metrics: BridgeMetrics;
  worker: OutboxWorker;
  /** Records the fixture's event `phase` for rollout `key`. */
  record(key: string, phase: 'start' | 'finish'): Promise<void>;
  episode(key: string): Promise<EpisodeRow>;
}

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of running.splice(0)) await stop();
});

/**
 * A worker on a real SQLite store, applying through a real client to `url` (the local service
 * unless given); `clock` and `random` replace the time and the jitter, to check the backoff exactly.
 */
function harness(
  options: {
    url?: string;
    settings?: Partial<typeof FAST>;
    clock?: { now: number };
    random?: () => number;
    recording?: () => number;
    busy?: () => number;
  } = {},
): Harness {
  const now = options.clock ? () => (options.clock as { now: number }).now : Date.now;
  const dir = makeTempDir('outbox');
  const store = openSqliteStore(dir);
  const client = createAnnotationsClient({ url: options.url ?? service.url, token: service.token, retries: 0, timeoutMs: 2_000 });
  const metrics = createBridgeMetrics({ outboxCounts: () => store.counts() });
  // `recording` stands in for deliveries being recorded by the webhook routes at the same time.
  const seen = options.recording ? new Proxy(store, { get: (target, key) => (key === 'recording' ? options.recording?.() : Reflect.get(target, key)) }) : store;
  const worker = createOutboxWorker({
    store: seen,
    client,
    metrics,
    logger: createLogger({ name: 'outbox-test', level: 'silent' }),
    settings: { ...FAST, ...options.settings },
    now,
    ...(options.random ? { random: options.random } : {}),
    ...(options.busy ? { busy: options.busy } : {}),
  });
  running.push(async () => {
    await worker.stop();
    await client.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let deliveries = 0;
  return {
    store,
    metrics,
    worker,
    record: async (key, phase) => {
      const event = { ...EVENTS[phase], correlationKey: key, dedupeKey: `${key}-${phase}-${deliveries++}` };
      await store.ingest([{ event, target: TARGET }], now());
      worker.wake();
    },
    episode: async (key) => {
      const [episode] = await store.episodes(key);
      if (!episode) throw new Error(`no episode for ${key}`);
      return episode;
    },
  };
}

async function settledAs(h: Harness, key: string, status: EpisodeRow['status'], check: (episode: EpisodeRow) => boolean = () => true): Promise<EpisodeRow> {
  return eventually(async () => {
    const episode = await h.episode(key);
    return episode.status === status && check(episode) ? episode : undefined;
  }, `episode ${key} ${status}`);
}

async function annotationsMarked(key: string): Promise<Array<{ id: string; endTime?: string; description?: string }>> {
  const all = await serviceClient.list({ datasets: ['outbox'], start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' });
  return all.filter((annotation) => annotation.description?.includes(episodeMarker(key, 1)));
}

describe('the outbox worker', () => {
  it('creates the annotation of a new episode, then updates that same annotation when the episode changes', async () => {
    const h = harness();
    h.worker.start();
    await h.record('outbox:update', 'start');
    const opened = await settledAs(h, 'outbox:update', 'synced');
    expect(await annotationsMarked('outbox:update')).toEqual([expect.objectContaining({ id: opened.annotationId, title: TARGET.title })]);

    await h.record('outbox:update', 'finish');
    await settledAs(h, 'outbox:update', 'synced', (episode) => episode.syncedVersion === episode.version && episode.version > opened.version);
    expect(await annotationsMarked('outbox:update')).toEqual([expect.objectContaining({ id: opened.annotationId, endTime: '2024-06-28T15:02:41.000Z' })]);
    expect((await h.metrics.applied.get()).values).toEqual([expect.objectContaining({ labels: { source: 'github' }, value: 2 })]);
    expect((await h.metrics.applyLatency.get()).values.find((sample) => sample.metricName === 'timemark_bridge_apply_latency_seconds_count')?.value).toBe(2);
  });

  it('creates the annotation again when someone deleted it on the service', async () => {
    const h = harness();
    h.worker.start();
    await h.record('outbox:deleted', 'start');
    const first = await settledAs(h, 'outbox:deleted', 'synced');
    await serviceClient.delete(first.annotationId as string);
    await h.record('outbox:deleted', 'finish');
    const second = await settledAs(h, 'outbox:deleted', 'synced', (episode) => episode.annotationId !== first.annotationId);
    expect(await annotationsMarked('outbox:deleted')).toEqual([expect.objectContaining({ id: second.annotationId })]);
  });

  it('dead-letters at once what the service refuses as invalid, with the request and the reason', async () => {
    const h = harness();
    h.worker.start();
    const key = 'outbox:invalid';
    await h.store.ingest([{ event: { ...EVENTS.start, correlationKey: key }, target: { ...TARGET, datasets: ['x'.repeat(129)] } }], Date.now());
    h.worker.wake();
    const dead = await settledAs(h, key, 'dead');
    expect(dead.attempts).toBe(1);
    expect(dead.lastError).toMatch(/^POST \/v2\/annotations answered 400: Invalid dataset name/);
    expect((await h.metrics.deadLettered.get()).values[0]?.value).toBe(1);
  });

  it('applies a batch whose episodes fare differently: each is recorded as it ended', async () => {
    const h = harness({ settings: { concurrency: 1, batchSize: 8 } });
    const keys = Array.from({ length: 5 }, (_, index) => `outbox:batch-${index}`);
    for (const key of keys) await h.record(key, 'start');
    // One the service refuses, one whose annotation was made and then deleted: both in the same batch.
    await h.store.ingest([{ event: { ...EVENTS.start, correlationKey: 'outbox:batch-invalid' }, target: { ...TARGET, datasets: ['x'.repeat(129)] } }], Date.now());
    h.worker.start();
    const first = await Promise.all(keys.map((key) => settledAs(h, key, 'synced')));
    await settledAs(h, 'outbox:batch-invalid', 'dead');
    await serviceClient.delete(first[0]!.annotationId as string);
    for (const key of keys) await h.record(key, 'finish');
    const second = await Promise.all(keys.map((key) => settledAs(h, key, 'synced', (episode) => episode.syncedVersion === episode.version && episode.version > 1)));
    expect(second[0]!.annotationId).not.toBe(first[0]!.annotationId);
    expect(second.slice(1).map((episode) => episode.annotationId)).toEqual(first.slice(1).map((episode) => episode.annotationId));
    for (const key of keys) expect(await annotationsMarked(key)).toHaveLength(1);
    expect((await h.metrics.applied.get()).values[0]?.value).toBe(10);
  });

  it('gives acknowledgements the CPU in a burst: one batch per burstPauseMs while deliveries are being recorded on a busy event loop, all at once after', async () => {
    let recording = 1;
    const h = harness({ settings: { concurrency: 4, batchSize: 2, burstPauseMs: 3_000 }, recording: () => recording, busy: () => 0.9 });
    const keys = Array.from({ length: 8 }, (_, index) => `outbox:burst-${index}`);
    for (const key of keys) await h.record(key, 'start');
    h.worker.start();
    await eventually(async () => ((await h.store.counts()).synced >= 2 ? true : undefined), 'the first batch applied');
    // One batch of two, then a pause that a wake does not cut short.
    h.worker.wake();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = await Promise.all(keys.map((key) => h.episode(key)));
    expect(during.filter((episode) => episode.status === 'synced')).toHaveLength(2);
    recording = 0;
    h.worker.wake();
    await Promise.all(keys.map((key) => settledAs(h, key, 'synced')));
  });

  it('does not pause for a steady flow that leaves the event loop mostly idle: the pause would cap the outbox below the flow', async () => {
    // Deliveries are being recorded the whole time, as in a steady flow, but the loop is idle.
    const h = harness({ settings: { concurrency: 4, batchSize: 2, burstPauseMs: 3_000 }, recording: () => 1, busy: () => 0.2 });
    const keys = Array.from({ length: 8 }, (_, index) => `outbox:steady-${index}`);
    for (const key of keys) await h.record(key, 'start');
    h.worker.start();
    // Four batches of two: with the pause they would take at least 9 s; without it they go at once.
    await eventually(async () => ((await h.store.counts()).synced === keys.length ? true : undefined), 'every episode applied', 2_500);
  });

  it('samples the event loop itself when not told how busy it is (an idle test process: no pause)', async () => {
    const h = harness({ settings: { concurrency: 4, batchSize: 2, burstPauseMs: 100 }, recording: () => 1 });
    const keys = Array.from({ length: 8 }, (_, index) => `outbox:sampled-${index}`);
    for (const key of keys) await h.record(key, 'start');
    h.worker.start();
    await eventually(async () => ((await h.store.counts()).synced === keys.length ? true : undefined), 'every episode applied');
  });

  it('backs off and retries while the service is unreachable, and gives up after maxAttempts naming the request', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const h = harness({ url: `http://127.0.0.1:${port}` });
    h.worker.start();
    await h.record('outbox:unreachable', 'start');
    const dead = await settledAs(h, 'outbox:unreachable', 'dead');
    expect(dead.attempts).toBe(FAST.maxAttempts);
    // The last attempt looked for the annotation an earlier, unanswered create may have made.
    expect(dead.lastError).toMatch(/^(POST \/v2\/annotations|GET \/v2\/annotations\?datasets=outbox\S*) failed: .*ECONNREFUSED/);
    expect((await h.metrics.applyFailures.get()).values[0]?.value).toBe(FAST.maxAttempts);
  });

  it('records a reply cut off mid-body as a failure of that request, and retries it', async () => {
    let server: Server | undefined;
    const cut = await new Promise<string>((resolve) => {
      server = createServer((req, res) => {
        req.resume();
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"id":', () => res.destroy());
      }).listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server?.address() as AddressInfo).port}`));
    });
    const h = harness({ url: cut, settings: { maxAttempts: 2 } });
    h.worker.start();
    await h.record('outbox:cut', 'start');
    const dead = await settledAs(h, 'outbox:cut', 'dead');
    expect(dead.lastError).toMatch(/^(POST \/v2\/annotations|GET \/v2\/annotations\?datasets=outbox\S*) failed: the reply \(status 201\) was cut off/);
    expect(dead.attempts).toBe(2);
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('looks at once when woken, without waiting for the next poll', async () => {
    const h = harness({ settings: { pollMs: 3_600_000 } });
    h.worker.start();
    await h.record('outbox:woken', 'start');
    await settledAs(h, 'outbox:woken', 'synced');
  });

  it('backs off exponentially with half the step fixed and half random, never past maxDelayMs', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const clock = { now: Date.parse('2024-06-28T16:00:00Z') };
    const h = harness({ url: `http://127.0.0.1:${port}`, clock, random: () => 1, settings: { pollMs: 3_600_000, baseDelayMs: 1_000, maxDelayMs: 3_000, maxAttempts: 10 } });
    h.worker.start();
    await h.record('outbox:backoff', 'start');
    const waits: number[] = [];
    for (let attempts = 1; attempts <= 4; attempts++) {
      const episode = await settledAs(h, 'outbox:backoff', 'pending', (found) => found.attempts === attempts);
      waits.push(episode.nextAttemptAt - clock.now);
      clock.now = episode.nextAttemptAt;
      h.worker.wake();
    }
    expect(waits).toEqual([1_000, 2_000, 3_000, 3_000]);
  });

  it('closes spans left open past the maximum open time, and applies the close', async () => {
    const clock = { now: Date.parse('2024-06-28T14:56:00Z') };
    const h = harness({ clock, settings: { maxOpenMs: 3_600_000 } });
    await h.record('outbox:overdue', 'start');
    clock.now += 2 * 3_600_000;
    h.worker.start();
    const closed = await settledAs(h, 'outbox:overdue', 'synced', (episode) => episode.state.autoClosed === true);
    expect(closed.state).toMatchObject({ outcome: 'timed-out' });
    expect(await annotationsMarked('outbox:overdue')).toEqual([expect.objectContaining({ endTime: '2024-06-28T15:55:57.000Z' })]);
  });

  it('lets an apply in hand finish and records it before stop resolves', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let received = 0;
    const gate = createServer((req, res) => {
      received++;
      req.resume();
      void held.then(() => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'ann_gated', datasets: ['outbox'], type: 'deploy', time: '2024-06-28T14:55:57.000Z' })));
    });
    await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
    try {
      const h = harness({ url: `http://127.0.0.1:${(gate.address() as AddressInfo).port}` });
      h.worker.start();
      await h.record('outbox:in-hand', 'start');
      await eventually(async () => (received === 1 ? true : undefined), 'the create in flight');
      const stopping = h.worker.stop();
      release();
      await stopping;
      expect(await h.episode('outbox:in-hand')).toMatchObject({ status: 'synced', annotationId: 'ann_gated' });
    } finally {
      gate.closeAllConnections();
      await new Promise((resolve) => gate.close(resolve));
    }
  });

  it('stops only after the applies it holds are recorded, and claims nothing after', async () => {
    const h = harness();
    h.worker.start();
    await h.record('outbox:stop', 'start');
    await h.worker.stop();
    const episode = await h.episode('outbox:stop');
    // Either applied before the stop, or never claimed: nothing is left leased and half-done.
    expect(episode.status === 'synced' || (episode.status === 'pending' && episode.attempts === 0)).toBe(true);
    await h.record('outbox:stop-after', 'start');
    expect((await h.episode('outbox:stop-after')).status).toBe('pending');
  });
});
