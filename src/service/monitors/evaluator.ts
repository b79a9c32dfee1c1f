/**
 * One evaluation of one monitor: run its query over the window that ends at `endMs`, decide what
 * the result means (conditions.ts), and record the consequences in one SQLite transaction: the
 * episodes that open or close, their annotations, and the notifications for the outbox. Because
 * all of it commits together, a crash or restart never leaves an episode without its annotation
 * or its notifications, and never opens one twice.
 */
import type { Logger } from 'pino';
import { ANNOTATION_LIMITS } from '../../common/annotation-contract.js';
import { withFacts, type Outcome } from '../../common/annotation-facts.js';
import { queryLink } from '../../common/dashboard-link.js';
import { formatTime } from '../../common/time.js';
import type { AnnotationStore } from '../annotations/store.js';
import type { ValidNewAnnotation } from '../annotations/validation.js';
import type { ServiceDatabase } from '../database.js';
import type { MonitorNotification } from '../notifiers/notification.js';
import type { NotificationOutbox } from '../notifiers/outbox.js';
import type { NotifierStore } from '../notifiers/store.js';
import { crosses, describeValue, matchedEvents, MonitorResultError, observeThreshold, type QueryResult } from './conditions.js';
import type { MonitorMetrics } from './metrics.js';
import type { OpenEpisode, MonitorState } from './state.js';
import type { Monitor, MonitorStore } from './store.js';

/** How monitors reach the query engine: its public orchestrator, nothing else. */
export interface MonitorQueryEngine {
  /**
   * Runs the query over a window so short that it reads next to nothing: the parse and the check
   * against the dataset's fields run in full and throw the engine's APL error (400, with line and
   * column) for a bad query, and the result's fields say what the query yields.
   */
  probe(apl: string): Promise<QueryResult>;
  /** Runs the query over `[startMs, endMs)`; `datasets` are the datasets it read. */
  run(apl: string, window: { startMs: number; endMs: number }, signal: AbortSignal): Promise<{ result: QueryResult; datasets: readonly string[] }>;
}

/** What one evaluation did: the reply of `POST /v2/monitors/{id}/run`. */
export interface EvaluationReport {
  monitorId: string;
  startTime: string;
  endTime: string;
  /** ok; failed (the query or its result was unusable: see error); superseded (the monitor changed while its query ran). */
  outcome: 'ok' | 'failed' | 'superseded';
  error?: string;
  /** Threshold monitors: the column compared with the threshold. */
  valueField?: string;
  /** Threshold monitors: the episodes in alert after this evaluation. */
  triggering: Array<{ groupKeys: string[]; groupValues: unknown[]; value: number | null }>;
  /** Episodes opened (for match monitors: events notified) and closed by this evaluation. */
  opened: number;
  closed: number;
  /** Notifications written to the outbox. */
  notifications: number;
  /** Match monitors: matched events left for the next evaluation (see MAX_MATCHES_PER_EVALUATION). */
  deferredMatches?: number;
}

/** Match monitors notify at most this many events per evaluation; the rest wait for the next one. */
export const MAX_MATCHES_PER_EVALUATION = 100;

export const ANNOTATION_TYPE = 'monitor';

export interface EvaluatorDeps {
  db: ServiceDatabase;
  engine: MonitorQueryEngine;
  monitors: MonitorStore;
  notifiers: NotifierStore;
  annotations: AnnotationStore;
  state: MonitorState;
  outbox: NotificationOutbox;
  /** Called after notifications were committed to the outbox. */
  notificationsWritten: () => void;
  metrics: Pick<MonitorMetrics, 'evaluations' | 'evaluationSeconds' | 'transitions'>;
  logger: Logger;
  /** The service's address, for links to the dashboard; known once it listens. */
  serviceUrl: () => string;
  clock: () => number;
  /** Notes a full disk (see src/common/disk-full.ts): true when it was one, which the watch has logged once for the episode. */
  noteDiskFull?: (error: unknown) => boolean;
}

export interface Evaluator {
  evaluate(monitor: Monitor, endMs: number, signal: AbortSignal): Promise<EvaluationReport>;
  /** Closes every open episode of a monitor that is being deleted; runs inside the deletion's transaction. */
  closeEpisodesOfDeleted(monitor: Monitor, nowMs: number): void;
}

interface Window {
  startMs: number;
  endMs: number;
}

