/**
 * Delivers the outbox: POSTs each due notification to its notifier's URL, deletes it once the
 * notifier answers 2xx, and otherwise tries again with exponential backoff and jitter until it
 * gives up. It runs beside the evaluations and never holds them up: an evaluation only writes to
 * the outbox and wakes this worker.
 *
 * Notifier headers and URLs carry credentials: they are sent, never logged. Messages name the
 * notifier and show only the origin of its URL, since webhook URLs often keep their secret in the
 * path or the query (`/services/T0/B0/XXXX`, `?token=`).
 */
import type { Logger } from 'pino';
import { backoffDelay } from '../../common/backoff.js';
import type { MonitorMetrics } from '../monitors/metrics.js';
import { defaultPayload } from './notification.js';
import type { NotificationOutbox, OutboxEntry } from './outbox.js';
import type { Notifier, NotifierStore } from './store.js';
import { compileBodyTemplate, renderBodyTemplate } from './template.js';

export interface DeliverySettings {
  /** Deliveries in flight at once. */
  concurrency: number;
  /** How long a notifier has to answer one delivery. */
  timeoutMs: number;
  /** Attempts before a delivery is given up on (kept in the outbox, marked dead). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** How long deliveries given up on are kept for inspection. */
  deadRetentionMs: number;
  /** On stop, how long deliveries in flight may take to finish before they are cut off. */
  stopGraceMs: number;
}

/** About 55 minutes of attempts before giving up: long enough to ride out a receiver's restart or deploy. */
export const DELIVERY_DEFAULTS: DeliverySettings = {
  concurrency: 4,
  timeoutMs: 10_000,
  maxAttempts: 15,
  baseDelayMs: 1_000,
  maxDelayMs: 300_000,
  deadRetentionMs: 30 * 86_400_000,
  stopGraceMs: 5_000,
};

export interface DeliveryWorker {
  start(): void;
  /** Looks for due deliveries now (after an evaluation wrote some) instead of at the next due time. */
  wake(): void;
  /**
   * Stops starting deliveries, lets those in flight finish for `stopGraceMs` (so that an answered
   * delivery is not sent again after a restart), then aborts the rest: an aborted delivery stays
   * due, uncounted.
   */
  stop(): Promise<void>;
}

export interface DeliveryWorkerDeps {
  outbox: NotificationOutbox;
  notifiers: NotifierStore;
  logger: Logger;
  metrics: Pick<MonitorMetrics, 'deliveries'>;
  settings: DeliverySettings;
  now?: () => number;
  random?: () => number;
  /** Notes a full disk (see src/common/disk-full.ts): true when it was one, which the watch has logged once for the episode. */
  noteDiskFull?: (error: unknown) => boolean;
}

/** Statuses that say "try again later"; any other non-2xx answer will not change by resending. */
const RETRY_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);
const IDLE_MS = 60_000;
const SWEEP_EVERY_MS = 3_600_000;
const USER_AGENT = 'Timemark-Monitors/1';

type Outcome = { kind: 'delivered' } | { kind: 'retry'; error: string; notBeforeMs?: number } | { kind: 'give-up'; error: string } | { kind: 'stopped' };

