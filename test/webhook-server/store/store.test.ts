import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MappedTarget } from '../../../webhook-server/src/mapping/mapping.js';
import type { BridgeEvent } from '../../../webhook-server/src/sources/types.js';
import { openPostgresStore } from '../../../webhook-server/src/store/postgres.js';
import { openSqliteStore } from '../../../webhook-server/src/store/sqlite.js';
import type { BridgeStore, PreparedEvent } from '../../../webhook-server/src/store/types.js';
import { eventually } from '../helpers/bridge.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../helpers/postgres.js';

const T0 = Date.parse('2024-06-28T14:55:57Z');
const NOW = Date.parse('2024-06-28T16:00:00Z');
const target: MappedTarget = { datasets: ['prod'], type: 'deploy', title: 'Deploy' };

let counter = 0;
function prepared(phase: 'start' | 'finish', occurredAt: number, key: string, dedupeKey = `d-${++counter}`): PreparedEvent {
  const event: BridgeEvent = {
    source: 'github',
    dedupeKey,
    correlationKey: key,
    phase,
    occurredAt,
    category: 'deploy',
    title: 'Deploy',
    context: {},
    ...(phase === 'finish' ? { outcome: 'success' as const } : {}),
  };
  return { event, target };
}

interface Harness {
  /** A second store on the same database: another replica. */
  open(): Promise<BridgeStore>;
  cleanup(): Promise<void>;
}

