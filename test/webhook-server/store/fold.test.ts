import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { BridgeEvent } from '../../../webhook-server/src/sources/types.js';
import { FOLD_BATCH } from '../../../webhook-server/src/store/ingest-group.js';
import { openPostgresStore } from '../../../webhook-server/src/store/postgres.js';
import { schemaStatements } from '../../../webhook-server/src/store/sql-store.js';
import { openSqliteStore, SQLITE_FILE_NAME } from '../../../webhook-server/src/store/sqlite.js';
import type { BridgeStore, PreparedEvent } from '../../../webhook-server/src/store/types.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../helpers/postgres.js';

/**
 * The fold as a step of its own (ingest-group.ts): acknowledged events wait in bridge_events
 * until a reader or the outbox folds them, in the order they were recorded, batch after batch.
 */
const T0 = Date.parse('2024-06-28T14:55:57Z');
const NOW = Date.parse('2024-06-28T16:00:00Z');

function event(phase: 'start' | 'finish', key: string, occurredAt: number): PreparedEvent {
  const body: BridgeEvent = {
    source: 'github',
    dedupeKey: `${key}:${phase}`,
    correlationKey: key,
    phase,
    occurredAt,
    category: 'deploy',
    title: 'Deploy',
    context: { environment: 'production' },
    ...(phase === 'finish' ? { outcome: 'failure' as const } : {}),
  };
  return { event: body, target: { datasets: ['prod'], type: 'deploy', title: `Deploy ${key}` } };
}

/** The rows an earlier version of the bridge left: an event folded when it was recorded, and its episode. */
const LEGACY_EVENT = ['github', 'legacy:start', 'legacy', JSON.stringify(event('start', 'legacy', T0).event), NOW] as const;
const LEGACY_EPISODE_STATE = JSON.stringify({ startedAt: T0, category: 'deploy', datasets: { value: ['prod'], at: T0 }, type: { value: 'deploy', at: T0 }, title: { value: 'Deploy legacy', at: T0 } });
const LEGACY_EPISODE = ['legacy', 1, 'github', LEGACY_EPISODE_STATE, T0, 1, 0, 'pending', 0, NOW, NOW, NOW] as const;
const INSERT_LEGACY_EVENT = 'INSERT INTO bridge_events (source, dedupe_key, correlation_key, event, received_at) VALUES ($1, $2, $3, $4, $5)';
const INSERT_LEGACY_EPISODE = `INSERT INTO bridge_episodes (correlation_key, seq, source, state, open_since, version, synced_version, status, attempts,
  next_attempt_at, changed_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;

interface Kind {
  /** A store over tables as an earlier version left them (the legacy rows above), or none. */
  open(legacy: boolean): Promise<BridgeStore>;
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const kinds: Record<'sqlite' | 'postgres', () => Kind> = {
  sqlite: () => ({
    open: async (legacy) => {
      const dir = mkdtempSync(join(tmpdir(), 'timemark-fold-'));
      cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
      if (legacy) {
        const db = new Database(join(dir, SQLITE_FILE_NAME));
        for (const statement of schemaStatements('INTEGER PRIMARY KEY AUTOINCREMENT')) db.exec(statement);
        const numbered = (sql: string) => sql.replace(/\$\d+/g, '?');
        db.prepare(numbered(INSERT_LEGACY_EVENT)).run(...LEGACY_EVENT);
        db.prepare(numbered(INSERT_LEGACY_EPISODE)).run(...LEGACY_EPISODE);
        db.close();
      }
      const store = openSqliteStore(dir);
      cleanup.push(() => store.close());
      return store;
    },
  }),
  postgres: () => ({
    open: async (legacy) => {
      const schema = uniqueSchema();
      cleanup.push(() => dropSchema(schema));
      if (legacy) {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        try {
          await client.query(`CREATE SCHEMA "${schema}"`);
          await client.query(`SET search_path TO "${schema}"`);
          for (const statement of schemaStatements('BIGSERIAL PRIMARY KEY')) await client.query(statement);
          await client.query(INSERT_LEGACY_EVENT, [...LEGACY_EVENT]);
          await client.query(INSERT_LEGACY_EPISODE, [...LEGACY_EPISODE]);
        } finally {
          await client.end();
        }
      }
      const store = await openPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
      cleanup.push(() => store.close());
      return store;
    },
  }),
};

describe.each(['sqlite', 'postgres'] as const)('the fold on %s', (name) => {
  const kind = kinds[name]();

  it('folds more events than one batch holds in the order they were recorded, a finish batches after its start', async () => {
    const store = await kind.open(false);
    const keys = Array.from({ length: FOLD_BATCH + 40 }, (_, index) => `fold:${name}:${index}`);
    // Every start first, then every finish: the finish of key 0 lands in a later batch than its start.
    for (const key of keys) await store.ingest([event('start', key, T0)], NOW);
    for (const key of keys) await store.ingest([event('finish', key, T0 + 60_000)], NOW + 1);
    for (const key of [keys[0], keys[FOLD_BATCH], keys[keys.length - 1]] as string[]) {
      const episodes = await store.episodes(key);
      expect(episodes).toHaveLength(1);
      expect(episodes[0]).toMatchObject({ seq: 1, version: 2, status: 'pending', state: { startedAt: T0, endedAt: T0 + 60_000, outcome: 'failure' } });
    }
    expect((await store.counts()).pending).toBe(keys.length);
  });

  it('keeps what an earlier version recorded as folded, and takes new events beside it', async () => {
    const store = await kind.open(true);
    // The legacy event is not folded a second time: its episode stays at version 1.
    expect(await store.episodes('legacy')).toMatchObject([{ seq: 1, version: 1, state: { startedAt: T0 } }]);
    // Its dedupe key still holds, and a new event folds into the same episode.
    expect(await store.ingest([event('start', 'legacy', T0)], NOW)).toEqual({ accepted: 0, duplicates: 1 });
    expect(await store.ingest([event('finish', 'legacy', T0 + 60_000)], NOW)).toEqual({ accepted: 1, duplicates: 0 });
    expect(await store.episodes('legacy')).toMatchObject([{ seq: 1, version: 2, state: { startedAt: T0, endedAt: T0 + 60_000 } }]);
  });
});