export function createEvaluator(deps: EvaluatorDeps): Evaluator {
  const { db, engine, monitors, notifiers, annotations, state, outbox, metrics, logger } = deps;

  async function evaluate(monitor: Monitor, endMs: number, signal: AbortSignal): Promise<EvaluationReport> {
    const started = deps.clock();
    const window = { startMs: endMs - monitor.rangeMinutes * 60_000, endMs };
    const report: EvaluationReport = {
      monitorId: monitor.id,
      startTime: formatTime(window.startMs),
      endTime: formatTime(window.endMs),
      outcome: 'ok',
      triggering: [],
      opened: 0,
      closed: 0,
      notifications: 0,
    };
    try {
      const { result, datasets } = await engine.run(monitor.aplQuery, window, signal);
      const record = db.transaction(() => {
        const current = monitors.get(monitor.id);
        if (!current || current.revision !== monitor.revision) return false;
        if (current.type === 'Threshold') applyThreshold(current, window, result, datasets, report);
        else applyMatches(current, window, result, datasets, report);
        return true;
      });
      if (!record()) report.outcome = 'superseded';
    } catch (error) {
      if (signal.aborted) throw error;
      report.outcome = 'failed';
      report.error = error instanceof Error ? error.message : String(error);
      const expected = error instanceof MonitorResultError || isQueryError(error) || deps.noteDiskFull?.(error) === true;
      if (!expected) logger.error({ err: error, monitor: monitor.id }, 'monitor evaluation failed');
      else logger.warn({ monitor: monitor.id, error: report.error }, 'monitor evaluation failed');
    }
    metrics.evaluations.inc({ type: monitor.type, outcome: report.outcome });
    metrics.evaluationSeconds.observe({ type: monitor.type }, (deps.clock() - started) / 1000);
    if (report.notifications > 0) deps.notificationsWritten();
    if (report.opened > 0 || report.closed > 0) {
      logger.info({ monitor: monitor.id, opened: report.opened, closed: report.closed, notifications: report.notifications }, 'monitor state changed');
    }
    return report;
  }

  function applyThreshold(monitor: Monitor, window: Window, result: QueryResult, datasets: readonly string[], report: EvaluationReport): void {
    if (monitor.operator === undefined || monitor.threshold === undefined) {
      throw new Error(`Threshold monitor ${monitor.id} has no operator or threshold, which validation requires.`);
    }
    const rule = { operator: monitor.operator, threshold: monitor.threshold, notifyByGroup: monitor.notifyByGroup };
    const observation = observeThreshold(result, rule);
    const triggering = new Map<string, { groupKeys: string[]; groupValues: unknown[]; value: number | null }>();
    const values = new Map<string, number | null>();
    if (observation.kind === 'no-data') {
      if (monitor.alertOnNoData) triggering.set('[]', { groupKeys: [], groupValues: [], value: null });
    } else {
      report.valueField = observation.valueField;
      for (const group of observation.groups) {
        const key = JSON.stringify(group.groupValues);
        values.set(key, group.value);
        if (group.value !== null && crosses(group.value, rule)) triggering.set(key, group);
      }
    }
    report.triggering = [...triggering.values()];

    const open = new Map(state.openEpisodes(monitor.id).map((episode) => [episode.groupKey, episode]));
    for (const [key, group] of triggering) {
      if (open.has(key)) continue;
      const body = describeValue(group.value, rule);
      const title = titleOf(monitor, group.groupValues);
      const annotationId = createAnnotation(datasets, {
        timeMs: window.endMs,
        title,
        description: body,
        url: dashboardUrl(monitor.aplQuery, window),
      });
      state.open({ monitorId: monitor.id, groupKey: key, groupKeys: group.groupKeys, groupValues: group.groupValues, annotationId, openedMs: window.endMs });
      notify(monitor, key, { ...base(monitor, window), action: 'Open', body, value: group.value, groupKeys: group.groupKeys, groupValues: group.groupValues }, report);
      report.opened++;
      metrics.transitions.inc({ action: 'Open' });
    }
    for (const [key, episode] of open) {
      if (triggering.has(key)) continue;
      const value = values.get(key) ?? null;
      closeEpisode(monitor, episode, window.endMs, 'resolved', { ...base(monitor, window), body: describeValue(value, rule), value }, report);
    }
  }

  function applyMatches(monitor: Monitor, window: Window, result: QueryResult, datasets: readonly string[], report: EvaluationReport): void {
    // A monitor that was a threshold monitor before an update leaves no episode open behind it.
    for (const episode of state.openEpisodes(monitor.id)) {
      closeEpisode(monitor, episode, window.endMs, 'unknown', { ...base(monitor, window), body: 'The monitor became a match monitor.', value: null }, report);
    }
    state.forgetMatches(monitor.id, window.startMs);
    let notified = 0;
    let deferred = 0;
    for (const match of matchedEvents(result)) {
      if (notified === MAX_MATCHES_PER_EVALUATION) {
        deferred++;
        continue;
      }
      const eventMs = match.timeMs ?? window.endMs;
      if (!state.rememberMatch(monitor.id, match.hash, eventMs)) continue;
      const body = JSON.stringify(match.event);
      createAnnotation(datasets, { timeMs: eventMs, title: monitor.name, description: body, url: dashboardUrl(monitor.aplQuery, window) });
      notify(
        monitor,
        'match',
        { ...base(monitor, window), action: 'Open', body, value: null, matchedEvent: match.event, groupKeys: [], groupValues: [] },
        report,
      );
      notified++;
      metrics.transitions.inc({ action: 'Open' });
    }
    report.opened += notified;
    if (deferred > 0) {
      report.deferredMatches = deferred;
      logger.warn({ monitor: monitor.id, deferred }, `more than ${MAX_MATCHES_PER_EVALUATION} events matched; the rest are notified by the next evaluations`);
    }
  }

  /**
   * Ends an episode: its annotation gets its end and its outcome as data (`resolved` when the
   * condition cleared; `unknown` when the monitor was deleted or stopped being a threshold monitor).
   */
  function closeEpisode(
    monitor: Monitor,
    episode: OpenEpisode,
    endMs: number,
    outcome: Outcome,
    notification: Omit<MonitorNotification, 'action' | 'groupKeys' | 'groupValues'>,
    report: EvaluationReport,
  ): void {
    if (episode.annotationId !== undefined) {
      const annotation = annotations.get(episode.annotationId);
      // Someone may have deleted the annotation, or moved its time after the end we would set.
      if (annotation) {
        annotations.update(
          annotation.id,
          { endMs: Math.max(endMs, Date.parse(annotation.time)), description: withFacts(annotation.description, { outcome }) },
          deps.clock(),
        );
      }
    }
    state.close(monitor.id, episode.groupKey);
    notify(monitor, episode.groupKey, { ...notification, action: 'Closed', groupKeys: episode.groupKeys, groupValues: episode.groupValues }, report);
    report.closed++;
    metrics.transitions.inc({ action: 'Closed' });
  }

  function notify(monitor: Monitor, episodeKey: string, notification: MonitorNotification, report: EvaluationReport): void {
    const nowMs = deps.clock();
    for (const notifierId of monitor.notifierIds) {
      const notifier = notifiers.get(notifierId);
      // A notifier paused with disabledUntil misses what happens meanwhile, as on the hosted service.
      if (!notifier || (notifier.disabledUntilMs !== undefined && notifier.disabledUntilMs > nowMs)) continue;
      outbox.enqueue(notifierId, `${monitor.id}:${episodeKey}`, notification, nowMs);
      report.notifications++;
    }
  }

  function createAnnotation(datasets: readonly string[], fields: { timeMs: number; title: string; description: string; url: string }): string | undefined {
    const names = datasets.filter((name) => name.length <= ANNOTATION_LIMITS.datasetName).slice(0, ANNOTATION_LIMITS.datasets);
    if (names.length === 0) return undefined;
    const input: ValidNewAnnotation = {
      datasets: names,
      type: ANNOTATION_TYPE,
      timeMs: fields.timeMs,
      endMs: undefined,
      title: truncate(fields.title, ANNOTATION_LIMITS.title),
      description: truncate(fields.description, ANNOTATION_LIMITS.description),
      url: fields.url,
    };
    return annotations.create(input, deps.clock()).id;
  }

  /**
   * The dashboard with the monitor's query over the evaluated window. A query too long for an
   * annotation's url keeps the window and drops the query (the dashboard then shows its default).
   */
  function dashboardUrl(apl: string, window: Window): string {
    const root = deps.serviceUrl().replace(/\/+$/, '');
    const full = `${root}${queryLink(apl, window.startMs, window.endMs)}`;
    return full.length <= ANNOTATION_LIMITS.url ? full : `${root}${queryLink('', window.startMs, window.endMs)}`;
  }

  return {
    evaluate,
    closeEpisodesOfDeleted(monitor, nowMs) {
      const window = { startMs: nowMs - monitor.rangeMinutes * 60_000, endMs: nowMs };
      const report: EvaluationReport = { monitorId: monitor.id, startTime: '', endTime: '', outcome: 'ok', triggering: [], opened: 0, closed: 0, notifications: 0 };
      for (const episode of state.openEpisodes(monitor.id)) {
        closeEpisode(monitor, episode, nowMs, 'unknown', { ...base(monitor, window), body: 'The monitor was deleted.', value: null }, report);
      }
      if (report.notifications > 0) deps.notificationsWritten();
    },
  };
}

function base(monitor: Monitor, window: Window): Pick<MonitorNotification, 'monitorId' | 'title' | 'description' | 'queryStartMs' | 'queryEndMs' | 'timestampMs' | 'matchedEvent'> {
  return {
    monitorId: monitor.id,
    title: monitor.name,
    description: monitor.description ?? '',
    queryStartMs: window.startMs,
    queryEndMs: window.endMs,
    // The evaluation's time, not the delivery's: every retry of a notification is the same notification.
    timestampMs: window.endMs,
    matchedEvent: null,
  };
}

function titleOf(monitor: Monitor, groupValues: readonly unknown[]): string {
  if (groupValues.length === 0) return monitor.name;
  return `${monitor.name} (${groupValues.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ')})`;
}

function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** Errors of the query itself (bad APL, a field that no longer exists), as opposed to faults of ours. */
function isQueryError(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