const harnesses: Record<'sqlite' | 'postgres', () => Harness> = {
  sqlite: () => {
    // One process owns a SQLite file, so "another replica" is another user of the same handle.
    const dir = mkdtempSync(join(tmpdir(), 'timemark-store-'));
    let shared: BridgeStore | undefined;
    return {
      open: async () => {
        if (!shared) {
          shared = openSqliteStore(dir);
          return shared;
        }
        return { ...shared, close: async () => undefined };
      },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  postgres: () => {
    const schema = uniqueSchema();
    return { open: () => openPostgresStore({ connectionString: TEST_DATABASE_URL, schema }), cleanup: () => dropSchema(schema) };
  },
};

describe.each(['sqlite', 'postgres'] as const)('the %s store', (kind) => {
  let harness: Harness;
  let store: BridgeStore;
  let key = '';
  const nextKey = (): string => (key = `github:acme/shop:deployment:${kind}-${++counter}`);

  beforeAll(async () => {
    harness = harnesses[kind]();
    store = await harness.open();
  });
  afterAll(async () => {
    await store.close();
    await harness.cleanup();
  });

  it('records an event once and reports redeliveries as duplicates', async () => {
    nextKey();
    const start = prepared('start', T0, key, `dup-${key}`);
    expect(await store.ingest([start], NOW)).toEqual({ accepted: 1, duplicates: 0 });
    expect(await store.ingest([start], NOW)).toEqual({ accepted: 0, duplicates: 1 });
    const [episode] = await store.episodes(key);
    expect(episode).toMatchObject({ version: 1, status: 'pending', seq: 1 });
  });

  it('folds the start and the finish of one rollout into one episode, in either order', async () => {
    nextKey();
    await store.ingest([prepared('finish', T0 + 60_000, key)], NOW);
    await store.ingest([prepared('start', T0, key)], NOW);
    const episodes = await store.episodes(key);
    expect(episodes).toHaveLength(1);
    expect(episodes[0]).toMatchObject({ version: 2, state: { startedAt: T0, endedAt: T0 + 60_000, outcome: 'success' } });
  });

  it('takes any text as a key, quotes and backslashes included', async () => {
    const odd = `monitor:m1:["it's", "a\\b"]; DROP TABLE bridge_events; --`;
    expect(await store.ingest([prepared('start', T0, odd), prepared('finish', T0 + 1_000, odd)], NOW)).toEqual({ accepted: 2, duplicates: 0 });
    expect(await store.episodes(odd)).toHaveLength(1);
  });

  it('opens a second episode when a recurring key starts after its last episode ended', async () => {
    nextKey();
    await store.ingest([prepared('start', T0, key), prepared('finish', T0 + 1_000, key), prepared('start', T0 + 5_000, key)], NOW);
    expect((await store.episodes(key)).map((episode) => episode.seq)).toEqual([1, 2]);
  });

  it('gives a due episode to one worker at a time, in every replica, until its holder settles it', async () => {
    const other = await harness.open();
    try {
      await drain(store);
      nextKey();
      await store.ingest([prepared('start', T0, key)], NOW);
      const [first, second] = await Promise.all([claimOne(store, 'a', NOW), claimOne(other, 'b', NOW)]);
      const winners = [first, second].filter((episode) => episode !== undefined);
      expect(winners).toHaveLength(1);
      const winner = winners[0]!;
      const [holder, owner, waiting] = first ? [store, 'a', other] : [other, 'b', store];
      // Held however long the apply takes: nothing expires on a clock.
      expect(await claimOne(waiting, 'c', NOW + 3_600_000)).toBeUndefined();
      await holder.fail(winner.id, owner, { error: 'service down', nextAttemptAt: NOW, dead: false });
      expect((await claimOne(waiting, 'c', NOW))?.id).toBe(winner.id);
    } finally {
      await other.close();
    }
  });

  it('claims a batch of due episodes, none of them twice across replicas, and completes them in one call', async () => {
    const other = await harness.open();
    try {
      await drain(store);
      const keys = Array.from({ length: 10 }, () => nextKey());
      await store.ingest(
        keys.map((item) => prepared('start', T0, item)),
        NOW,
      );
      const [mine, theirs] = await Promise.all([store.claimBatch('a', NOW, 6), other.claimBatch('b', NOW, 6)]);
      const ids = [...mine, ...theirs].map((episode) => episode.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(mine.length).toBeLessThanOrEqual(6);
      expect(theirs.length).toBeLessThanOrEqual(6);
      // Whatever the first two batches left is for the next claim; nothing is held twice.
      const rest = await store.claimBatch('c', NOW, 20);
      expect([...ids, ...rest.map((episode) => episode.id)].sort()).toEqual(
        (await Promise.all(keys.map(async (item) => (await store.episodes(item))[0]!.id))).sort(),
      );
      expect(await other.claimBatch('d', NOW, 20)).toEqual([]);

      await store.completeBatch(
        'a',
        NOW,
        mine.map((episode) => ({ id: episode.id, annotationId: `ann_${episode.id}`, appliedVersion: episode.version })),
      );
      // Another owner's completion is refused while the claim it lost is recorded.
      await store.completeBatch('not-b', NOW, theirs.map((episode) => ({ id: episode.id, annotationId: 'ann_stale', appliedVersion: episode.version })));
      await other.completeBatch(
        'b',
        NOW,
        theirs.map((episode) => ({ id: episode.id, annotationId: `ann_${episode.id}`, appliedVersion: episode.version })),
      );
      await store.completeBatch(
        'c',
        NOW,
        rest.map((episode) => ({ id: episode.id, annotationId: `ann_${episode.id}`, appliedVersion: episode.version })),
      );
      for (const item of keys) {
        const [episode] = await store.episodes(item);
        expect(episode).toMatchObject({ status: 'synced', annotationId: `ann_${episode!.id}`, syncedVersion: 1 });
      }
      expect(await store.claimBatch('e', NOW, 20)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('writes the create trail of a batch in one call', async () => {
    const keys = [nextKey(), nextKey()];
    await store.ingest(
      keys.map((item) => prepared('start', T0, item)),
      NOW,
    );
    const [a, b] = await Promise.all(keys.map(async (item) => (await store.episodes(item))[0]!.id));
    await store.noteCreateAttempts([
      { id: a!, time: T0 },
      { id: b!, time: T0 + 1_000 },
      { id: a!, time: T0 - 2_000 },
    ]);
    await store.noteCreateAttempts([{ id: a!, time: T0 + 500 }]);
    expect((await store.episodes(keys[0]!))[0]).toMatchObject({ probeFrom: T0 - 2_000, probeTo: T0 + 500 });
    expect((await store.episodes(keys[1]!))[0]).toMatchObject({ probeFrom: T0 + 1_000, probeTo: T0 + 1_000 });
  });

  it('marks an episode synced only when no event changed it during the apply', async () => {
    nextKey();
    await store.ingest([prepared('start', T0, key)], NOW);
    const episode = (await store.episodes(key))[0]!;
    const claimed = await claimEpisode(store, episode.id);
    await store.ingest([prepared('finish', T0 + 60_000, key)], NOW);
    await completeOne(store, claimed.id, 'w', 'ann_1', claimed.version, NOW);
    expect((await store.episodes(key))[0]).toMatchObject({ status: 'pending', annotationId: 'ann_1', syncedVersion: 1, version: 2 });
    const again = await claimEpisode(store, episode.id);
    await completeOne(store, again.id, 'w', 'ann_1', again.version, NOW);
    expect((await store.episodes(key))[0]).toMatchObject({ status: 'synced', syncedVersion: 2 });
  });

  it('backs off after a failure, dead-letters for good, and queues a dead letter again on request', async () => {
    nextKey();
    await store.ingest([prepared('start', T0, key)], NOW);
    const id = (await store.episodes(key))[0]!.id;
    await claimEpisode(store, id);
    await store.fail(id, 'w', { error: 'service down', nextAttemptAt: NOW + 10_000, dead: false });
    expect((await store.episodes(key))[0]).toMatchObject({ status: 'pending', attempts: 1, lastError: 'service down', nextAttemptAt: NOW + 10_000 });
    await claimEpisode(store, id, NOW + 10_000);
    await store.fail(id, 'w', { error: 'bad request', nextAttemptAt: NOW, dead: true });
    expect((await store.deadLetters(100)).map((episode) => episode.id)).toContain(id);
    expect((await store.counts()).dead).toBeGreaterThanOrEqual(1);
    expect(await store.retryDeadLetter(id, NOW)).toBe(true);
    expect(await store.retryDeadLetter(id, NOW)).toBe(false);
    expect((await store.episodes(key))[0]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('closes spans left open longer than the maximum open time', async () => {
    nextKey();
    await store.ingest([prepared('start', T0, key)], NOW);
    await store.closeOverdue(T0 + 7_200_000, 3_600_000);
    expect((await store.episodes(key))[0]).toMatchObject({ state: { endedAt: T0 + 3_600_000, outcome: 'timed-out', autoClosed: true } });
  });

  it('keeps the trail of creates whose outcome is unknown', async () => {
    nextKey();
    await store.ingest([prepared('start', T0, key)], NOW);
    const id = (await store.episodes(key))[0]!.id;
    await store.noteCreateAttempts([{ id: id, time: T0 }]);
    await store.noteCreateAttempts([{ id: id, time: T0 - 5_000 }]);
    expect((await store.episodes(key))[0]).toMatchObject({ probeFrom: T0 - 5_000, probeTo: T0 });
  });

  it('forgets dedupe keys and synced episodes older than the retention, and keeps unfinished work', async () => {
    nextKey();
    const syncedKey = key;
    const old = prepared('start', T0, syncedKey, `old-${syncedKey}`);
    const then = NOW - 40 * 86_400_000;
    await store.ingest([old], then);
    const synced = (await store.episodes(syncedKey))[0]!;
    await claimEpisode(store, synced.id, then);
    await completeOne(store, synced.id, 'w', 'ann_old', synced.version, then);
    nextKey();
    const pendingKey = key;
    await store.ingest([prepared('start', T0, pendingKey)], then);
    const purged = await store.purge(NOW - 35 * 86_400_000);
    expect(purged.events).toBeGreaterThanOrEqual(2);
    expect(purged.episodes).toBeGreaterThanOrEqual(1);
    expect(await store.episodes(syncedKey)).toEqual([]);
    expect(await store.episodes(pendingKey)).toHaveLength(1);
    expect(await store.ingest([old], NOW)).toEqual({ accepted: 1, duplicates: 0 });
  });

  it('records deliveries that arrive together as if each had its own transaction, one after another', async () => {
    const keys = (suffix: string) => ['synced', 'dead', 'recurring', 'fresh'].map((name) => `github:acme/shop:deployment:${kind}-group-${name}-${suffix}`);
    // The same history under two sets of keys: recorded one delivery at a time, then all at once.
    const prepare = async (suffix: string): Promise<PreparedEvent[][]> => {
      const [synced, dead, recurring, fresh] = keys(suffix) as [string, string, string, string];
      await drain(store);
      await store.ingest([prepared('start', T0, synced)], NOW);
      const [syncedEpisode] = await store.episodes(synced);
      await claimEpisode(store, syncedEpisode!.id);
      await completeOne(store, syncedEpisode!.id, 'w', 'ann_synced', 1, NOW);
      await store.ingest([prepared('start', T0, dead)], NOW);
      const [deadEpisode] = await store.episodes(dead);
      await claimEpisode(store, deadEpisode!.id);
      await store.fail(deadEpisode!.id, 'w', { error: 'bad request', nextAttemptAt: NOW, dead: true });
      const twice = prepared('start', T0, fresh, `twice-${suffix}`);
      return [
        [prepared('finish', T0 + 60_000, synced)],
        [prepared('finish', T0 + 60_000, dead)],
        [prepared('start', T0, recurring), prepared('finish', T0 + 1_000, recurring)],
        [twice],
        [prepared('start', T0 + 5_000, recurring)],
        [twice, prepared('finish', T0 + 9_000, fresh)],
        [prepared('finish', T0 + 6_000, recurring)],
      ];
    };
    const shape = async (suffix: string) =>
      Promise.all(
        keys(suffix).map(async (key) =>
          (await store.episodes(key)).map(({ seq, state, version, syncedVersion, status, attempts, nextAttemptAt, changedAt, createdAt, annotationId }) => ({
            seq, state, version, syncedVersion, status, attempts, nextAttemptAt, changedAt, createdAt, annotationId,
          })),
        ),
      );
    const oneByOne = await prepare('a');
    const alone = [];
    for (const [index, delivery] of oneByOne.entries()) alone.push(await store.ingest(delivery, NOW + index));
    const expected = await shape('a');
    const together = await prepare('b');
    const grouped = await Promise.all(together.map((delivery, index) => store.ingest(delivery, NOW + index)));
    expect(grouped).toEqual(alone);
    expect(grouped[5]).toEqual({ accepted: 1, duplicates: 1 });
    expect(await shape('b')).toEqual(expected);
    expect(expected[2]!.map((episode) => episode.seq)).toEqual([1, 2]);
    expect(expected.map((episodes) => episodes[0]!.status)).toEqual(['pending', 'pending', 'pending', 'pending']);
  });

  it('refuses only the delivery the store cannot take when others arrive with it', async () => {
    nextKey();
    const broken = prepared('start', T0, `${key}-broken`);
    // A value JSON cannot hold: recording it throws, whatever else is in its transaction.
    (broken.event.context as Record<string, unknown>).size = 1n;
    const outcomes = await Promise.allSettled([store.ingest([prepared('start', T0, key)], NOW), store.ingest([broken], NOW), store.ingest([prepared('finish', T0 + 1_000, key)], NOW)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await store.episodes(key)).toHaveLength(1);
    expect(await store.episodes(`${key}-broken`)).toEqual([]);
  });

  it('accepts each event exactly once when replicas record the same deliveries at the same time', async () => {
    const replicas = [store, await harness.open(), await harness.open()];
    try {
      nextKey();
      const events = [prepared('start', T0, key), prepared('finish', T0 + 60_000, key)];
      const results = await Promise.all(replicas.flatMap((replica) => [replica.ingest([events[0]!], NOW), replica.ingest([events[1]!], NOW), replica.ingest(events, NOW)]));
      expect(results.reduce((sum, result) => sum + result.accepted, 0)).toBe(2);
      const episodes = await store.episodes(key);
      expect(episodes).toHaveLength(1);
      expect(episodes[0]).toMatchObject({ version: 2, state: { startedAt: T0, endedAt: T0 + 60_000 } });
    } finally {
      await Promise.all(replicas.slice(1).map((replica) => replica.close()));
    }
  });
});

describe('claims on PostgreSQL', () => {
  const schema = uniqueSchema();
  let replicaA: BridgeStore;
  let replicaB: BridgeStore;
  let admin: pg.Client;

  beforeAll(async () => {
    replicaA = await openPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    replicaB = await openPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await replicaA?.close();
    await replicaB?.close();
    await admin?.end();
    await dropSchema(schema);
  });

  /** The backend that holds the claim on an episode, found through pg_locks like an operator would. */
  async function holderPid(id: number): Promise<number | undefined> {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
         AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1 || ':episode:' || $2, 0)`,
      [schema, String(id)],
    );
    return rows[0]?.pid;
  }

  it('frees the episodes of a replica whose database session ends, at once, and fences its late result', async () => {
    const key = `github:acme/shop:deployment:claims-${++counter}`;
    await replicaA.ingest([prepared('start', T0, key)], NOW);
    const claimed = (await claimOne(replicaA, 'replica-a', NOW))!;
    expect(claimed.correlationKey).toBe(key);
    expect(await claimOne(replicaB, 'replica-b', NOW)).toBeUndefined();

    // What kill -9 of replica A does to its claims: the server ends its session.
    const pid = await holderPid(claimed.id);
    expect(pid).toBeDefined();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const taken = await eventually(async () => claimOne(replicaB, 'replica-b', NOW), 'replica B to take the episode over');
    expect(taken.id).toBe(claimed.id);

    // A's apply finishing late must not overwrite what B now owns.
    await completeOne(replicaA, claimed.id, 'replica-a', 'ann_from_a', claimed.version, NOW);
    expect((await replicaB.episodes(key))[0]).toMatchObject({ status: 'pending', annotationId: null });
    await completeOne(replicaB, taken.id, 'replica-b', 'ann_from_b', taken.version, NOW);
    expect((await replicaB.episodes(key))[0]).toMatchObject({ status: 'synced', annotationId: 'ann_from_b' });

    // Replica A claims again on a fresh session.
    await replicaA.ingest([prepared('finish', T0 + 60_000, key)], NOW);
    expect((await claimOne(replicaA, 'replica-a', NOW))?.id).toBe(claimed.id);
    await completeOne(replicaA, claimed.id, 'replica-a', 'ann_from_b', claimed.version + 1, NOW);
  });

  it('keeps a claim for as long as its holder lives, however long the apply takes', async () => {
    const key = `github:acme/shop:deployment:claims-${++counter}`;
    await replicaA.ingest([prepared('start', T0, key)], NOW);
    const claimed = (await claimOne(replicaA, 'replica-a', NOW))!;
    expect(await claimOne(replicaB, 'replica-b', NOW + 86_400_000)).toBeUndefined();
    await replicaA.close();
    expect((await claimOne(replicaB, 'replica-b', NOW))?.id).toBe(claimed.id);
  });
});

/** Applies every due episode, so that a test's own episode is the only one due. */
async function drain(store: BridgeStore, now = NOW): Promise<void> {
  for (;;) {
    const episode = await claimOne(store, 'drain', now);
    if (!episode) return;
    await completeOne(store, episode.id, 'drain', `ann_${episode.id}`, episode.version, now);
  }
}

/** Claims until the wanted episode comes up (others may be due too), completing the rest out of the way. */
async function claimEpisode(store: BridgeStore, id: number, now = NOW) {
  for (;;) {
    const episode = await claimOne(store, 'w', now);
    if (!episode) throw new Error(`episode ${id} was not due`);
    if (episode.id === id) return episode;
    await completeOne(store, episode.id, 'w', `ann_${episode.id}`, episode.version, now);
  }
}

/** One episode claimed, as a worker with a batch of one would. */
async function claimOne(store: BridgeStore, owner: string, now: number) {
  return (await store.claimBatch(owner, now, 1))[0];
}

function completeOne(store: BridgeStore, id: number, owner: string, annotationId: string, appliedVersion: number, now: number) {
  return store.completeBatch(owner, now, [{ id, annotationId, appliedVersion }]);
}
