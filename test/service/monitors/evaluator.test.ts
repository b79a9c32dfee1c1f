import { rmSync } from 'node:fs';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readPageLink } from '../../../src/common/dashboard-link.js';
import { createAnnotationStore, type AnnotationStore } from '../../../src/service/annotations/store.js';
import { openServiceDatabase, type ServiceDatabase } from '../../../src/service/database.js';
import type { QueryResult, QueryTable } from '../../../src/service/monitors/conditions.js';
import { createEvaluator, MAX_MATCHES_PER_EVALUATION, type Evaluator, type MonitorQueryEngine } from '../../../src/service/monitors/evaluator.js';
import { createMonitorMetrics } from '../../../src/service/monitors/metrics.js';
import { createMonitorState } from '../../../src/service/monitors/state.js';
import { createMonitorStore, type Monitor, type MonitorStore } from '../../../src/service/monitors/store.js';
import type { MonitorDefinition } from '../../../src/service/monitors/validation.js';
import type { MonitorNotification } from '../../../src/service/notifiers/notification.js';
import { createNotificationOutbox, type NotificationOutbox } from '../../../src/service/notifiers/outbox.js';
import { createNotifierStore } from '../../../src/service/notifiers/store.js';
import { makeTempDir } from '../../helpers/local-service.js';

/**
 * The evaluator's decisions and what it records, with the query engine replaced by a table of
 * answers (the engine itself is exercised end to end over HTTP in monitors-http.test.ts).
 */
const MINUTE = 60_000;
const T0 = Date.parse('2024-06-01T12:00:00Z');

function table(fields: string[], rows: unknown[][], groups: string[] = [], name = '0'): QueryTable {
  return { name, fields: fields.map((field) => ({ name: field })), groups: groups.map((group) => ({ name: group })), columns: fields.map((_, i) => rows.map((row) => row[i])) };
}

const definition: MonitorDefinition = {
  name: 'Checkout errors',
  type: 'Threshold',
  description: '5xx on checkout',
  aplQuery: "['http'] | where status >= 500 | summarize count()",
  operator: 'Above',
  threshold: 10,
  intervalMinutes: 1,
  rangeMinutes: 5,
  notifierIds: [],
  notifyByGroup: false,
  alertOnNoData: false,
  resolvable: false,
  disabled: false,
  disabledUntilMs: undefined,
};

