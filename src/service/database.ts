import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export type ServiceDatabase = Database.Database;

/**
 * Each entry upgrades the schema by one version; `PRAGMA user_version` records how many ran.
 * Entries are never edited once released, only appended.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE annotations (
    id          TEXT PRIMARY KEY,
    type        TEXT NOT NULL,
    time_ms     INTEGER NOT NULL,
    end_ms      INTEGER,
    title       TEXT,
    description TEXT,
    url         TEXT,
    datasets    TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX annotations_by_time ON annotations (time_ms, id);

  -- One row per (annotation, dataset) so that the dataset filter is an index range scan.
  CREATE TABLE annotation_datasets (
    dataset       TEXT NOT NULL,
    time_ms       INTEGER NOT NULL,
    annotation_id TEXT NOT NULL REFERENCES annotations (id) ON DELETE CASCADE,
    PRIMARY KEY (dataset, time_ms, annotation_id)
  ) WITHOUT ROWID;
  CREATE INDEX annotation_datasets_by_annotation ON annotation_datasets (annotation_id);

  CREATE TABLE datasets (
    name        TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    who         TEXT NOT NULL,
    created_ms  INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
];

/**
 * Opens (creating if needed) the service's SQLite file in `dataDir`.
 *
 * WAL with synchronous=NORMAL makes every committed transaction survive a crash of the process
 * (`kill -9`): the WAL frames are written before the commit returns. Only a power loss or kernel
 * crash can drop the newest commits; `synchronous: 'full'` closes that gap at the cost of one
 * fsync per write.
 */
export function openServiceDatabase(dataDir: string, options: { synchronous?: 'normal' | 'full' } = {}): ServiceDatabase {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'timemark.db'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

function migrate(db: ServiceDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `The data dir was written by a newer Timemark (schema version ${current}; this one knows ${MIGRATIONS.length}). Upgrade Timemark or use another --data-dir.`,
    );
  }
  const upgrade = db.transaction(() => {
    for (let version = current; version < MIGRATIONS.length; version++) {
      db.exec(MIGRATIONS[version] ?? '');
    }
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  });
  upgrade();
}
