import Database from 'better-sqlite3';
import { join } from 'node:path';
import { DataDirError } from '../common/errors.js';

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
  `
  -- Recorded as the hosted service's update call sets them; the local service does not expire events by itself.
  ALTER TABLE datasets ADD COLUMN retention_days INTEGER;
  ALTER TABLE datasets ADD COLUMN use_retention_period INTEGER;
  `,
  `
  -- Saved dashboards. The document is kept as the JSON the client sent; version counts writes so
  -- that an update based on a stale read is refused. AUTOINCREMENT: a deleted id is never reused.
  CREATE TABLE dashboards (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    uid         TEXT NOT NULL UNIQUE,
    document    TEXT NOT NULL,
    version     INTEGER NOT NULL,
    created_ms  INTEGER NOT NULL,
    created_by  TEXT NOT NULL,
    updated_ms  INTEGER NOT NULL,
    updated_by  TEXT NOT NULL
  );
  `,
  // Monitors, notifiers, the state of their evaluations and the notification outbox.
  `
  CREATE TABLE notifiers (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    webhook_url       TEXT NOT NULL,
    webhook_headers   TEXT NOT NULL,
    webhook_body      TEXT NOT NULL,
    disabled_until_ms INTEGER,
    created_ms        INTEGER NOT NULL,
    created_by        TEXT NOT NULL,
    updated_ms        INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE monitors (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    type              TEXT NOT NULL,
    description       TEXT,
    apl_query         TEXT NOT NULL,
    operator          TEXT,
    threshold         REAL,
    interval_minutes  INTEGER NOT NULL,
    range_minutes     INTEGER NOT NULL,
    notify_by_group   INTEGER NOT NULL,
    alert_on_no_data  INTEGER NOT NULL,
    resolvable        INTEGER NOT NULL,
    disabled          INTEGER NOT NULL,
    disabled_until_ms INTEGER,
    created_ms        INTEGER NOT NULL,
    created_by        TEXT NOT NULL,
    updated_ms        INTEGER NOT NULL,
    -- Counts updates, so that an evaluation can tell that its monitor changed while its query ran.
    revision          INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- Deleting a notifier takes it off every monitor that used it.
  CREATE TABLE monitor_notifiers (
    monitor_id  TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    notifier_id TEXT NOT NULL REFERENCES notifiers (id) ON DELETE CASCADE,
    PRIMARY KEY (monitor_id, position)
  ) WITHOUT ROWID;
  CREATE INDEX monitor_notifiers_by_notifier ON monitor_notifiers (notifier_id);

  -- The window end of each monitor's last scheduled run, so that a restart neither repeats nor skips one.
  CREATE TABLE monitor_schedule (
    monitor_id  TEXT PRIMARY KEY REFERENCES monitors (id) ON DELETE CASCADE,
    last_end_ms INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- One row per triggering episode (a threshold monitor, or one group of it, in alert). The primary
  -- key is what keeps a monitor from opening a second annotation for an episode, restarts included.
  CREATE TABLE monitor_episodes (
    monitor_id    TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    group_values  TEXT NOT NULL,
    group_keys    TEXT NOT NULL,
    annotation_id TEXT,
    opened_ms     INTEGER NOT NULL,
    PRIMARY KEY (monitor_id, group_values)
  ) WITHOUT ROWID;

  -- Events a match monitor has already notified, so that overlapping windows notify each event once.
  CREATE TABLE monitor_matches (
    monitor_id TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    event_hash TEXT NOT NULL,
    event_ms   INTEGER NOT NULL,
    PRIMARY KEY (monitor_id, event_hash)
  ) WITHOUT ROWID;
  CREATE INDEX monitor_matches_by_time ON monitor_matches (monitor_id, event_ms);

  -- Notifications waiting to be delivered (or given up on: dead_ms set). Deleting a notifier drops
  -- its deliveries; deleting a monitor does not, so that its Closed notifications still go out.
  CREATE TABLE notification_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    notifier_id     TEXT NOT NULL REFERENCES notifiers (id) ON DELETE CASCADE,
    monitor_id      TEXT NOT NULL,
    episode_key     TEXT NOT NULL,
    notification    TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL,
    last_error      TEXT,
    created_ms      INTEGER NOT NULL,
    dead_ms         INTEGER
  );
  CREATE INDEX notification_outbox_due ON notification_outbox (next_attempt_ms) WHERE dead_ms IS NULL;
  CREATE INDEX notification_outbox_episode ON notification_outbox (notifier_id, episode_key, id) WHERE dead_ms IS NULL;
  CREATE INDEX notification_outbox_dead ON notification_outbox (dead_ms) WHERE dead_ms IS NOT NULL;
  `,
  // The official clients' other resources: the members of a dataset the clients create it with,
  // API tokens, virtual fields and the query history.
  `
  ALTER TABLE datasets ADD COLUMN kind TEXT;
  ALTER TABLE datasets ADD COLUMN region TEXT;
  ALTER TABLE datasets ADD COLUMN edge_deployment TEXT;
  ALTER TABLE datasets ADD COLUMN updated_ms INTEGER;

  -- When this data dir was first used by a version that records it: the organization's creation time.
  CREATE TABLE service_meta (created_ms INTEGER NOT NULL);
  INSERT INTO service_meta (created_ms) VALUES (CAST(strftime('%s', 'now') AS INTEGER) * 1000);

  -- A token's value is never stored: only its SHA-256 digest, which authentication compares.
  CREATE TABLE api_tokens (
    id                   TEXT PRIMARY KEY,
    name                 TEXT NOT NULL,
    description          TEXT NOT NULL,
    digest               BLOB NOT NULL UNIQUE,
    expires_ms           INTEGER,
    dataset_capabilities TEXT NOT NULL,
    org_capabilities     TEXT NOT NULL,
    created_ms           INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- A dataset's virtual fields go with it.
  CREATE TABLE virtual_fields (
    id          TEXT PRIMARY KEY,
    dataset     TEXT NOT NULL REFERENCES datasets (name) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    expression  TEXT NOT NULL,
    description TEXT NOT NULL,
    type        TEXT NOT NULL,
    unit        TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    UNIQUE (dataset, name)
  ) WITHOUT ROWID;

  -- Queries sent with saveAsKind, newest kept (see query/history.ts for how many).
  CREATE TABLE query_history (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    dataset    TEXT NOT NULL,
    query      TEXT NOT NULL,
    who        TEXT NOT NULL,
    created_ms INTEGER NOT NULL
  );
  `,
  `
  -- The dataset's map fields, a JSON array of field names in the order they were declared; null for none.
  ALTER TABLE datasets ADD COLUMN map_fields TEXT;
  `,
];

/**
 * Opens (creating if needed) the service's SQLite file in `dataDir`, a directory that
 * prepareDataDir has checked.
 *
 * WAL with synchronous=NORMAL makes every committed transaction survive a crash of the process
 * (`kill -9`): the WAL frames are written before the commit returns. Only a power loss or kernel
 * crash can drop the newest commits; `synchronous: 'full'` closes that gap at the cost of one
 * fsync per write.
 */
export function openServiceDatabase(dataDir: string, options: { synchronous?: 'normal' | 'full' } = {}): ServiceDatabase {
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
    throw new DataDirError(
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

/** When the data dir was first used (see the service_meta migration). */
export function serviceCreatedMs(db: ServiceDatabase): number {
  return db.prepare<[], number>('SELECT created_ms FROM service_meta').pluck().get() ?? 0;
}

/**
 * Throws unless the store can take a write now: it is open, and the write lock (in WAL mode, the
 * shared-memory index next to the file) can be taken. Used by /readyz.
 */
export function checkWritable(db: ServiceDatabase): void {
  if (!db.open) throw new Error('the SQLite store is closed');
  db.transaction(() => undefined).immediate();
}
