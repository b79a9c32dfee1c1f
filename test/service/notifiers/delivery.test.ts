import { rmSync } from 'node:fs';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openServiceDatabase, type ServiceDatabase } from '../../../src/service/database.js';
import { createMonitorMetrics } from '../../../src/service/monitors/metrics.js';
import { createDeliveryWorker, DELIVERY_DEFAULTS, type DeliveryWorker } from '../../../src/service/notifiers/delivery.js';
import type { MonitorNotification } from '../../../src/service/notifiers/notification.js';
import { createNotificationOutbox, type NotificationOutbox } from '../../../src/service/notifiers/outbox.js';
import { createNotifierStore, type NotifierStore } from '../../../src/service/notifiers/store.js';
import { makeTempDir } from '../../helpers/local-service.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

const SECRET = 'Bearer very-secret-monitor-token';

function notification(action: 'Open' | 'Closed', value: number): MonitorNotification {
  return {
    action,
    monitorId: 'mon_test',
    title: 'Errors',
    body: `Current value of ${value} is above the threshold value of 10`,
    description: '',
    value,
    queryStartMs: Date.parse('2024-06-01T11:55:00Z'),
    queryEndMs: Date.parse('2024-06-01T12:00:00Z'),
    timestampMs: Date.parse('2024-06-01T12:00:00Z'),
    matchedEvent: null,
    groupKeys: [],
    groupValues: [],
  };
}

