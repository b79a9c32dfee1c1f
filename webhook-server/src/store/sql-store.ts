/**
 * The store's logic, written once over a minimal SQL driver. SQLite and PostgreSQL differ only
 * in the driver (placeholders, locking clauses, types), not in what a call does.
 */
import { autoClose, type EpisodeState } from '../correlation/episode.js';
import { createIngestQueue, eventRecord, FOLD_BATCH, foldBatch, recordGroup, type EventRecord } from './ingest-group.js';
import { parameterList, rowPlaceholders } from './placeholders.js';
import type { SourceName } from '../sources/types.js';
import {
  StoreUnavailableError,
  type BridgeStore,
  type EpisodeRow,
  type EpisodeStatus,
  type FailureUpdate,
  type IngestResult,
  type OutboxCounts,
} from './types.js';

export type Row = Record<string, unknown>;
/** Runs one statement with `$1…$n` placeholders. */
export type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;

export interface TransactionOptions {
  durable: boolean;
  /**
   * Runs the transaction as the only one, across connections and replicas, holding this lock (one
   * of the constants below) from its start: a no-op where there is one writer.
   */
  exclusive?: number;
}

/**
 * Who works on which episode. A claim lives exactly as long as its holder: in this process for
 * SQLite (one process owns the file, so a restart starts with none), in the database session for
 * PostgreSQL, so a replica that dies — `kill -9` included — lets go of its episodes as soon as its
 * connection drops, not after a timeout.
 */
export interface ClaimLocks {
  /**
   * Tries to claim the first `limit` of `ids` that no worker here holds; resolves with those this
   * process now holds (fewer where another replica holds some).
   */
  acquire(ids: readonly number[], limit: number): Promise<number[]>;
  /** Never throws: a claim that cannot be given back cleanly is given back with its session. */
  release(ids: readonly number[]): Promise<void>;
  /** How many episodes this process holds: the next claim looks past that many due ones. */
  readonly heldCount: number;
  close(): Promise<void>;
}

/** Claims for a store that one process owns. */
export function createProcessClaims(): ClaimLocks {
  const held = new Set<number>();
  return {
    acquire: (ids, limit) => {
      const fresh = [...new Set(ids)].filter((id) => !held.has(id)).slice(0, limit);
      for (const id of fresh) held.add(id);
      return Promise.resolve(fresh);
    },
    release: (ids) => {
      for (const id of ids) held.delete(id);
      return Promise.resolve();
    },
    get heldCount() {
      return held.size;
    },
    close: () => {
      held.clear();
      return Promise.resolve();
    },
  };
}

