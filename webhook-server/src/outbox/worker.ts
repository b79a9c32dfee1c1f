/**
 * The outbox worker: takes due episodes from the store one at a time (per episode, across every
 * replica), makes their annotation match the recorded state, and records the result. Failures
 * back off exponentially; after too many the episode is dead-lettered and shown on /admin.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError, type AnnotationsClient } from '../../../src/client/index.js';
import { backoffDelay } from '../../../src/common/backoff.js';
import { episodeMarker, renderAnnotation, type RenderedAnnotation } from '../correlation/episode.js';
import type { BridgeMetrics } from '../ops/metrics.js';
import type { BridgeStore, EpisodeRow } from '../store/types.js';

export interface DeliverySettings {
  /** Episodes worked on at once by this process. */
  concurrency: number;
  /**
   * How long one apply may take: the service call's time limit is a third of it (at most 10 s).
   * A claim itself never expires: it lasts as long as the process, or its database session, that holds it.
   */
  leaseMs: number;
  /** How often an idle worker looks for due work another replica recorded, or a backoff that expired. */
  pollMs: number;
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxOpenMs: number;
  sweepEveryMs: number;
  dedupeRetentionMs: number;
}

export const DELIVERY_DEFAULTS: DeliverySettings = {
  concurrency: 4,
  leaseMs: 60_000,
  pollMs: 1_000,
  maxAttempts: 15,
  baseDelayMs: 1_000,
  maxDelayMs: 300_000,
  maxOpenMs: 24 * 3_600_000,
  sweepEveryMs: 60_000,
  dedupeRetentionMs: 35 * 86_400_000,
};

export interface OutboxWorker {
  start(): void;
  /** Looks for work now (after an ingest) instead of at the next poll. */
  wake(): void;
  /** Stops claiming, lets in-flight applies finish and releases nothing half-done. */
  stop(): Promise<void>;
}

export interface OutboxWorkerDeps {
  store: BridgeStore;
  client: AnnotationsClient;
  logger: Logger;
  metrics: BridgeMetrics;
  settings: DeliverySettings;
  now?: () => number;
  random?: () => number;
}

/** Statuses after which sending the same request again cannot succeed: dead-letter at once. */
const PERMANENT_STATUSES = new Set([400, 413, 422]);

export function createOutboxWorker(deps: OutboxWorkerDeps): OutboxWorker {
  const { store, client, logger, metrics, settings } = deps;
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const owner = `worker-${randomUUID()}`;
  let stopped = true;
  let loops: Promise<void>[] = [];
  let waiters: Array<() => void> = [];
  let sweepTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> = Promise.resolve();

  /** Counts wake() calls, so that a wake that comes while a loop is still claiming is not lost. */
  let wakes = 0;

  /** Waits for `ms` or a wake, unless a wake came since `seen`: then the work it announced is looked at now. */
  function idle(ms: number, seen: number): Promise<void> {
    if (wakes !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        waiters = waiters.filter((waiter) => waiter !== done);
        resolve();
      }
      waiters.push(done);
    });
  }

  function wake(): void {
    wakes++;
    for (const waiter of [...waiters]) waiter();
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      const seen = wakes;
      let episode: EpisodeRow | undefined;
      try {
        episode = await store.claim(owner, now());
      } catch (error) {
        logger.error({ err: error }, 'cannot claim work from the store; retrying');
        await idle(settings.pollMs, seen);
        continue;
      }
      if (!episode) {
        await idle(settings.pollMs, seen);
        continue;
      }
      await settle(episode);
    }
  }

  async function settle(episode: EpisodeRow): Promise<void> {
    const log = logger.child({ episode: episode.id, source: episode.source, correlationKey: episode.correlationKey });
    try {
      const annotationId = await apply(episode);
      await store.complete(episode.id, owner, annotationId, episode.version, now());
      metrics.applied.inc({ source: episode.source });
      metrics.applyLatency.observe({ source: episode.source }, Math.max(0, now() - episode.changedAt) / 1000);
      log.info({ annotationId, version: episode.version }, 'annotation up to date');
    } catch (error) {
      metrics.applyFailures.inc({ source: episode.source });
      const attempts = episode.attempts + 1;
      const permanent = error instanceof ApiError && error.status !== undefined && PERMANENT_STATUSES.has(error.status);
      const dead = permanent || attempts >= settings.maxAttempts;
      const delay = backoffDelay(episode.attempts, settings, random);
      const message = error instanceof Error ? error.message : String(error);
      try {
        await store.fail(episode.id, owner, { error: message, nextAttemptAt: now() + delay, dead });
      } catch (storeError) {
        // The claim is given back all the same, so the episode is retried later anyway.
        log.error({ err: storeError }, 'cannot record a failed apply');
      }
      if (dead) {
        metrics.deadLettered.inc({ source: episode.source });
        log.error({ attempts, error: message }, 'annotation apply failed for good; moved to the dead letters');
      } else {
        log.warn({ attempts, retryInMs: delay, error: message }, 'annotation apply failed; will retry');
      }
    }
  }

  /** Makes the annotation match the episode; returns its id. */
  async function apply(episode: EpisodeRow): Promise<string> {
    const marker = episodeMarker(episode.correlationKey, episode.seq);
    const annotation = renderAnnotation(episode.state, marker);
    let id = episode.annotationId ?? (await findEarlierCreate(episode, annotation, marker));
    if (id !== undefined) {
      try {
        await client.update(id, annotation);
        return id;
      } catch (error) {
        // Deleted by someone on the service: the episode still deserves its annotation.
        if (!(error instanceof ApiError && error.status === 404)) throw error;
        id = undefined;
      }
    }
    await store.noteCreateAttempt(episode.id, Date.parse(annotation.time));
    const created = await client.create(annotation);
    return created.id;
  }

  /** After a create whose outcome we never learned (crash, timeout), look for it before creating again. */
  async function findEarlierCreate(episode: EpisodeRow, annotation: RenderedAnnotation, marker: string): Promise<string | undefined> {
    if (episode.probeFrom === null || episode.probeTo === null) return undefined;
    const found = await client.list({
      datasets: annotation.datasets,
      start: new Date(episode.probeFrom).toISOString(),
      end: new Date(episode.probeTo).toISOString(),
    });
    return found.find((candidate) => candidate.description?.includes(marker))?.id;
  }

  async function sweep(): Promise<void> {
    try {
      const closed = await store.closeOverdue(now(), settings.maxOpenMs);
      if (closed > 0) {
        logger.info({ closed }, 'closed spans that stayed open longer than the maximum open time');
        wake();
      }
      await store.purge(now() - settings.dedupeRetentionMs);
    } catch (error) {
      logger.error({ err: error }, 'the periodic sweep failed; it runs again later');
    }
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      sweeping = sweep();
      sweepTimer = setInterval(() => {
        sweeping = sweeping.then(sweep);
      }, settings.sweepEveryMs);
      sweepTimer.unref();
      loops = Array.from({ length: settings.concurrency }, () => loop());
    },
    wake,
    async stop() {
      stopped = true;
      if (sweepTimer) clearInterval(sweepTimer);
      wake();
      await Promise.all(loops);
      await sweeping;
      loops = [];
    },
  };
}
