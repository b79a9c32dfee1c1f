/**
 * Monitors and notifiers as one component of the service: their stores, the scheduler that runs
 * monitors, the evaluator, and the worker that delivers notifications. The HTTP routes call the
 * operations here, so that every change to a monitor also re-plans its schedule.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { InputError, NotFoundError } from '../../common/errors.js';
import type { AnnotationStore } from '../annotations/store.js';
import type { ServiceDatabase } from '../database.js';
import { createDeliveryWorker, DELIVERY_DEFAULTS, type DeliverySettings } from '../notifiers/delivery.js';
import { createNotificationOutbox } from '../notifiers/outbox.js';
import { createNotifierStore, type Notifier } from '../notifiers/store.js';
import type { NotifierInput } from '../notifiers/validation.js';
import { assertComparable } from './conditions.js';
import { createEvaluator, type EvaluationReport, type MonitorQueryEngine } from './evaluator.js';
import { createMonitorMetrics } from './metrics.js';
import { createScheduler, type SchedulePlan, type Timers } from './scheduler.js';
import { createMonitorState } from './state.js';
import { createMonitorStore, type Monitor } from './store.js';
import type { MonitorDefinition } from './validation.js';

export interface MonitorRuntimeDeps {
  db: ServiceDatabase;
  annotations: AnnotationStore;
  engine: MonitorQueryEngine;
  logger: Logger;
  registry: Registry;
  /** The service's address, for links to the dashboard in annotations. */
  serviceUrl: () => string;
  clock?: () => number;
  timers?: Timers;
  delivery?: Partial<DeliverySettings>;
  /** Notes a full disk (see src/common/disk-full.ts): true when it was one, which the watch has logged once for the episode. */
  noteDiskFull?: (error: unknown) => boolean;
}

/** What a caller of the service may change about its monitors (tests drive the clock and retries). */
export type MonitorRuntimeOptions = Pick<MonitorRuntimeDeps, 'clock' | 'timers' | 'delivery'>;

export interface MonitorRuntime {
  listMonitors(): Monitor[];
  getMonitor(id: string): Monitor | undefined;
  /**
   * Checks the query with the engine first: a bad query throws the engine's APL error, and a
   * threshold monitor's query must yield a column of numbers.
   */
  createMonitor(definition: MonitorDefinition, createdBy: string): Promise<Monitor>;
  updateMonitor(id: string, definition: MonitorDefinition): Promise<Monitor | undefined>;
  /** Closes the monitor's open episodes (annotation end, Closed notifications) and deletes it. */
  deleteMonitor(id: string): boolean;
  /** Evaluates the monitor now, over the range that ends now; undefined when no monitor has this id. */
  runMonitor(id: string): Promise<EvaluationReport | undefined>;
  listNotifiers(): Notifier[];
  getNotifier(id: string): Notifier | undefined;
  createNotifier(input: NotifierInput, createdBy: string): Notifier;
  /** Replaces the notifier; masked header values keep their stored values. */
  updateNotifier(id: string, input: NotifierInput): Notifier | undefined;
  /** Takes it off every monitor and drops its pending deliveries. */
  deleteNotifier(id: string): boolean;
  /** Starts the schedule of every monitor and the delivery of notifications. */
  start(): void;
  /** Stops scheduling, aborts runs and deliveries in flight and waits for them. */
  stop(): Promise<void>;
}

