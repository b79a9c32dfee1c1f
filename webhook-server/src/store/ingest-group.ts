/**
 * Recording deliveries, and folding their events into episodes. The two are separate steps:
 *
 * - A delivery is acknowledged once its events are rows of bridge_events, committed. Deliveries
 *   that arrive while one group is being written wait and are then written together, in one
 *   insert whatever their number (group commit); the rows' unique key is the dedupe.
 * - The fold reads the rows not yet folded, oldest first, places each event in an episode of its
 *   correlation key, writes the episodes and marks the rows folded, in one transaction. Whoever
 *   reads episodes folds first (sql-store.ts), so no reader sees an acknowledged event missing.
 *
 * Splitting them keeps the fold out of the sender's wait: in a burst the acknowledgement costs one
 * statement per group, and the fold runs in batches as large as the backlog when the outbox asks.
 */
import { mergeEvent, newEpisode, openSince, placeEvent, PLACEMENT_WINDOW, type EpisodeState } from '../correlation/episode.js';
import { parameterList, rowPlaceholders } from './placeholders.js';
import type { Query, Row } from './sql-store.js';
import type { MappedTarget } from '../mapping/mapping.js';
import type { BridgeEvent } from '../sources/types.js';
import type { IngestResult, PreparedEvent } from './types.js';

/**
 * A group takes deliveries until it holds this many events (a delivery is never split): it bounds
 * the statements' parameters well inside both databases' limits, and a group's latency.
 */
export const INGEST_GROUP_EVENTS = 256;

/**
 * An event as a row of bridge_events holds it: its keys, and the event and its mapped target as
 * JSON text. Made once, by `eventRecord`, where the delivery is handled: the SQLite store's thread
 * then binds the text as it comes, with no parse and no second serialisation of its own.
 */
export interface EventRecord {
  source: string;
  dedupeKey: string;
  correlationKey: string;
  event: string;
  target: string;
}

export function eventRecord({ event, target }: PreparedEvent): EventRecord {
  return { source: event.source, dedupeKey: event.dedupeKey, correlationKey: event.correlationKey, event: JSON.stringify(event), target: JSON.stringify(target) };
}

export interface Delivery {
  records: readonly EventRecord[];
  receivedAt: number;
}

/** Gathers deliveries into groups and records each group with one call of `record`. */
export interface IngestQueue {
  ingest(delivery: Delivery): Promise<IngestResult>;
  /** Deliveries waiting to be recorded or being recorded now. */
  readonly pending: number;
  /** Resolves once every queued delivery has been recorded or refused. */
  idle(): Promise<void>;
}

/**
 * `record` runs one group in one transaction; at most `concurrency` groups are in flight, and
 * what arrives meanwhile waits to form the next group. Deliveries handed over in the same turn
 * form one group even below that limit: a group starts a microtask after its first delivery. When
 * a group fails, each of its deliveries is tried again alone, so that one delivery the store
 * refuses never refuses the others with it.
 */
export function createIngestQueue(record: (group: readonly Delivery[]) => Promise<IngestResult[]>, concurrency: number): IngestQueue {
  interface Waiting {
    delivery: Delivery;
    resolve: (result: IngestResult) => void;
    reject: (error: unknown) => void;
  }
  const waiting: Waiting[] = [];
  const running = new Set<Promise<void>>();
  let recording = 0;
  /** A group is about to start: what arrives before then joins it. */
  let starting = false;

  async function settle(group: readonly Waiting[]): Promise<void> {
    recording += group.length;
    try {
      const results = await record(group.map((item) => item.delivery));
      group.forEach((item, index) => item.resolve(results[index] as IngestResult));
    } catch (error) {
      if (group.length === 1) (group[0] as Waiting).reject(error);
      else await Promise.all(group.map((item) => settle([item])));
    } finally {
      recording -= group.length;
    }
  }

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      let take = 0;
      for (let events = 0; take < waiting.length && (take === 0 || events + (waiting[take] as Waiting).delivery.records.length <= INGEST_GROUP_EVENTS); take++) {
        events += (waiting[take] as Waiting).delivery.records.length;
      }
      await settle(waiting.splice(0, take));
    }
  }

  return {
    ingest: (delivery) =>
      new Promise<IngestResult>((resolve, reject) => {
        waiting.push({ delivery, resolve, reject });
        if (starting || running.size >= concurrency) return;
        // The SQLite store's thread is handed a turn's worth of deliveries at once: starting one
        // microtask later writes them with one statement rather than one each (bench/README.md,
        // the bridge: 0.51–0.56 of the ceiling against 0.46–0.52 in alternating rounds).
        starting = true;
        const runner: Promise<void> = Promise.resolve()
          .then(() => {
            starting = false;
            return drain();
          })
          .finally(() => running.delete(runner));
        running.add(runner);
      }),
    get pending() {
      return waiting.length + recording;
    },
    idle: async () => {
      while (running.size > 0) await Promise.all(running);
    },
  };
}

