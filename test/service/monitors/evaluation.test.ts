import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { readFacts } from '../../../src/common/annotation-facts.js';
import { readPageLink } from '../../../src/common/dashboard-link.js';
import { formatGoTime } from '../../../src/service/notifiers/notification.js';
import { makeTempDir, startLocalService, useLocalService } from '../../helpers/local-service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../notifiers/webhook-receiver.js';
import { createFakeClock } from './fake-clock.js';
import { httpEvents, serviceApi } from '../../helpers/service-api.js';

/**
 * Monitors evaluated by the real service over events really ingested into it, notifying a real
 * HTTP listener. Evaluations are triggered with POST /v2/monitors/{id}/run, or by the schedule
 * on a clock the test moves: no test waits for an interval to pass.
 */
const FAST_RETRIES = { delivery: { baseDelayMs: 20, maxDelayMs: 200, stopGraceMs: 200 } };

interface Notification {
  action: 'Open' | 'Closed';
  event: Record<string, any>;
}

const parsed = (body: string) => JSON.parse(body) as Notification;

describe('monitor evaluation over HTTP', () => {
  const service = useLocalService({ monitors: FAST_RETRIES });
  const api = serviceApi(service);
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const notifier = (path = '/hook', headers: Record<string, string> = {}) => api.notifier(`${receiver.url}${path}`, headers);
  const monitor = (body: Record<string, unknown>) => api.monitor(body);

  async function update(created: Record<string, any>, changes: Record<string, unknown>): Promise<void> {
    const { id, createdAt, createdBy, ...definition } = created;
    const reply = await api.call('PUT', `/v2/monitors/${id}`, { ...definition, ...changes });
    expect(reply.status).toBe(200);
  }

  it('opens an episode when the value crosses: an annotation on the dataset and an Open to every notifier; then closes both', async () => {
    await api.ingest('eval-open', [...httpEvents(12), ...httpEvents(5, { status: 200 })]);
    const notifiers = [await notifier('/first'), await notifier('/second')];
    const query = "['eval-open'] | where status >= 500 | summarize count()";
    const created = await monitor({ aplQuery: query, operator: 'Above', threshold: 10, description: '5xx on checkout', notifierIds: notifiers });

    const run = await api.run(created.id);
    expect(run.status).toBe(200);
    expect(run.body).toEqual({
      monitorId: created.id,
      startTime: expect.any(String),
      endTime: expect.any(String),
      outcome: 'ok',
      valueField: 'count_',
      triggering: [{ groupKeys: [], groupValues: [], value: 12 }],
      opened: 1,
      closed: 0,
      notifications: 2,
    });
    const { startTime, endTime } = run.body;
    expect(Date.parse(endTime) - Date.parse(startTime)).toBe(5 * 60_000);

    const requests = await receiver.waitFor(2);
    expect(requests.map((request) => request.path).sort()).toEqual(['/first', '/second']);
    for (const request of requests) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(parsed(request.body)).toEqual({
        action: 'Open',
        event: {
          monitorID: created.id,
          title: 'Checkout errors',
          body: 'Current value of 12 is above the threshold value of 10',
          description: '5xx on checkout',
          value: 12,
          queryStartTime: formatGoTime(Date.parse(startTime)),
          queryEndTime: formatGoTime(Date.parse(endTime)),
          timestamp: formatGoTime(Date.parse(endTime)),
          matchedEvent: null,
          groupKeys: [],
          groupValues: [],
        },
      });
    }

    const annotations = await api.annotations('eval-open');
    expect(annotations).toEqual([
      {
        id: expect.stringMatching(/^ann_/),
        datasets: ['eval-open'],
        type: 'monitor',
        time: endTime,
        title: 'Checkout errors',
        description: 'Current value of 12 is above the threshold value of 10',
        url: expect.stringMatching(new RegExp(`^${service.url.replace(/\./g, '\\.')}/\\?`)),
      },
    ]);
    // The link opens the dashboard on the query over the evaluated window, read as the page reads it.
    expect(readPageLink(new URL(annotations[0]?.url).search)).toEqual({ apl: query, start: startTime, end: endTime, dashboard: undefined });

    expect((await api.run(created.id)).body).toMatchObject({ outcome: 'ok', opened: 0, closed: 0, notifications: 0, triggering: [{ value: 12 }] });
    expect(await api.annotations('eval-open')).toHaveLength(1);

    await update(created, { threshold: 20 });
    const closing = await api.run(created.id);
    expect(closing.body).toMatchObject({ opened: 0, closed: 1, notifications: 2, triggering: [] });
    const closed = (await receiver.waitFor(4)).slice(2).map((request) => parsed(request.body));
    expect(closed).toEqual([
      expect.objectContaining({ action: 'Closed', event: expect.objectContaining({ value: 12, body: 'Current value of 12 is below or equal to the threshold value of 20' }) }),
      expect.objectContaining({ action: 'Closed' }),
    ]);
    // Closed, with its outcome as data under what it said when it opened.
    expect(await api.annotations('eval-open')).toEqual([
      { ...annotations[0], endTime: closing.body.endTime, description: 'Current value of 12 is above the threshold value of 10\n[timemark outcome=resolved]' },
    ]);

    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/timemark_service_monitor_evaluations_total\{type="Threshold",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/timemark_service_monitor_triggers_total\{action="Open"\} [1-9]/);
    expect(metrics).toMatch(/timemark_service_monitor_triggers_total\{action="Closed"\} [1-9]/);
    expect(metrics).toMatch(/timemark_service_monitor_notification_deliveries_total\{outcome="delivered"\} [1-9]/);
  });

  it('retries a notification the receiver refuses, with backoff, until it is delivered', async () => {
    await api.ingest('eval-retry', httpEvents(3));
    receiver.answerWith([503, 500, 503]);
    const created = await monitor({ aplQuery: "['eval-retry'] | summarize count()", operator: 'AboveOrEqual', threshold: 1, notifierIds: [await notifier()] });
    const run = await api.run(created.id);
    expect(run.body).toMatchObject({ opened: 1, notifications: 1 });
    const requests = await receiver.waitFor(4);
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    expect(parsed(requests[3]?.body ?? '').action).toBe('Open');
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/timemark_service_monitor_notification_deliveries_total\{outcome="retried"\} [3-9]/);
  });

  it('keeps each group of a by query its own episode with notifyByGroup', async () => {
    await api.ingest('eval-groups', [...httpEvents(8, { service: 'checkout' }), ...httpEvents(3, { service: 'search' })]);
    const created = await monitor({
      name: 'Errors by service',
      aplQuery: "['eval-groups'] | where status >= 500 | summarize count() by service",
      operator: 'AboveOrEqual',
      threshold: 5,
      notifyByGroup: true,
      notifierIds: [await notifier()],
    });

    expect((await api.run(created.id)).body).toMatchObject({ opened: 1, triggering: [{ groupKeys: ['service'], groupValues: ['checkout'], value: 8 }] });
    await update(created, { threshold: 2 });
    expect((await api.run(created.id)).body).toMatchObject({ opened: 1, closed: 0 });
    await update(created, { threshold: 50 });
    expect((await api.run(created.id)).body).toMatchObject({ opened: 0, closed: 2 });

    const sent = (await receiver.waitFor(4)).map((request) => parsed(request.body));
    expect(sent.map(({ action, event }) => [action, event.groupKeys, event.groupValues, event.value])).toEqual([
      ['Open', ['service'], ['checkout'], 8],
      ['Open', ['service'], ['search'], 3],
      ['Closed', ['service'], ['checkout'], 8],
      ['Closed', ['service'], ['search'], 3],
    ]);
    const annotations = await api.annotations('eval-groups');
    expect(annotations.map((annotation) => [annotation.title, annotation.endTime !== undefined])).toEqual([
      ['Errors by service (checkout)', true],
      ['Errors by service (search)', true],
    ]);
  });

  it('without notifyByGroup, treats all groups as one episode valued at the most extreme', async () => {
    await api.ingest('eval-folded', [...httpEvents(8, { service: 'checkout' }), ...httpEvents(3, { service: 'search' })]);
    const created = await monitor({ aplQuery: "['eval-folded'] | summarize count() by service", operator: 'Above', threshold: 5, notifierIds: [await notifier()] });
    expect((await api.run(created.id)).body).toMatchObject({ opened: 1, triggering: [{ groupKeys: [], groupValues: [], value: 8 }] });
  });

  it('notifies each matched event once, however the windows overlap', async () => {
    const now = Date.now();
    await api.ingest('eval-match', [
      { _time: new Date(now - 30_000).toISOString(), message: 'panic: nil map', host: 'a' },
      { _time: new Date(now - 20_000).toISOString(), message: 'all good', host: 'a' },
      { _time: new Date(now - 10_000).toISOString(), message: 'panic: index out of range', host: 'b' },
    ]);
    const created = await monitor({ name: 'Panics', type: 'MatchEvent', aplQuery: "['eval-match'] | where message contains 'panic'", notifierIds: [await notifier()] });
    expect((await api.run(created.id)).body).toMatchObject({ outcome: 'ok', opened: 2, notifications: 2 });
    expect((await api.run(created.id)).body).toMatchObject({ outcome: 'ok', opened: 0, notifications: 0 });

    const sent = (await receiver.waitFor(2)).map((request) => parsed(request.body));
    expect(sent.map(({ action, event }) => [action, event.matchedEvent.message, event.matchedEvent.host, event.value])).toEqual([
      ['Open', 'panic: nil map', 'a', null],
      ['Open', 'panic: index out of range', 'b', null],
    ]);
    expect(JSON.parse(sent[0]?.event.body)).toEqual(sent[0]?.event.matchedEvent);
    const annotations = await api.annotations('eval-match');
    expect(annotations.map((annotation) => [annotation.time, annotation.title, annotation.endTime])).toEqual([
      [new Date(now - 30_000).toISOString(), 'Panics', undefined],
      [new Date(now - 10_000).toISOString(), 'Panics', undefined],
    ]);
  });

  it('alerts on no data only when asked to', async () => {
    await api.ingest('eval-nodata', httpEvents(2, { status: 200 }));
    const query = "['eval-nodata'] | where status >= 500 | summarize avg(latency_ms)";
    const quiet = await monitor({ aplQuery: query, operator: 'Above', threshold: 100, notifierIds: [await notifier()] });
    expect((await api.run(quiet.id)).body).toMatchObject({ opened: 0, triggering: [] });
    const loud = await monitor({ aplQuery: query, operator: 'Above', threshold: 100, alertOnNoData: true, notifierIds: [await notifier('/loud')] });
    expect((await api.run(loud.id)).body).toMatchObject({ opened: 1, triggering: [{ value: null }] });
    const [request] = await receiver.waitFor(1);
    expect(request?.path).toBe('/loud');
    expect(parsed(request?.body ?? '').event).toMatchObject({ value: null, body: 'The query returned no data.' });
  });

  it('reports a query that fails when it runs, without a 5xx and without touching open episodes', async () => {
    await api.ingest('eval-gone', httpEvents(3));
    const created = await monitor({ aplQuery: "['eval-gone'] | summarize count()", operator: 'Above', threshold: 1, notifierIds: [await notifier()] });
    expect((await api.run(created.id)).body).toMatchObject({ opened: 1 });
    expect((await api.call('DELETE', '/v2/datasets/eval-gone')).status).toBe(204);
    const run = await api.run(created.id);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ outcome: 'failed', error: 'Dataset "eval-gone" not found.', opened: 0, closed: 0 });
  });

  it('closes the annotation and sends Closed when a triggering monitor is deleted', async () => {
    await api.ingest('eval-deleted', httpEvents(3));
    const created = await monitor({ aplQuery: "['eval-deleted'] | summarize count()", operator: 'Above', threshold: 1, notifierIds: [await notifier()] });
    await api.run(created.id);
    expect((await api.call('DELETE', `/v2/monitors/${created.id}`)).status).toBe(204);
    const sent = (await receiver.waitFor(2)).map((request) => parsed(request.body));
    expect(sent.map(({ action, event }) => [action, event.body])).toEqual([
      ['Open', 'Current value of 3 is above the threshold value of 1'],
      ['Closed', 'The monitor was deleted.'],
    ]);
    const [ended] = await api.annotations('eval-deleted');
    expect(ended?.endTime).toEqual(expect.any(String));
    expect(readFacts(ended?.description)).toEqual({ outcome: 'unknown' });
  });

  it('sends the stored secret when a notifier comes back from a client with its headers masked', async () => {
    await api.ingest('eval-secret', httpEvents(3));
    const id = await notifier('/secret', { Authorization: 'Bearer kept-secret' });
    const fetched = (await api.call('GET', `/v2/notifiers/${id}`)).body;
    expect(fetched.properties.customWebhook.headers).toEqual({ Authorization: '********' });
    const { id: _id, createdAt, createdBy, updatedAt, ...body } = fetched;
    expect((await api.call('PUT', `/v2/notifiers/${id}`, { ...body, name: 'renamed' })).status).toBe(200);
    const created = await monitor({ aplQuery: "['eval-secret'] | summarize count()", operator: 'Above', threshold: 1, notifierIds: [id] });
    await api.run(created.id);
    const [request] = await receiver.waitFor(1);
    expect(request?.headers.authorization).toBe('Bearer kept-secret');
  });

  it('renders the notifier body template', async () => {
    await api.ingest('eval-template', httpEvents(4));
    const reply = await api.call('POST', '/v2/notifiers', {
      name: 'chat',
      properties: { customWebhook: { url: `${receiver.url}/chat`, body: '{"text": {{json .Title}}, "state": "{{.Action}}", "value": {{.Value}}}' } },
    });
    const created = await monitor({ name: 'Errors "now"', aplQuery: "['eval-template'] | summarize count()", operator: 'Above', threshold: 1, notifierIds: [reply.body.id] });
    await api.run(created.id);
    const [request] = await receiver.waitFor(1);
    expect(JSON.parse(request?.body ?? '')).toEqual({ text: 'Errors "now"', state: 'Open', value: 4 });
  });
});