describe('notification delivery', () => {
  let dataDir: string;
  let db: ServiceDatabase;
  let notifiers: NotifierStore;
  let outbox: NotificationOutbox;
  let receiver: WebhookReceiver;
  let logLines: string[];
  let registry: Registry;
  let worker: DeliveryWorker | undefined;

  beforeEach(async () => {
    dataDir = makeTempDir('delivery');
    db = openServiceDatabase(dataDir);
    notifiers = createNotifierStore(db);
    outbox = createNotificationOutbox(db);
    receiver = await startWebhookReceiver();
    logLines = [];
    registry = new Registry();
  });

  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await receiver.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function startWorker(settings: Partial<typeof DELIVERY_DEFAULTS> = {}): DeliveryWorker {
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
    const metrics = createMonitorMetrics(registry, () => outbox.pendingCount());
    worker = createDeliveryWorker({
      outbox,
      notifiers,
      logger,
      metrics,
      settings: { ...DELIVERY_DEFAULTS, baseDelayMs: 20, maxDelayMs: 200, timeoutMs: 2_000, ...settings },
    });
    worker.start();
    return worker;
  }

  function addNotifier(path = '/hook', body = ''): string {
    return notifiers.create({ name: 'test', url: `${receiver.url}${path}?token=in-the-query`, headers: { Authorization: SECRET }, body, disabledUntilMs: undefined }, 'local', Date.now()).id;
  }

  it('POSTs the Axiom payload as JSON with the notifier headers, then forgets the delivery', async () => {
    const id = addNotifier();
    outbox.enqueue(id, 'mon_test:[]', notification('Open', 14), Date.now());
    startWorker();
    const [request] = await receiver.waitFor(1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hook?token=in-the-query');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBe(SECRET);
    expect(JSON.parse(request?.body ?? '')).toMatchObject({ action: 'Open', event: { monitorID: 'mon_test', value: 14 } });
    await expect.poll(() => outbox.pendingCount()).toBe(0);
  });

  it('renders the notifier body template when it has one', async () => {
    const id = addNotifier('/hook', '{"text": {{json .Body}}, "state": "{{.Action}}"}');
    outbox.enqueue(id, 'mon_test:[]', notification('Closed', 3), Date.now());
    startWorker();
    const [request] = await receiver.waitFor(1);
    expect(JSON.parse(request?.body ?? '')).toEqual({ text: 'Current value of 3 is above the threshold value of 10', state: 'Closed' });
  });

  it('retries after failures with backoff, then delivers', async () => {
    const id = addNotifier();
    receiver.answerWith([503, 500, 429]);
    outbox.enqueue(id, 'mon_test:[]', notification('Open', 14), Date.now());
    startWorker();
    const requests = await receiver.waitFor(4);
    expect(requests.map((request) => request.body)).toEqual(Array(4).fill(requests[0]?.body));
    await expect.poll(() => outbox.pendingCount()).toBe(0);
    const metrics = await registry.getSingleMetricAsString('timemark_service_monitor_notification_deliveries_total');
    expect(metrics).toContain('outcome="retried"} 3');
    expect(metrics).toContain('outcome="delivered"} 1');
  });

  it('keeps the Closed of an episode behind its Open while the Open is retried', async () => {
    const id = addNotifier();
    receiver.answerWith([503, 503]);
    outbox.enqueue(id, 'mon_test:[]', notification('Open', 14), Date.now());
    outbox.enqueue(id, 'mon_test:[]', notification('Closed', 3), Date.now());
    startWorker();
    const requests = await receiver.waitFor(4);
    expect(requests.map((request) => (JSON.parse(request.body) as { action: string }).action)).toEqual(['Open', 'Open', 'Open', 'Closed']);
  });

  it('gives up at once on an answer that resending cannot change, and keeps the delivery as dead', async () => {
    const id = addNotifier();
    receiver.answerWith([401]);
    outbox.enqueue(id, 'mon_test:[]', notification('Open', 14), Date.now());
    startWorker();
    await receiver.waitFor(1);
    await expect.poll(() => outbox.pendingCount()).toBe(0);
    const dead = db.prepare('SELECT attempts, last_error FROM notification_outbox WHERE dead_ms IS NOT NULL').all() as Array<{ attempts: number; last_error: string }>;
    expect(dead).toEqual([{ attempts: 1, last_error: expect.stringContaining(`POST ${receiver.url} answered 401`) }]);
  });

  it('gives up after the last attempt', async () => {
    const id = addNotifier();
    receiver.answerWith([503, 503, 503]);
    outbox.enqueue(id, 'mon_test:[]', notification('Open', 14), Date.now());
    startWorker({ maxAttempts: 3 });
    await receiver.waitFor(3);
    await expect.poll(() => db.prepare('SELECT COUNT(*) AS n FROM notification_outbox WHERE dead_ms IS NOT NULL').get()).toEqual({ n: 1 });
    expect(receiver.received).toHaveLength(3);
  });

  it('retries when the receiver is down, and delivers once it is back', async () => {
    const closed = await startWebhookReceiver();
    await closed.close();
    const downUrl = `${closed.url}/down`;
    const id = notifiers.create({ name: 'later', url: downUrl, headers: {}, body: '', disabledUntilMs: undefined }, 'local', Date.now()).id;
    outbox.enqueue(id, 'mon_test:[]', notification('Open', 14), Date.now());
    startWorker();
    await expect
      .poll(() => (db.prepare('SELECT attempts, last_error FROM notification_outbox').get() as { attempts: number; last_error: string | null }).attempts)
      .toBeGreaterThanOrEqual(2);
    const { last_error: error } = db.prepare('SELECT last_error FROM notification_outbox').get() as { last_error: string };
    expect(error).toBe(`POST ${closed.url} failed: ECONNREFUSED.`);
    notifiers.update(id, { name: 'later', url: `${receiver.url}/hook`, headers: {}, body: '', disabledUntilMs: undefined }, Date.now());
    await receiver.waitFor(1);
    await expect.poll(() => outbox.pendingCount()).toBe(0);
  });

  it('delivers what an earlier process left in the outbox', async () => {
    const id = addNotifier();
    outbox.enqueue(id, 'mon_test:[]', notification('Open', 14), Date.now());
    db.close();
    db = openServiceDatabase(dataDir);
    notifiers = createNotifierStore(db);
    outbox = createNotificationOutbox(db);
    startWorker();
    await receiver.waitFor(1);
  });

  it('never logs header values or the URL query', async () => {
    const id = addNotifier();
    receiver.answerWith([503, 404]);
    outbox.enqueue(id, 'mon_test:[]', notification('Open', 14), Date.now());
    startWorker();
    await receiver.waitFor(2);
    await expect.poll(() => logLines.some((line) => line.includes('given up'))).toBe(true);
    const logs = logLines.join('\n');
    expect(logs).not.toContain('very-secret-monitor-token');
    expect(logs).not.toContain('in-the-query');
    expect(logs).toContain(`POST ${receiver.url} answered 503`);
  });
});