export function createMonitorRuntime(deps: MonitorRuntimeDeps): MonitorRuntime {
  const clock = deps.clock ?? Date.now;
  const { db, logger } = deps;
  const monitors = createMonitorStore(db);
  const notifiers = createNotifierStore(db);
  const state = createMonitorState(db);
  const outbox = createNotificationOutbox(db);
  const metrics = createMonitorMetrics(deps.registry, () => outbox.pendingCount());
  const delivery = createDeliveryWorker({
    outbox,
    notifiers,
    logger: logger.child({ component: 'notifications' }),
    metrics,
    settings: { ...DELIVERY_DEFAULTS, ...deps.delivery },
    now: clock,
    ...(deps.noteDiskFull ? { noteDiskFull: deps.noteDiskFull } : {}),
  });
  const evaluator = createEvaluator({
    db,
    engine: deps.engine,
    monitors,
    notifiers,
    annotations: deps.annotations,
    state,
    outbox,
    notificationsWritten: () => delivery.wake(),
    metrics,
    logger: logger.child({ component: 'monitors' }),
    serviceUrl: deps.serviceUrl,
    clock,
    ...(deps.noteDiskFull ? { noteDiskFull: deps.noteDiskFull } : {}),
  });
  const scheduler = createScheduler({
    now: clock,
    ...(deps.timers ? { timers: deps.timers } : {}),
    run: async (monitorId, endMs, signal) => {
      const monitor = monitors.get(monitorId);
      if (!monitor) return;
      try {
        await evaluator.evaluate(monitor, endMs, signal);
      } catch (error) {
        // Only a shutdown aborts an evaluation: the tick is not recorded, so it runs after the restart.
        if (signal.aborted) return;
        throw error;
      }
      state.recordScheduledEnd(monitorId, endMs);
    },
    skipped: (monitorId, endMs) => {
      metrics.evaluations.inc({ type: monitors.get(monitorId)?.type ?? 'unknown', outcome: 'overlapping' });
      logger.warn({ monitor: monitorId, tick: new Date(endMs).toISOString() }, 'monitor tick skipped: its previous run has not finished');
    },
  });

  /** `disabledUntil` pauses a monitor until then, whatever `disabled` says; `disabled` alone pauses it until it is cleared. */
  function planOf(monitor: Monitor): SchedulePlan | undefined {
    if (monitor.disabledUntilMs === undefined && monitor.disabled) return undefined;
    return {
      intervalMs: monitor.intervalMinutes * 60_000,
      anchorMs: monitor.createdMs,
      lastEndMs: state.lastScheduledEnd(monitor.id),
      pausedUntilMs: monitor.disabledUntilMs,
    };
  }

  async function checkQuery(definition: MonitorDefinition): Promise<void> {
    let probe;
    try {
      probe = await deps.engine.probe(definition.aplQuery);
    } catch (error) {
      // The query's dataset is part of the monitor's body, not of the path: a 400, not a 404.
      if (error instanceof NotFoundError) throw new InputError(`${error.message} Expected a dataset with events: ingest into it first.`);
      throw error;
    }
    if (definition.type === 'Threshold') assertComparable(probe);
  }

  const deleteMonitor = db.transaction((monitor: Monitor): void => {
    evaluator.closeEpisodesOfDeleted(monitor, clock());
    monitors.delete(monitor.id);
  });

  return {
    listMonitors: () => monitors.list(),
    getMonitor: (id) => monitors.get(id),
    async createMonitor(definition, createdBy) {
      await checkQuery(definition);
      const monitor = monitors.create(definition, createdBy, clock());
      scheduler.plan(monitor.id, planOf(monitor));
      return monitor;
    },
    async updateMonitor(id, definition) {
      if (!monitors.get(id)) return undefined;
      await checkQuery(definition);
      const monitor = monitors.update(id, definition, clock());
      if (monitor) scheduler.plan(monitor.id, planOf(monitor));
      return monitor;
    },
    deleteMonitor(id) {
      const monitor = monitors.get(id);
      if (!monitor) return false;
      deleteMonitor(monitor);
      scheduler.plan(id, undefined);
      return true;
    },
    async runMonitor(id) {
      if (!monitors.get(id)) return undefined;
      return scheduler.runNow(id, async (signal) => {
        // Read again after waiting for a run in progress: the monitor may have changed or gone.
        const monitor = monitors.get(id);
        return monitor ? evaluator.evaluate(monitor, clock(), signal) : undefined;
      });
    },
    listNotifiers: () => notifiers.list(),
    getNotifier: (id) => notifiers.get(id),
    createNotifier: (input, createdBy) => notifiers.create(input, createdBy, clock()),
    updateNotifier: (id, input) => notifiers.update(id, input, clock()),
    deleteNotifier: (id) => notifiers.delete(id),
    start() {
      for (const monitor of monitors.list()) scheduler.plan(monitor.id, planOf(monitor));
      delivery.start();
    },
    async stop() {
      await scheduler.stop();
      await delivery.stop();
    },
  };
}