/** An event waiting in bridge_events to be folded into its episode. */
interface Unfolded extends PreparedEvent {
  id: number;
  receivedAt: number;
}

/** An episode as the fold leaves it: one read from the store, or one the fold began. */
interface Working {
  correlationKey: string;
  seq: number;
  source: string;
  state: EpisodeState;
  /** Events folded in by this fold: a new episode's version, or what a stored one's grows by. */
  folded: number;
  firstAt: number;
  lastAt: number;
}

const EVENT_COLUMNS = 6;
const EPISODE_COLUMNS = 9;

/** Events folded per transaction: bounds its parameters well inside both databases' limits, and how long SQLite's one connection is held. */
export const FOLD_BATCH = 256;

/**
 * Records a group of deliveries in one statement and returns each delivery's result. This is all
 * an acknowledgement waits for: the event rows, durable, deduplicated by their unique key. Folding
 * them into episodes is `foldBatch`'s, afterwards; the row says what to fold (event, target, time)
 * and `folded = 0` that it is still to be done, so a crash between the two loses nothing.
 */
export async function recordGroup(query: Query, group: readonly Delivery[]): Promise<IngestResult[]> {
  const records = group.flatMap((delivery) => delivery.records);
  const inserted = await query(
    `INSERT INTO bridge_events (source, dedupe_key, correlation_key, event, target, received_at, folded)
     VALUES ${rowPlaceholders(records.length, EVENT_COLUMNS, { shape: (row) => `${row.join(', ')}, 0` })}
     ON CONFLICT (source, dedupe_key) DO NOTHING RETURNING source, dedupe_key`,
    group.flatMap(({ records: mine, receivedAt }) =>
      mine.flatMap((record) => [record.source, record.dedupeKey, record.correlationKey, record.event, record.target, receivedAt]),
    ),
  );
  // A key repeated within the group is inserted once, for its first occurrence: the later ones are duplicates.
  const fresh = new Set(inserted.map((row) => `${String(row.source)}\n${String(row.dedupe_key)}`));
  const accepted = records.map((record) => fresh.delete(`${record.source}\n${record.dedupeKey}`));
  let position = 0;
  return group.map((delivery) => {
    const mine = accepted.slice(position, position + delivery.records.length);
    position += delivery.records.length;
    const count = mine.filter(Boolean).length;
    return { accepted: count, duplicates: mine.length - count };
  });
}

/**
 * Folds the oldest FOLD_BATCH unfolded events into their episodes, in the order they were
 * recorded, and marks them folded, with the transaction's `query`; returns how many it took. The
 * caller makes it the only fold running (one process, or PostgreSQL's fold lock across replicas),
 * so every episode sees its events one at a time. Four statements whatever the batch's size.
 */