describe('monitor evaluation', () => {
  let dataDir: string;
  let db: ServiceDatabase;
  let monitors: MonitorStore;
  let annotations: AnnotationStore;
  let outbox: NotificationOutbox;
  let evaluator: Evaluator;
  let answer: QueryResult;
  let notifierId: string;
  let windows: Array<{ startMs: number; endMs: number }>;

  function open(): void {
    db = openServiceDatabase(dataDir);
    monitors = createMonitorStore(db);
    annotations = createAnnotationStore(db);
    outbox = createNotificationOutbox(db);
    const notifiers = createNotifierStore(db);
    const engine: MonitorQueryEngine = {
      probe: async () => answer,
      run: async (_apl, window) => {
        windows.push(window);
        return { result: answer, datasets: ['http'] };
      },
    };
    evaluator = createEvaluator({
      db,
      engine,
      monitors,
      notifiers,
      annotations,
      state: createMonitorState(db),
      outbox,
      notificationsWritten: () => undefined,
      metrics: createMonitorMetrics(new Registry(), () => 0),
      logger: pino({ level: 'silent' }),
      serviceUrl: () => 'http://127.0.0.1:8080',
      clock: () => T0,
    });
  }

  beforeEach(() => {
    dataDir = makeTempDir('evaluator');
    windows = [];
    open();
    notifierId = createNotifierStore(db).create({ name: 'n', url: 'http://127.0.0.1:1/x', headers: {}, body: '', disabledUntilMs: undefined }, 'local', T0).id;
  });

  afterEach(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function sent(): MonitorNotification[] {
    return outbox.due(Number.MAX_SAFE_INTEGER, 1000).map((entry) => entry.notification);
  }

  function allSent(): MonitorNotification[] {
    return (db.prepare('SELECT notification FROM notification_outbox ORDER BY id').all() as Array<{ notification: string }>).map(
      (row) => JSON.parse(row.notification) as MonitorNotification,
    );
  }

  const signal = new AbortController().signal;
  const create = (changes: Partial<MonitorDefinition> = {}): Monitor => monitors.create({ ...definition, notifierIds: [notifierId], ...changes }, 'local', T0);

  it('queries the range that ends at the evaluation time', async () => {
    answer = { tables: [table(['count_'], [[0]])] };
    const monitor = create();
    await evaluator.evaluate(monitor, T0 + 7 * MINUTE, signal);
    expect(windows).toEqual([{ startMs: T0 + 2 * MINUTE, endMs: T0 + 7 * MINUTE }]);
  });

  it('opens an episode with an annotation and an Open notification when the value crosses', async () => {
    answer = { tables: [table(['count_'], [[14]])] };
    const monitor = create();
    const report = await evaluator.evaluate(monitor, T0 + MINUTE, signal);
    expect(report).toMatchObject({ outcome: 'ok', valueField: 'count_', opened: 1, closed: 0, notifications: 1, triggering: [{ value: 14 }] });
    const [annotation] = annotations.list({ datasets: [], startMs: undefined, endMs: undefined });
    expect(annotation).toEqual({
      id: expect.stringMatching(/^ann_/),
      datasets: ['http'],
      type: 'monitor',
      time: '2024-06-01T12:01:00.000Z',
      title: 'Checkout errors',
      description: 'Current value of 14 is above the threshold value of 10',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8080\/\?/),
    });
    // Read back the way the dashboard reads its address.
    expect(readPageLink(new URL(annotation?.url ?? '').search)).toEqual({
      apl: definition.aplQuery,
      start: '2024-06-01T11:56:00.000Z',
      end: '2024-06-01T12:01:00.000Z',
      dashboard: undefined,
    });
    expect(sent()).toEqual([
      {
        action: 'Open',
        monitorId: monitor.id,
        title: 'Checkout errors',
        body: 'Current value of 14 is above the threshold value of 10',
        description: '5xx on checkout',
        value: 14,
        queryStartMs: T0 - 4 * MINUTE,
        queryEndMs: T0 + MINUTE,
        timestampMs: T0 + MINUTE,
        matchedEvent: null,
        groupKeys: [],
        groupValues: [],
      },
    ]);
  });

  it('links to the window alone when the query is too long for an annotation url', async () => {
    answer = { tables: [table(['count_'], [[14]])] };
    const monitor = create({ aplQuery: `['http'] | where message != '${'x'.repeat(600)}' | summarize count()` });
    await evaluator.evaluate(monitor, T0 + MINUTE, signal);
    const [annotation] = annotations.list({ datasets: [], startMs: undefined, endMs: undefined });
    expect(annotation?.url?.length).toBeLessThanOrEqual(512);
    expect(readPageLink(new URL(annotation?.url ?? '').search)).toEqual({ apl: undefined, start: '2024-06-01T11:56:00.000Z', end: '2024-06-01T12:01:00.000Z', dashboard: undefined });
  });

  it('stays quiet while the episode goes on, then closes the annotation and sends Closed', async () => {
    answer = { tables: [table(['count_'], [[14]])] };
    const monitor = create();
    await evaluator.evaluate(monitor, T0 + MINUTE, signal);
    answer = { tables: [table(['count_'], [[20]])] };
    expect(await evaluator.evaluate(monitor, T0 + 2 * MINUTE, signal)).toMatchObject({ opened: 0, closed: 0, notifications: 0 });
    answer = { tables: [table(['count_'], [[3]])] };
    expect(await evaluator.evaluate(monitor, T0 + 3 * MINUTE, signal)).toMatchObject({ opened: 0, closed: 1, notifications: 1, triggering: [] });
    const list = annotations.list({ datasets: [], startMs: undefined, endMs: undefined });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ time: '2024-06-01T12:01:00.000Z', endTime: '2024-06-01T12:03:00.000Z' });
    expect(allSent().map((notification) => [notification.action, notification.value, notification.body])).toEqual([
      ['Open', 14, 'Current value of 14 is above the threshold value of 10'],
      ['Closed', 3, 'Current value of 3 is below or equal to the threshold value of 10'],
    ]);
  });

  it('opens a new episode, with a new annotation, when the value crosses again', async () => {
    const monitor = create();
    for (const value of [14, 3, 15]) {
      answer = { tables: [table(['count_'], [[value]])] };
      await evaluator.evaluate(monitor, T0 + windows.length * MINUTE, signal);
    }
    expect(annotations.list({ datasets: [], startMs: undefined, endMs: undefined }).map((a) => [a.time, a.endTime])).toEqual([
      ['2024-06-01T12:00:00.000Z', '2024-06-01T12:01:00.000Z'],
      ['2024-06-01T12:02:00.000Z', undefined],
    ]);
  });

  it('does not open a second annotation after a restart while the episode goes on', async () => {
    answer = { tables: [table(['count_'], [[14]])] };
    const monitor = create();
    await evaluator.evaluate(monitor, T0 + MINUTE, signal);
    db.close();
    open();
    await evaluator.evaluate(monitors.get(monitor.id) as Monitor, T0 + 2 * MINUTE, signal);
    expect(annotations.list({ datasets: [], startMs: undefined, endMs: undefined })).toHaveLength(1);
    expect(allSent()).toHaveLength(1);
  });

  it('keeps each group its own episode with notifyByGroup', async () => {
    const monitor = create({ notifyByGroup: true });
    const rows = (checkout: number, search: number) => ({ tables: [table(['service', 'count_'], [['checkout', checkout], ['search', search]], ['service'])] });
    answer = rows(14, 2);
    await evaluator.evaluate(monitor, T0 + MINUTE, signal);
    answer = rows(15, 30);
    await evaluator.evaluate(monitor, T0 + 2 * MINUTE, signal);
    answer = rows(1, 31);
    await evaluator.evaluate(monitor, T0 + 3 * MINUTE, signal);
    expect(allSent().map((n) => [n.action, n.groupValues, n.value])).toEqual([
      ['Open', ['checkout'], 14],
      ['Open', ['search'], 30],
      ['Closed', ['checkout'], 1],
    ]);
    expect(allSent()[0]).toMatchObject({ groupKeys: ['service'] });
    expect(annotations.list({ datasets: [], startMs: undefined, endMs: undefined }).map((a) => [a.title, a.endTime])).toEqual([
      ['Checkout errors (checkout)', '2024-06-01T12:03:00.000Z'],
      ['Checkout errors (search)', undefined],
    ]);
  });

  it('closes a group that disappears from the result', async () => {
    const monitor = create({ notifyByGroup: true });
    answer = { tables: [table(['service', 'count_'], [['checkout', 14]], ['service'])] };
    await evaluator.evaluate(monitor, T0 + MINUTE, signal);
    answer = { tables: [table(['service', 'count_'], [], ['service'])] };
    await evaluator.evaluate(monitor, T0 + 2 * MINUTE, signal);
    expect(allSent().map((n) => [n.action, n.value, n.body])).toEqual([
      ['Open', 14, 'Current value of 14 is above the threshold value of 10'],
      ['Closed', null, 'The query returned no data.'],
    ]);
  });

  it('triggers on no data only with alertOnNoData', async () => {
    answer = { tables: [table(['avg_latency'], [[null]])] };
    const quiet = create();
    expect(await evaluator.evaluate(quiet, T0 + MINUTE, signal)).toMatchObject({ opened: 0, triggering: [] });
    const loud = create({ alertOnNoData: true, name: 'Latency' });
    expect(await evaluator.evaluate(loud, T0 + MINUTE, signal)).toMatchObject({ opened: 1, triggering: [{ value: null }] });
    expect(allSent()).toMatchObject([{ action: 'Open', value: null, body: 'The query returned no data.' }]);
    answer = { tables: [table(['avg_latency'], [[2]])] };
    expect(await evaluator.evaluate(loud, T0 + 2 * MINUTE, signal)).toMatchObject({ closed: 1 });
  });

  it('notifies each matched event once, however the windows overlap', async () => {
    const monitor = create({ type: 'MatchEvent', operator: undefined, threshold: undefined, aplQuery: "['logs'] | where message contains 'panic'" });
    const event = (minute: number, message: string) => [new Date(T0 + minute * MINUTE).toISOString(), message];
    answer = { tables: [table(['_time', 'message'], [event(0.5, 'panic: a')])] };
    await evaluator.evaluate(monitor, T0 + MINUTE, signal);
    answer = { tables: [table(['_time', 'message'], [event(1.5, 'panic: b'), event(0.5, 'panic: a')])] };
    const report = await evaluator.evaluate(monitor, T0 + 2 * MINUTE, signal);
    expect(report).toMatchObject({ opened: 1, notifications: 1 });
    expect(allSent().map((n) => [n.action, n.matchedEvent])).toEqual([
      ['Open', { _time: '2024-06-01T12:00:30.000Z', message: 'panic: a' }],
      ['Open', { _time: '2024-06-01T12:01:30.000Z', message: 'panic: b' }],
    ]);
    expect(allSent()[0]?.body).toBe('{"_time":"2024-06-01T12:00:30.000Z","message":"panic: a"}');
    expect(annotations.list({ datasets: [], startMs: undefined, endMs: undefined }).map((a) => [a.time, a.endTime])).toEqual([
      ['2024-06-01T12:00:30.000Z', undefined],
      ['2024-06-01T12:01:30.000Z', undefined],
    ]);
  });

  it(`notifies at most ${MAX_MATCHES_PER_EVALUATION} events per evaluation and leaves the rest for the next`, async () => {
    const monitor = create({ type: 'MatchEvent', operator: undefined, threshold: undefined });
    const rows = Array.from({ length: MAX_MATCHES_PER_EVALUATION + 5 }, (_, i) => [new Date(T0 + i * 100).toISOString(), `panic ${i}`]);
    answer = { tables: [table(['_time', 'message'], rows)] };
    expect(await evaluator.evaluate(monitor, T0 + MINUTE, signal)).toMatchObject({ opened: MAX_MATCHES_PER_EVALUATION, deferredMatches: 5 });
    expect(await evaluator.evaluate(monitor, T0 + 2 * MINUTE, signal)).toMatchObject({ opened: 5 });
  });

  it('leaves out a notifier paused with disabledUntil, and only that one', async () => {
    answer = { tables: [table(['count_'], [[14]])] };
    const notifiers = createNotifierStore(db);
    const paused = notifiers.create({ name: 'paused', url: 'http://127.0.0.1:1/p', headers: {}, body: '', disabledUntilMs: T0 + 60 * MINUTE }, 'local', T0).id;
    const monitor = create({ notifierIds: [notifierId, paused] });
    expect(await evaluator.evaluate(monitor, T0 + MINUTE, signal)).toMatchObject({ opened: 1, notifications: 1 });
    expect(db.prepare('SELECT notifier_id FROM notification_outbox').all()).toEqual([{ notifier_id: notifierId }]);
  });

  it('records nothing when the monitor changed while its query ran', async () => {
    answer = { tables: [table(['count_'], [[14]])] };
    const monitor = create();
    monitors.update(monitor.id, { ...definition, threshold: 100 }, T0);
    expect(await evaluator.evaluate(monitor, T0 + MINUTE, signal)).toMatchObject({ outcome: 'superseded', opened: 0 });
    expect(allSent()).toEqual([]);
  });

  it('reports a result it cannot compare and changes nothing', async () => {
    answer = { tables: [table(['service'], [['checkout']])] };
    const monitor = create();
    expect(await evaluator.evaluate(monitor, T0 + MINUTE, signal)).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('Column service holds "checkout"'),
    });
  });

  it('closes the open episodes of a deleted monitor', async () => {
    answer = { tables: [table(['count_'], [[14]])] };
    const monitor = create();
    await evaluator.evaluate(monitor, T0 + MINUTE, signal);
    db.transaction(() => {
      evaluator.closeEpisodesOfDeleted(monitor, T0 + 2 * MINUTE);
      monitors.delete(monitor.id);
    })();
    expect(allSent().map((n) => [n.action, n.body])).toEqual([
      ['Open', 'Current value of 14 is above the threshold value of 10'],
      ['Closed', 'The monitor was deleted.'],
    ]);
    expect(annotations.list({ datasets: [], startMs: undefined, endMs: undefined })[0]?.endTime).toBe('2024-06-01T12:02:00.000Z');
  });
});
