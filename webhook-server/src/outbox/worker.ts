/**
 * The outbox worker: claims due episodes from the store in batches (each episode held by one
 * worker across every replica), makes their annotations match the recorded state, and records the
 * results. A batch costs the store the same few statements whatever its size: one claim, one
 * durable create trail, one completion. Failures back off exponentially, one episode at a time;
 * after too many the episode is dead-lettered and shown on /admin.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError, type AnnotationsClient } from '../../../src/client/index.js';
import { backoffDelay } from '../../../src/common/backoff.js';
import { episodeMarker, renderAnnotation, type RenderedAnnotation } from '../correlation/episode.js';
import type { BridgeMetrics } from '../ops/metrics.js';
import type { BridgeStore, EpisodeRow } from '../store/types.js';

export interface DeliverySettings {
  /** Batches worked on at once by this process. */
  concurrency: number;
  /** Episodes claimed together: at most concurrency × batchSize annotation calls are in flight. */
  batchSize: number;
  /**
   * While senders wait for acknowledgements (deliveries being recorded) and the process is busy,
   * it starts at most one batch per this many ms: acknowledging has a deadline (the senders'
   * 10 s), an annotation does not, so in a burst the CPU goes to the acknowledgements and the
   * outbox catches up after. A steady flow that leaves the process mostly idle is no burst: there
   * the pause would only cap the outbox (at batchSize per pause) below the flow.
   */
  burstPauseMs: number;
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
  batchSize: 16,
  burstPauseMs: 200,
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
  /**
   * How busy this thread's event loop was over the last burstPauseMs, from 0 to 1 (Node's event
   * loop utilization, sampled while the worker runs); tests give their own.
   */
  busy?: () => number;
}

/**
 * Past this event loop utilization, acknowledgements queue behind other work of the thread: the
 * outbox then yields. Below it, deliveries are answered as they come whatever the outbox does.
 */
export const BUSY_UTILIZATION = 0.5;

/** Statuses after which sending the same request again cannot succeed: dead-letter at once. */
const PERMANENT_STATUSES = new Set([400, 413, 422]);