describe('monitors across a restart', () => {
  it('does not open a second annotation for an episode that was open before the restart, and closes it after', async () => {
    const dataDir = makeTempDir('monitor-restart');
    const receiver = await startWebhookReceiver();
    try {
      let service = await startLocalService({ dataDir, monitors: FAST_RETRIES });
      let api = serviceApi(service);
      await api.ingest('restart', httpEvents(6));
      const hook = await api.notifier(`${receiver.url}/hook`);
      const created = await api.monitor({ aplQuery: "['restart'] | summarize count()", operator: 'Above', threshold: 5, intervalMinutes: 60, notifierIds: [hook] });
      expect((await api.run(created.id)).body).toMatchObject({ opened: 1 });
      await receiver.waitFor(1);
      await service.close();

      service = await startLocalService({ dataDir, monitors: FAST_RETRIES });
      api = serviceApi(service);
      expect((await api.run(created.id)).body).toMatchObject({ outcome: 'ok', opened: 0, closed: 0, triggering: [{ value: 6 }] });
      expect(await api.annotations('restart')).toHaveLength(1);

      const { id, createdAt, createdBy, ...definition } = created;
      await api.call('PUT', `/v2/monitors/${id}`, { ...definition, threshold: 100 });
      expect((await api.run(created.id)).body).toMatchObject({ closed: 1 });
      const annotations = await api.annotations('restart');
      expect(annotations).toHaveLength(1);
      expect(annotations[0]?.endTime).toEqual(expect.any(String));
      const sent = (await receiver.waitFor(2)).map((request) => parsed(request.body).action);
      expect(sent).toEqual(['Open', 'Closed']);
      await service.close();
    } finally {
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('delivers after a restart the notification whose delivery the shutdown cut off', async () => {
    const dataDir = makeTempDir('monitor-outbox');
    const receiver = await startWebhookReceiver();
    try {
      receiver.hold(true);
      let service = await startLocalService({ dataDir, monitors: FAST_RETRIES });
      const api = serviceApi(service);
      await api.ingest('outbox', httpEvents(2));
      const hook = await api.notifier(`${receiver.url}/hook`);
      const created = await api.monitor({ aplQuery: "['outbox'] | summarize count()", operator: 'Above', threshold: 1, intervalMinutes: 60, notifierIds: [hook] });
      await api.run(created.id);
      await receiver.waitFor(1);
      // The receiver has not answered: stopping aborts the delivery, which stays in the outbox.
      await service.close();
      receiver.hold(false);

      service = await startLocalService({ dataDir, monitors: FAST_RETRIES });
      const requests = await receiver.waitFor(2);
      expect(requests[1]?.body).toBe(requests[0]?.body);
      await service.close();
    } finally {
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('monitors on their schedule', () => {
  it('runs each monitor every intervalMinutes on the service clock, without a request', async () => {
    const start = Date.now();
    const clock = createFakeClock(start);
    const receiver = await startWebhookReceiver();
    const service = await startLocalService({ monitors: { clock: clock.now, timers: clock.timers, ...FAST_RETRIES } });
    try {
      const api = serviceApi(service);
      await api.ingest('scheduled', httpEvents(4));
      const hook = await api.notifier(`${receiver.url}/hook`);
      const created = await api.monitor({ aplQuery: "['scheduled'] | summarize count()", operator: 'Above', threshold: 3, intervalMinutes: 2, notifierIds: [hook] });
      expect(Date.parse(created.createdAt)).toBe(start);

      await clock.advanceTo(start + 2 * 60_000);
      const [open] = await receiver.waitFor(1);
      expect(parsed(open?.body ?? '').event).toMatchObject({ monitorID: created.id, value: 4, queryEndTime: formatGoTime(start + 2 * 60_000) });
      const [annotation] = await api.annotations('scheduled');
      expect(annotation?.time).toBe(new Date(start + 2 * 60_000).toISOString());

      await clock.advanceTo(start + 4 * 60_000);
      await expect.poll(async () => (await (await fetch(`${service.url}/metrics`)).text()).match(/timemark_service_monitor_evaluations_total\{type="Threshold",outcome="ok"\} (\d+)/)?.[1]).toBe('2');
      expect(receiver.received).toHaveLength(1);
    } finally {
      await service.close();
      await receiver.close();
    }
  });
});