export async function foldBatch(query: Query): Promise<number> {
  const rows = await query(`SELECT id, event, target, received_at FROM bridge_events WHERE folded = 0 ORDER BY id LIMIT $1`, [FOLD_BATCH]);
  if (rows.length === 0) return 0;
  const events: Unfolded[] = rows.map((row) => ({
    id: Number(row.id),
    event: JSON.parse(String(row.event)) as BridgeEvent,
    target: JSON.parse(String(row.target)) as MappedTarget,
    receivedAt: Number(row.received_at),
  }));
  const keys = [...new Set(events.map(({ event }) => event.correlationKey))];
  const episodes = await recentEpisodes(query, keys);

  for (const { event, target, receivedAt } of events) {
    const list = episodes.get(event.correlationKey) ?? [];
    episodes.set(event.correlationKey, list);
    const recent = list.slice(-PLACEMENT_WINDOW);
    const place = placeEvent(
      recent.map((episode) => episode.state),
      event,
    );
    if (place === 'new') {
      list.push({
        correlationKey: event.correlationKey,
        seq: (list[list.length - 1]?.seq ?? 0) + 1,
        source: event.source,
        state: newEpisode(event, target),
        folded: 1,
        firstAt: receivedAt,
        lastAt: receivedAt,
      });
    } else {
      const episode = recent[place] as Working;
      episode.state = mergeEvent(episode.state, event, target);
      if (episode.folded === 0) episode.firstAt = receivedAt;
      episode.folded++;
      episode.lastAt = receivedAt;
    }
  }

  const touched = [...episodes.values()].flat().filter((episode) => episode.folded > 0);
  // For a stored episode the row given is not inserted: its `version` is how many events the
  // fold added, its `next_attempt_at` when the first of them came (the moment a synced or dead
  // episode became due again), and the rest of its values are those of the new state.
  await query(
    `INSERT INTO bridge_episodes (correlation_key, seq, source, state, open_since, version, synced_version, status,
       attempts, next_attempt_at, changed_at, created_at)
     VALUES ${rowPlaceholders(touched.length, EPISODE_COLUMNS, { shape: (row) => `${row.slice(0, 6).join(', ')}, 0, 'pending', 0, ${row.slice(6).join(', ')}` })}
     ON CONFLICT (correlation_key, seq) DO UPDATE SET
       state = excluded.state, open_since = excluded.open_since, version = bridge_episodes.version + excluded.version,
       changed_at = excluded.changed_at,
       attempts = CASE WHEN bridge_episodes.status = 'dead' THEN 0 ELSE bridge_episodes.attempts END,
       next_attempt_at = CASE WHEN bridge_episodes.status = 'pending' THEN bridge_episodes.next_attempt_at ELSE excluded.next_attempt_at END,
       status = 'pending'`,
    touched.flatMap((episode) => [
      episode.correlationKey,
      episode.seq,
      episode.source,
      JSON.stringify(episode.state),
      openSince(episode.state),
      episode.folded,
      episode.firstAt,
      episode.lastAt,
      episode.firstAt,
    ]),
  );
  await query(
    `UPDATE bridge_events SET folded = 1 WHERE id IN (${parameterList(events.length)})`,
    events.map((item) => item.id),
  );
  return events.length;
}

/** The newest PLACEMENT_WINDOW episodes of each key, oldest first: all that placing an event looks at. */
async function recentEpisodes(query: Query, keys: readonly string[]): Promise<Map<string, Working[]>> {
  const rows = await query(
    `SELECT correlation_key, seq, source, state FROM (
       SELECT correlation_key, seq, source, state, ROW_NUMBER() OVER (PARTITION BY correlation_key ORDER BY seq DESC) AS recency
       FROM bridge_episodes WHERE correlation_key IN (${parameterList(keys.length, 2)})
     ) AS recent WHERE recency <= $1 ORDER BY correlation_key, seq`,
    [PLACEMENT_WINDOW, ...keys],
  );
  const episodes = new Map<string, Working[]>();
  for (const row of rows) {
    const episode = toWorking(row);
    const list = episodes.get(episode.correlationKey) ?? [];
    list.push(episode);
    episodes.set(episode.correlationKey, list);
  }
  return episodes;
}

function toWorking(row: Row): Working {
  return {
    correlationKey: String(row.correlation_key),
    seq: Number(row.seq),
    source: String(row.source),
    state: JSON.parse(String(row.state)) as EpisodeState,
    folded: 0,
    firstAt: 0,
    lastAt: 0,
  };
}