export function createOutboxWorker(deps: OutboxWorkerDeps): OutboxWorker {
  const { store, client, logger, metrics, settings } = deps;
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const owner = `worker-${randomUUID()}`;
  let stopped = true;
  let loops: Promise<void>[] = [];
  /** Loops idle until the next poll: a wake ends the wait. */
  const waiters = new Set<() => void>();
  let sweepTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> = Promise.resolve();

  /** When the next batch may start in a burst, and when a delivery was last recorded (performance.now()). */
  let burstTurnAt = 0;
  let lastWakeAt = Number.NEGATIVE_INFINITY;
  /** The event loop's utilization over the last complete sampling period (burstPauseMs). */
  let sampled = 0;
  let sampler: NodeJS.Timeout | undefined;
  const busy = deps.busy ?? (() => sampled);
  /**
   * A burst: deliveries are being recorded, or one was within the pause, and the event loop is
   * busy. Group commit answers deliveries together, so the count alone drops to 0 between groups
   * even under full load.
   */
  const inBurst = (): boolean =>
    (store.recording > 0 || performance.now() - lastWakeAt < settings.burstPauseMs) && busy() >= BUSY_UTILIZATION;
  /** Loops pausing for their burst turn: only a stop ends the pause early. */
  const pausing = new Set<() => void>();

  /** Resolves after `ms`, or as soon as its entry in `early` is called. */
  function sleep(ms: number, early: Set<() => void>): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        early.delete(done);
        resolve();
      }
      early.add(done);
    });
  }

  /** Counts wake() calls, so that a wake that comes while a loop is still claiming is not lost. */
  let wakes = 0;

  /** Waits for `ms` or a wake, unless a wake came since `seen`: then the work it announced is looked at now. */
  function idle(ms: number, seen: number): Promise<void> {
    return wakes !== seen ? Promise.resolve() : sleep(ms, waiters);
  }

  function wake(): void {
    wakes++;
    for (const waiter of [...waiters]) waiter();
    lastWakeAt = performance.now();
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      const seen = wakes;
      if (inBurst()) {
        const wait = burstTurnAt - performance.now();
        if (wait > 0) {
          await sleep(wait, pausing);
          continue;
        }
        burstTurnAt = performance.now() + settings.burstPauseMs;
      }
      let batch: EpisodeRow[];
      try {
        batch = await store.claimBatch(owner, now(), settings.batchSize);
      } catch (error) {
        logger.error({ err: error }, 'cannot claim work from the store; retrying');
        await idle(settings.pollMs, seen);
        continue;
      }
      if (batch.length === 0) {
        await idle(settings.pollMs, seen);
        continue;
      }
      await settle(batch);
    }
  }

  /** How one episode of a batch stands: its annotation's id once applied, or why not. */
  type Outcome = { episode: EpisodeRow; annotationId: string } | { episode: EpisodeRow; error: unknown };

  async function settle(batch: readonly EpisodeRow[]): Promise<void> {
    // Episodes whose annotation exists are updated; the others are created, after one durable
    // note of the creates about to be sent (the trail findEarlierCreate follows after a crash).
    const updated = await Promise.all(batch.map(async (episode) => ({ episode, ...(await update(episode)) })));
    const outcomes: Outcome[] = [];
    const creates: Array<{ episode: EpisodeRow; annotation: RenderedAnnotation }> = [];
    for (const item of updated) {
      if ('create' in item) creates.push({ episode: item.episode, annotation: item.create });
      else outcomes.push(item);
    }
    if (creates.length > 0) {
      try {
        await store.noteCreateAttempts(creates.map(({ episode, annotation }) => ({ id: episode.id, time: Date.parse(annotation.time) })));
        outcomes.push(
          ...(await Promise.all(
            creates.map(async ({ episode, annotation }): Promise<Outcome> => {
              try {
                return { episode, annotationId: (await client.create(annotation)).id };
              } catch (error) {
                return { episode, error };
              }
            }),
          )),
        );
      } catch (error) {
        outcomes.push(...creates.map(({ episode }) => ({ episode, error })));
      }
    }

    const applied = outcomes.filter((outcome): outcome is Outcome & { annotationId: string } => 'annotationId' in outcome);
    try {
      await store.completeBatch(
        owner,
        now(),
        applied.map(({ episode, annotationId }) => ({ id: episode.id, annotationId, appliedVersion: episode.version })),
      );
      for (const { episode, annotationId } of applied) {
        metrics.applied.inc({ source: episode.source });
        metrics.applyLatency.observe({ source: episode.source }, Math.max(0, now() - episode.changedAt) / 1000);
        logFor(episode).info({ annotationId, version: episode.version }, 'annotation up to date');
      }
    } catch (error) {
      // Not recorded: each is retried after a backoff, and finds its annotation by id or trail.
      outcomes.push(...applied.map(({ episode }) => ({ episode, error })));
    }
    for (const outcome of outcomes) if ('error' in outcome) await failed(outcome.episode, outcome.error);
  }

  function logFor(episode: EpisodeRow): Logger {
    return logger.child({ episode: episode.id, source: episode.source, correlationKey: episode.correlationKey });
  }

  async function failed(episode: EpisodeRow, error: unknown): Promise<void> {
    const log = logFor(episode);
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

  /**
   * Updates the episode's annotation where one exists (by id, or found through the create trail);
   * says what to create where none does.
   */
  async function update(episode: EpisodeRow): Promise<{ annotationId: string } | { create: RenderedAnnotation } | { error: unknown }> {
    const marker = episodeMarker(episode.correlationKey, episode.seq);
    const annotation = renderAnnotation(episode.state, marker);
    try {
      const id = episode.annotationId ?? (await findEarlierCreate(episode, annotation, marker));
      if (id === undefined) return { create: annotation };
      await client.update(id, annotation);
      return { annotationId: id };
    } catch (error) {
      // Deleted by someone on the service: the episode still deserves its annotation.
      if (error instanceof ApiError && error.status === 404) return { create: annotation };
      return { error };
    }
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
      if (!deps.busy) {
        let mark = performance.eventLoopUtilization();
        sampler = setInterval(() => {
          const next = performance.eventLoopUtilization();
          sampled = performance.eventLoopUtilization(next, mark).utilization;
          mark = next;
        }, settings.burstPauseMs);
        sampler.unref();
      }
      loops = Array.from({ length: settings.concurrency }, () => loop());
    },
    wake,
    async stop() {
      stopped = true;
      if (sweepTimer) clearInterval(sweepTimer);
      if (sampler) clearInterval(sampler);
      wake();
      for (const waiter of [...pausing]) waiter();
      await Promise.all(loops);
      await sweeping;
      loops = [];
    },
  };
}