export function createDeliveryWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  const { outbox, notifiers, logger, metrics, settings } = deps;
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const inFlight = new Map<number, Promise<void>>();
  const stopping = new AbortController();
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  let wakeUp: (() => void) | undefined;
  let lastSweepMs = -Infinity;

  function wake(): void {
    wakeUp?.();
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });
  }

  async function run(): Promise<void> {
    while (running) {
      let waitMs = IDLE_MS;
      try {
        sweep();
        const nowMs = now();
        const free = settings.concurrency - inFlight.size;
        if (free > 0) {
          // The heads of busy episodes are still pending, so ask for enough rows to see past them.
          const startable = outbox.due(nowMs, settings.concurrency + inFlight.size).filter((entry) => !inFlight.has(entry.id));
          for (const entry of startable.slice(0, free)) begin(entry);
        }
        const next = outbox.nextDueAfter(nowMs);
        if (next !== undefined) waitMs = Math.min(waitMs, Math.max(0, next - nowMs));
      } catch (error) {
        logger.error({ err: error }, 'cannot read the notification outbox; trying again shortly');
        waitMs = settings.baseDelayMs;
      }
      if (running) await sleep(waitMs);
    }
  }

  function begin(entry: OutboxEntry): void {
    const delivery = attempt(entry)
      .then((outcome) => settle(entry, outcome))
      .catch((error: unknown) => {
        if (deps.noteDiskFull?.(error)) logger.warn({ delivery: entry.id }, 'cannot record the outcome of a delivery: the disk is full');
        else logger.error({ err: error, delivery: entry.id }, 'cannot record the outcome of a delivery');
      })
      .finally(() => {
        inFlight.delete(entry.id);
        wake();
      });
    inFlight.set(entry.id, delivery);
  }

  async function attempt(entry: OutboxEntry): Promise<Outcome> {
    // A deleted notifier takes its deliveries with it; this one was claimed just before.
    const notifier = notifiers.get(entry.notifierId);
    if (!notifier) return { kind: 'delivered' };
    const target = originOf(notifier.url);
    let response: Response;
    try {
      response = await fetch(notifier.url, {
        method: 'POST',
        headers: requestHeaders(notifier),
        body: renderBody(notifier, entry),
        redirect: 'manual',
        signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(settings.timeoutMs)]),
      });
    } catch (error) {
      if (stopping.signal.aborted) return { kind: 'stopped' };
      return { kind: 'retry', error: `POST ${target} failed: ${describeFetchError(error, settings.timeoutMs)}.` };
    }
    // The answer's body is not needed; reading it to the end lets the connection be reused.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { kind: 'delivered' };
    const answered = `POST ${target} answered ${response.status}`;
    if (RETRY_STATUSES.has(response.status)) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now());
      return { kind: 'retry', error: `${answered}.`, ...(retryAfterMs === undefined ? {} : { notBeforeMs: now() + retryAfterMs }) };
    }
    if (response.status >= 300 && response.status < 400) {
      return { kind: 'give-up', error: `${answered} (a redirect). Expected 2xx: point the notifier at the final URL.` };
    }
    return { kind: 'give-up', error: `${answered}. Expected 2xx; sending the same request again cannot change a ${response.status}.` };
  }

  function settle(entry: OutboxEntry, outcome: Outcome): void {
    const log = logger.child({ delivery: entry.id, notifier: entry.notifierId, monitor: entry.monitorId, action: entry.notification.action });
    switch (outcome.kind) {
      case 'stopped':
        return;
      case 'delivered':
        outbox.delivered(entry.id);
        metrics.deliveries.inc({ outcome: 'delivered' });
        log.info('notification delivered');
        return;
      case 'retry': {
        const attempts = entry.attempts + 1;
        if (attempts < settings.maxAttempts) {
          const backoffMs = backoffDelay(entry.attempts, settings, random);
          const nextMs = Math.max(now() + backoffMs, Math.min(outcome.notBeforeMs ?? 0, now() + settings.maxDelayMs));
          outbox.retryAt(entry.id, outcome.error, nextMs);
          metrics.deliveries.inc({ outcome: 'retried' });
          log.warn({ attempts, retryInMs: nextMs - now(), error: outcome.error }, 'notification delivery failed; will retry');
          return;
        }
        giveUp(entry, `${outcome.error} Gave up after ${attempts} attempts.`, log);
        return;
      }
      case 'give-up':
        giveUp(entry, outcome.error, log);
        return;
    }
  }

  function giveUp(entry: OutboxEntry, error: string, log: Logger): void {
    outbox.giveUp(entry.id, error, now());
    metrics.deliveries.inc({ outcome: 'given_up' });
    log.error({ attempts: entry.attempts + 1, error }, 'notification delivery given up');
  }

  function sweep(): void {
    const nowMs = now();
    if (nowMs - lastSweepMs < SWEEP_EVERY_MS) return;
    lastSweepMs = nowMs;
    const purged = outbox.purgeDead(nowMs - settings.deadRetentionMs);
    if (purged > 0) logger.info({ purged }, 'forgot notifications given up on long ago');
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    wake,
    async stop() {
      running = false;
      wake();
      await loop;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, settings.stopGraceMs);
      });
      await Promise.race([Promise.all(inFlight.values()), grace]);
      clearTimeout(timer);
      stopping.abort();
      await Promise.all(inFlight.values());
    },
  };
}

function requestHeaders(notifier: Notifier): Headers {
  const headers = new Headers({ 'content-type': 'application/json', 'user-agent': USER_AGENT });
  // The notifier's own headers win, Content-Type included; Headers matches names case-insensitively.
  for (const [name, value] of Object.entries(notifier.headers)) headers.set(name, value);
  return headers;
}

function renderBody(notifier: Notifier, entry: OutboxEntry): string {
  if (notifier.body === '') return defaultPayload(entry.notification);
  return renderBodyTemplate(compileBodyTemplate(notifier.body), entry.notification);
}

/** `scheme://host:port` alone: userinfo, path and query may all hold credentials. */
function originOf(text: string): string {
  return URL.canParse(text) ? new URL(text).origin : '(an invalid URL)';
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
