import { UnavailableError } from '../../../src/common/errors.js';
import type { EpisodeState } from '../correlation/episode.js';
import type { MappedTarget } from '../mapping/mapping.js';
import type { BridgeEvent, SourceName } from '../sources/types.js';

export type EpisodeStatus = 'pending' | 'synced' | 'dead';

/** One episode and its place in the outbox: `pending` until the annotation matches `version`. */
export interface EpisodeRow {
  id: number;
  correlationKey: string;
  seq: number;
  source: SourceName;
  state: EpisodeState;
  annotationId: string | null;
  version: number;
  syncedVersion: number;
  status: EpisodeStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  /** The span of `time` values sent in creates whose outcome is unknown: where to look for the annotation. */
  probeFrom: number | null;
  probeTo: number | null;
  changedAt: number;
  createdAt: number;
}

export interface PreparedEvent {
  event: BridgeEvent;
  target: MappedTarget;
}

export interface IngestResult {
  accepted: number;
  duplicates: number;
}

export interface OutboxCounts {
  pending: number;
  synced: number;
  dead: number;
}

export interface CreateAttempt {
  id: number;
  /** The annotation's `time`, as sent. */
  time: number;
}

export interface AppliedEpisode {
  id: number;
  annotationId: string;
  /** The episode version the annotation now shows. */
  appliedVersion: number;
}

export interface FailureUpdate {
  error: string;
  nextAttemptAt: number;
  dead: boolean;
}

/**
 * The bridge's durable state. Both implementations (SQLite, PostgreSQL) share one SQL text and
 * one test suite, so their semantics are the same by construction.
 */
export interface BridgeStore {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Records the events, durably; duplicates change nothing. Their episodes are folded afterwards
   * (`fold`), and before any read of episodes: a reader never misses an event recorded before it.
   */
  ingest(events: readonly PreparedEvent[], receivedAt: number): Promise<IngestResult>;
  /** Deliveries this process is recording or has queued to record: senders waiting for an answer. */
  readonly recording: number;
  /**
   * Claims up to `limit` due episodes for `owner`, the longest due first. No other worker, in any
   * replica, gets one until its claim is given back by completeBatch or fail — or by the end of its
   * holder (see ClaimLocks in sql-store.ts).
   */
  claimBatch(owner: string, now: number, limit: number): Promise<EpisodeRow[]>;
  /**
   * Written, durably, before the create calls of these episodes, so that a crash after it leaves
   * a trail to find each annotation by: the `time` values sent.
   */
  noteCreateAttempts(attempts: readonly CreateAttempt[]): Promise<void>;
  /** Records the annotations now matching the episodes, and gives their claims back. */
  completeBatch(owner: string, now: number, applied: readonly AppliedEpisode[]): Promise<void>;
  /** Records a failed apply (backoff or dead letter), and gives the claim back. */
  fail(id: number, owner: string, failure: FailureUpdate): Promise<void>;
  /** Closes episodes open for longer than `maxOpenMs`; returns how many. */
  closeOverdue(now: number, maxOpenMs: number): Promise<number>;
  /** Forgets the owners recorded on claimed episodes (all, or `owner`'s): for a store one process owns, at its start. */
  releaseLeases(owner?: string): Promise<void>;
  deadLetters(limit: number): Promise<EpisodeRow[]>;
  retryDeadLetter(id: number, now: number): Promise<boolean>;
  episodes(correlationKey: string): Promise<EpisodeRow[]>;
  /** Folds every event recorded before the call into its episode. */
  fold(): Promise<void>;
  counts(): Promise<OutboxCounts>;
  /** Forgets dedupe keys received before `before`, and synced episodes last changed before it. */
  purge(before: number): Promise<{ events: number; episodes: number }>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The store could not be reached or failed: the sender should retry (503). */
export class StoreUnavailableError extends UnavailableError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, code: 'store_unavailable' });
  }
}