export interface SqlDriver {
  readonly kind: 'sqlite' | 'postgres';
  readonly claims: ClaimLocks;
  /**
   * How many groups of deliveries may be recorded at once (see ingest-group.ts): a driver that
   * already commits whatever is queued together takes each delivery as it comes.
   */
  readonly ingestGroups: number;
  /** ` FOR UPDATE SKIP LOCKED` where row locks exist; SQLite has one writer at a time instead. */
  readonly skipLocked: string;
  /**
   * `durable: false` lets a commit return before it reaches the disk where the database allows it
   * (PostgreSQL's synchronous_commit). Only for writes whose loss a crash of the database makes
   * harmless: the outbox's own bookkeeping, which is redone or rediscovered after a restart.
   */
  transaction<T>(work: (query: Query) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Runs one statement as a transaction of its own (`durable` as above): one round trip on
   * PostgreSQL, where a transaction around it takes three.
   */
  statement(sql: string, params: readonly unknown[], options: { durable: boolean }): Promise<Row[]>;
  close(): Promise<void>;
}

/** The lock that makes one fold at a time run, in all replicas (PostgreSQL's advisory lock space; arbitrary). */
export const FOLD_LOCK = 7_305_118_002;

/** Due episodes listed per claim beyond those this process holds, in case others hold the first ones. */
const CLAIM_CANDIDATES = 8;

const EPISODE_COLUMNS =
  'id, correlation_key, seq, source, state, annotation_id, version, synced_version, status, attempts, next_attempt_at, last_error, probe_from, probe_to, changed_at, created_at';

/**
 * A store made over a SQL driver. It also records events already made into rows: the SQLite
 * store's thread is handed them so (sqlite-thread.ts), serialised on the HTTP thread, once.
 */
export interface SqlBridgeStore extends BridgeStore {
  ingestRecords(records: readonly EventRecord[], receivedAt: number): Promise<IngestResult>;
}

export function createSqlStore(driver: SqlDriver): SqlBridgeStore {
  let closing: Promise<void> | undefined;
  async function tx<T>(work: (query: Query) => Promise<T>, durable = true, exclusive?: number): Promise<T> {
    try {
      return await driver.transaction(work, { durable, ...(exclusive === undefined ? {} : { exclusive }) });
    } catch (error) {
      throw new StoreUnavailableError(`The bridge store failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  async function run(sql: string, params: readonly unknown[] = [], durable = true): Promise<Row[]> {
    try {
      return await driver.statement(sql, params, { durable });
    } catch (error) {
      throw new StoreUnavailableError(`The bridge store failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  // An acknowledgement waits for one statement: the group's event rows (ingest-group.ts).
  const ingests = createIngestQueue((group) => recordGroup((sql, params = []) => run(sql, params), group), driver.ingestGroups);

  // The fold (ingest-group.ts's foldBatch), run until no event is left. Its commit need not reach
  // the disk before it returns: a fold lost with a crash of the database leaves its events unfolded,
  // and they are folded again. (A durable write after it, such as the create trail written before
  // an annotation is created, flushes it too: both databases write their log in order.)
  let folding: Promise<void> | undefined;
  let queuedFold: Promise<void> | undefined;
  /** One batch of the fold, under the fold's lock; resolves with how many events it took. */
  const foldOnce = (): Promise<number> => tx(foldBatch, false, FOLD_LOCK);
  async function foldPass(): Promise<void> {
    while ((await foldOnce()) === FOLD_BATCH);
  }
  /**
   * Folds every event recorded before the call. A pass that is already running may have begun
   * before the caller's events were committed, so the caller waits for the pass after it, which
   * every caller arriving meanwhile shares.
   */
  function foldAll(): Promise<void> {
    if (!folding) {
      folding = foldPass().finally(() => (folding = undefined));
      return folding;
    }
    const next = () => {
      queuedFold = undefined;
      return foldAll();
    };
    queuedFold ??= folding.then(next, next);
    return queuedFold;
  }

  return {
    kind: driver.kind,

    // Async, so that an event JSON cannot hold refuses its own delivery as a rejection.
    ingest: async (events, receivedAt) => ingests.ingest({ records: events.map(eventRecord), receivedAt }),
    ingestRecords: (records, receivedAt) => ingests.ingest({ records, receivedAt }),

    get recording() {
      return ingests.pending;
    },

    async claimBatch(owner, now, limit) {
      const listDue = () =>
        run(
          `SELECT id FROM bridge_episodes WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2`,
          [now, driver.claims.heldCount + 2 * limit + CLAIM_CANDIDATES],
          false,
        );
      // The fold on demand: one batch of it when too few episodes are due to fill this claim. In a
      // burst (one claim per pause) the rest waits, while the acknowledgements have the CPU.
      let due = await listDue();
      if (due.length < driver.claims.heldCount + limit && (await foldOnce()) > 0) due = await listDue();
      // Those held here are skipped without asking; those other replicas hold are refused.
      const wanted = await driver.claims.acquire(due.map((row) => Number(row.id)), limit);
      if (wanted.length === 0) return [];
      let claimed: Row[];
      try {
        // Read again under the claim: an episode may have been applied since it was listed.
        // The owner is recorded so that a holder that lost its claim cannot complete over the next one.
        claimed = await run(
          `UPDATE bridge_episodes SET lease_owner = $1 WHERE id IN (${parameterList(wanted.length, 3)}) AND status = 'pending' AND next_attempt_at <= $2
           RETURNING ${EPISODE_COLUMNS}`,
          [owner, now, ...wanted],
          false,
        );
      } catch (error) {
        await driver.claims.release(wanted);
        throw error;
      }
      const episodes = claimed.map(toEpisode).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
      const kept = new Set(episodes.map((episode) => episode.id));
      await driver.claims.release(wanted.filter((id) => !kept.has(id)));
      return episodes;
    },

    async noteCreateAttempts(attempts) {
      if (attempts.length === 0) return;
      await run(
        `WITH attempt (id, attempt_time) AS (VALUES ${typedRows(attempts.length, ['BIGINT', 'BIGINT'])})
         UPDATE bridge_episodes SET
           probe_from = CASE WHEN probe_from IS NULL OR probe_from > attempt.attempt_time THEN attempt.attempt_time ELSE probe_from END,
           probe_to = CASE WHEN probe_to IS NULL OR probe_to < attempt.attempt_time THEN attempt.attempt_time ELSE probe_to END
         FROM attempt WHERE bridge_episodes.id = attempt.id`,
        attempts.flatMap((attempt) => [attempt.id, attempt.time]),
      );
    },

    // Losing this to a database crash only means applying the same state again: the
    // annotation is then found through the create trail written durably before the create.
    async completeBatch(owner, now, applied) {
      if (applied.length === 0) return;
      const ids = applied.map((item) => item.id);
      try {
        await run(
          `WITH applied (id, annotation_id, applied_version) AS (VALUES ${typedRows(applied.length, ['BIGINT', 'TEXT', 'BIGINT'], 3)})
           UPDATE bridge_episodes SET annotation_id = applied.annotation_id, synced_version = applied.applied_version,
             status = CASE WHEN bridge_episodes.version = applied.applied_version THEN 'synced' ELSE 'pending' END,
             attempts = 0, last_error = NULL, next_attempt_at = $1, probe_from = NULL, probe_to = NULL, lease_owner = NULL
           FROM applied WHERE bridge_episodes.id = applied.id AND (bridge_episodes.lease_owner = $2 OR bridge_episodes.lease_owner IS NULL)`,
          [now, owner, ...applied.flatMap((item) => [item.id, item.annotationId, item.appliedVersion])],
          false,
        );
      } finally {
        await driver.claims.release(ids);
      }
    },

    async fail(id, owner, failure: FailureUpdate) {
      try {
        await run(
          `UPDATE bridge_episodes SET attempts = attempts + 1, last_error = $2, next_attempt_at = $3,
             status = CASE WHEN $4 = 1 THEN 'dead' ELSE status END, lease_owner = NULL
           WHERE id = $1 AND lease_owner = $5`,
          [id, failure.error.slice(0, 1000), failure.nextAttemptAt, failure.dead ? 1 : 0, owner],
          false,
        );
      } finally {
        await driver.claims.release([id]);
      }
    },

    closeOverdue: async (now, maxOpenMs) => {
      await foldAll();
      return tx(async (query) => {
        const rows = await query(
          `SELECT ${EPISODE_COLUMNS} FROM bridge_episodes WHERE open_since IS NOT NULL AND open_since < $1
           ORDER BY open_since LIMIT 100${driver.skipLocked}`,
          [now - maxOpenMs],
        );
        for (const row of rows) {
          const episode = toEpisode(row);
          const state = autoClose(episode.state, maxOpenMs);
          await query(
            `UPDATE bridge_episodes SET state = $2, open_since = NULL, version = version + 1, changed_at = $3,
               next_attempt_at = CASE WHEN status = 'pending' THEN next_attempt_at ELSE $3 END, status = 'pending'
             WHERE id = $1`,
            [episode.id, JSON.stringify(state), now],
          );
        }
        return rows.length;
      });
    },

    releaseLeases: async (owner) => {
      if (owner === undefined) await run('UPDATE bridge_episodes SET lease_owner = NULL WHERE lease_owner IS NOT NULL');
      else await run('UPDATE bridge_episodes SET lease_owner = NULL WHERE lease_owner = $1', [owner]);
    },

    deadLetters: async (limit) => {
      await foldAll();
      return (await run(`SELECT ${EPISODE_COLUMNS} FROM bridge_episodes WHERE status = 'dead' ORDER BY changed_at DESC, id DESC LIMIT $1`, [limit], false)).map(toEpisode);
    },

    retryDeadLetter: async (id, now) => {
      const rows = await run(
        `UPDATE bridge_episodes SET status = 'pending', attempts = 0, next_attempt_at = $2 WHERE id = $1 AND status = 'dead' RETURNING id`,
        [id, now],
      );
      return rows.length > 0;
    },

    episodes: async (correlationKey) => {
      await foldAll();
      return (await run(`SELECT ${EPISODE_COLUMNS} FROM bridge_episodes WHERE correlation_key = $1 ORDER BY seq`, [correlationKey], false)).map(toEpisode);
    },

    fold: foldAll,

    counts: async (): Promise<OutboxCounts> => {
      await foldAll();
      const counts: OutboxCounts = { pending: 0, synced: 0, dead: 0 };
      for (const row of await run('SELECT status, COUNT(*) AS n FROM bridge_episodes GROUP BY status', [], false)) {
        const status = String(row.status) as EpisodeStatus;
        if (status in counts) counts[status] = Number(row.n);
      }
      return counts;
    },

    purge: async (before) => {
      await foldAll();
      return tx(async (query) => {
        // An event not folded yet is kept whatever its age (one recorded since the fold above).
        const events = await query('DELETE FROM bridge_events WHERE received_at < $1 AND folded = 1 RETURNING id', [before]);
        // Synced episodes untouched for as long as dedupe keys are kept; pending and dead ones stay.
        const episodes = await query(`DELETE FROM bridge_episodes WHERE status = 'synced' AND changed_at < $1 RETURNING id`, [before]);
        return { events: events.length, episodes: episodes.length };
      });
    },

    ping: async () => {
      await run('SELECT 1 AS ok', [], false);
    },

    close: () =>
      (closing ??= (async () => {
        await ingests.idle();
        await (queuedFold ?? folding)?.catch(() => undefined);
        await driver.claims.close();
        await driver.close();
      })()),
  };
}

/**
 * `(CAST($first AS T1), …), …`: rows of a VALUES list. The casts give each column its type, which
 * PostgreSQL cannot infer for a parameter inside VALUES.
 */
function typedRows(count: number, types: readonly string[], first = 1): string {
  return rowPlaceholders(count, types.length, { first, shape: (row) => row.map((placeholder, column) => `CAST(${placeholder} AS ${types[column] as string})`).join(', ') });
}

function toEpisode(row: Row): EpisodeRow {
  return {
    id: Number(row.id),
    correlationKey: String(row.correlation_key),
    seq: Number(row.seq),
    source: String(row.source) as SourceName,
    state: JSON.parse(String(row.state)) as EpisodeState,
    annotationId: row.annotation_id === null || row.annotation_id === undefined ? null : String(row.annotation_id),
    version: Number(row.version),
    syncedVersion: Number(row.synced_version),
    status: String(row.status) as EpisodeStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastError: row.last_error === null || row.last_error === undefined ? null : String(row.last_error),
    probeFrom: row.probe_from === null || row.probe_from === undefined ? null : Number(row.probe_from),
    probeTo: row.probe_to === null || row.probe_to === undefined ? null : Number(row.probe_to),
    changedAt: Number(row.changed_at),
    createdAt: Number(row.created_at),
  };
}

/**
 * Columns added since the tables were first created, for a store made by an earlier version:
 * `addColumn` writes the driver's statement that adds one where it is missing (none if present).
 * Rows recorded before the fold was a step of its own were folded when recorded: hence the default.
 */
const ADDED_COLUMNS: ReadonlyArray<{ table: string; column: string; definition: string }> = [
  { table: 'bridge_events', column: 'target', definition: 'TEXT' },
  { table: 'bridge_events', column: 'folded', definition: 'INTEGER NOT NULL DEFAULT 1' },
];

/** The schema as first created, with the one type that differs between the two databases filled in. */
export function schemaStatements(idType: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS bridge_events (
       id ${idType},
       source TEXT NOT NULL,
       dedupe_key TEXT NOT NULL,
       correlation_key TEXT NOT NULL,
       event TEXT NOT NULL,
       received_at BIGINT NOT NULL,
       UNIQUE (source, dedupe_key)
     )`,
    'CREATE INDEX IF NOT EXISTS bridge_events_received_at ON bridge_events (received_at)',
    `CREATE TABLE IF NOT EXISTS bridge_episodes (
       id ${idType},
       correlation_key TEXT NOT NULL,
       seq INTEGER NOT NULL,
       source TEXT NOT NULL,
       state TEXT NOT NULL,
       open_since BIGINT,
       annotation_id TEXT,
       version INTEGER NOT NULL,
       synced_version INTEGER NOT NULL,
       status TEXT NOT NULL,
       attempts INTEGER NOT NULL,
       next_attempt_at BIGINT NOT NULL,
       last_error TEXT,
       lease_owner TEXT,
       probe_from BIGINT,
       probe_to BIGINT,
       changed_at BIGINT NOT NULL,
       created_at BIGINT NOT NULL,
       UNIQUE (correlation_key, seq)
     )`,
    'CREATE INDEX IF NOT EXISTS bridge_episodes_due ON bridge_episodes (status, next_attempt_at)',
    'CREATE INDEX IF NOT EXISTS bridge_episodes_open ON bridge_episodes (open_since)',
  ];
}

/**
 * What brings tables made by schemaStatements, now or by an earlier version, to the current
 * schema: run after them. `addColumn` is the driver's statement adding a column where it is missing.
 */
export function upgradeStatements(addColumn: (table: string, column: string, definition: string) => string[]): string[] {
  return [
    ...ADDED_COLUMNS.flatMap(({ table, column, definition }) => addColumn(table, column, definition)),
    // The fold's queue: small, whatever the number of events kept for dedupe.
    'CREATE INDEX IF NOT EXISTS bridge_events_unfolded ON bridge_events (id) WHERE folded = 0',
  ];
}
