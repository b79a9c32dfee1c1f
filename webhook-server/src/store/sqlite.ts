import { closeSync, fsync, fsyncSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DataDirError } from '../../../src/common/errors.js';
import { createProcessClaims, createSqlStore, schemaStatements, upgradeStatements, type Query, type Row, type SqlBridgeStore, type SqlDriver } from './sql-store.js';

export const SQLITE_FILE_NAME = 'bridge.sqlite';

/** Flushes a file to the disk; settles once it is there. */
export type FileSync = (fd: number) => Promise<void>;

/** On libuv's thread pool (fs.fsync): for a store on a thread that has other work, such as serving HTTP. */
export const syncOnPool: FileSync = (fd) => new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));

/**
 * On the calling thread (fs.fsyncSync): for a store on a thread of its own (sqlite-worker.ts).
 * The store waits for each flush before its next transaction anyway, so handing the flush to the
 * pool would only add two hand-offs between threads per transaction, on cores that the HTTP
 * thread, the store's thread and the pool share.
 */
export const syncInPlace: FileSync = (fd) => {
  try {
    fsyncSync(fd);
    return Promise.resolve();
  } catch (error) {
    return Promise.reject(error as Error);
  }
};

/**
 * The embedded store: one SQLite file in the data dir, in WAL mode. Nothing a transaction did is
 * told to anyone — not the sender's 2xx, not a read's rows — before the WAL holding it is on disk,
 * so an acknowledged delivery survives kill -9 and a power cut alike.
 * One process owns the file; replicas need PostgreSQL. `dataDir` is a directory that
 * prepareDataDir has checked. `sync` flushes the WAL: syncOnPool, syncInPlace, or a test's that
 * holds a flush back.
 */
export function openSqliteStore(dataDir: string, sync: FileSync = syncOnPool): SqlBridgeStore {
  const lockFile = claimDataDir(dataDir);
  const file = join(dataDir, SQLITE_FILE_NAME);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // SQLite's own flush at each commit (synchronous=FULL) would block whatever else the thread
  // does for the length of an fsync; with NORMAL a commit only writes the WAL, and the store
  // flushes the WAL itself with `sync` (on libuv's thread pool unless the store has a thread of
  // its own) before settling what the commit did (see settleAfterSync). Checkpoints still flush
  // as SQLite does, and the WAL is one inode for as long as it is open.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  for (const statement of schemaStatements('INTEGER PRIMARY KEY AUTOINCREMENT')) db.exec(statement);
  const hasColumn = (table: string, column: string): boolean =>
    (db.prepare('SELECT 1 FROM pragma_table_info(?) WHERE name = ?').all(table, column) as unknown[]).length > 0;
  // SQLite has no ADD COLUMN IF NOT EXISTS.
  const upgrades = upgradeStatements((table, column, definition) => (hasColumn(table, column) ? [] : [`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`]));
  for (const statement of upgrades) db.exec(statement);
  const walFd = openSync(`${file}-wal`, 'r');
  // The WAL file's own name must outlive a power cut too.
  const dirFd = openSync(dataDir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }

  /** Whether the transaction being built wrote anything: only then must its commit be flushed. */
  let wrote = false;
  const statements = new Map<string, { statement: Database.Statement; order: number[] }>();
  const query: Query = (sql, params = []) => {
    let prepared = statements.get(sql);
    if (!prepared) {
      const order: number[] = [];
      const text = sql.replace(/\$(\d+)/g, (_whole, index: string) => {
        order.push(Number(index) - 1);
        return '?';
      });
      prepared = { statement: db.prepare(text), order };
      statements.set(sql, prepared);
    }
    const values = prepared.order.map((index) => params[index]);
    // A write (an UPDATE … RETURNING too): what commits with it must reach the disk before anyone hears of it.
    if (!prepared.statement.readonly) wrote = true;
    const rows = prepared.statement.reader ? (prepared.statement.all(...values) as Row[]) : (prepared.statement.run(...values), []);
    return Promise.resolve(rows);
  };

  // The flush: a commit that wrote takes the next generation; what it did is settled once a flush
  // that began after it has finished. A read-only transaction may have seen any commit before it,
  // so it waits for the generation committed last. One flush at a time, covering every commit
  // made before it began: under load, one fsync settles many transactions.
  let committed = 0;
  let synced = 0;
  let flushing: Promise<void> | undefined;
  const afterSync: Array<{ generation: number; settle: (error?: unknown) => void }> = [];

  function settleAfterSync(generation: number, settle: (error?: unknown) => void): void {
    if (generation <= synced) return settle();
    afterSync.push({ generation, settle });
    flushing ??= flush();
  }

  async function flush(): Promise<void> {
    while (afterSync.length > 0) {
      const target = committed;
      let failure: unknown;
      try {
        await sync(walFd);
        synced = target;
      } catch (error) {
        // Not known to be on disk: those waiting hear an error (a sender retries, harmlessly).
        failure = error;
      }
      for (let index = afterSync.length - 1; index >= 0; index--) {
        const waiter = afterSync[index] as (typeof afterSync)[number];
        if (failure === undefined && waiter.generation > target) continue;
        afterSync.splice(index, 1);
        waiter.settle(failure);
      }
    }
    flushing = undefined;
  }

  // One connection, so transactions must not interleave across awaits: they queue. Whatever
  // queued while a commit was being made goes into the next transaction together (group commit),
  // each unit in its own savepoint: one flush covers many acknowledgements, and a unit that fails
  // rolls back alone.
  interface Unit {
    work: (q: Query) => Promise<unknown>;
    /**
     * One statement: SQLite undoes a statement that fails by itself, leaving the transaction as it
     * was, so it needs no savepoint of its own (an acknowledgement is one).
     */
    single: boolean;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  }
  // Prepared once: `exec` would parse these again for every transaction and every unit.
  const control = {
    begin: db.prepare('BEGIN IMMEDIATE'),
    savepoint: db.prepare('SAVEPOINT unit'),
    release: db.prepare('RELEASE unit'),
    rollbackTo: db.prepare('ROLLBACK TO unit'),
    commit: db.prepare('COMMIT'),
  };
  let queued: Unit[] = [];
  const settleWith = (unit: Unit, value: unknown) => () => unit.resolve(value);
  function enqueue<T>(work: (q: Query) => Promise<T>, single: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queued.push({ work, single, resolve: resolve as (value: unknown) => void, reject });
      draining ??= Promise.resolve().then(drain);
    });
  }
  let draining: Promise<void> | undefined;

  async function drain(): Promise<void> {
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      const outcomes: Array<() => void> = [];
      try {
        if (!db.open) throw new Error('the SQLite store is closed');
        control.begin.run();
        wrote = false;
        for (const unit of batch) {
          if (unit.single) {
            try {
              outcomes.push(settleWith(unit, await unit.work(query)));
            } catch (error) {
              // An error that ended the whole transaction (a full disk, say) fails the whole batch.
              if (!db.inTransaction) throw error;
              outcomes.push(() => unit.reject(error));
            }
            continue;
          }
          control.savepoint.run();
          try {
            const value = await unit.work(query);
            control.release.run();
            outcomes.push(settleWith(unit, value));
          } catch (error) {
            control.rollbackTo.run();
            control.release.run();
            outcomes.push(() => unit.reject(error));
          }
        }
        control.commit.run();
      } catch (error) {
        if (db.open && db.inTransaction) db.exec('ROLLBACK');
        for (const unit of batch) unit.reject(error);
        continue;
      }
      if (wrote) committed++;
      settleAfterSync(committed, (error) => {
        if (error === undefined) for (const settle of outcomes) settle();
        else for (const unit of batch) unit.reject(error);
      });
      // Let the requests that arrive meanwhile queue up for the next transaction: while the flush
      // runs (none of this batch is told anything before it ends anyway), else for one turn.
      await (flushing ?? new Promise((resolve) => setImmediate(resolve)));
    }
    draining = undefined;
  }

  const driver: SqlDriver = {
    kind: 'sqlite',
    // The queue above is the group commit: each delivery goes into it as it comes.
    ingestGroups: Number.POSITIVE_INFINITY,
    skipLocked: '',
    claims: createProcessClaims(),
    transaction: (work) => enqueue(work, false),
    // One connection: a lone statement takes its turn like any transaction.
    statement: (sql, params) => enqueue((q) => q(sql, params), true),
    close: async () => {
      while (draining ?? flushing) await (draining ?? flushing);
      if (db.open) db.close();
      closeSync(walFd);
      rmSync(lockFile, { force: true });
    },
  };
  return createSqlStore(driver);
}

/**
 * One process per data dir: a second bridge on the same file would void the first one's leases
 * at start-up and could create an annotation twice. A lock left by a killed process (its pid is
 * gone) is taken over.
 */
function claimDataDir(dataDir: string): string {
  const lockFile = join(dataDir, 'bridge.pid');
  let holder: number | undefined;
  try {
    holder = Number(readFileSync(lockFile, 'utf8').trim());
  } catch {
    holder = undefined;
  }
  if (holder !== undefined && Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
    throw new DataDirError(
      `Another bridge (pid ${holder}) is using the data dir ${dataDir}. Stop it, pass another --data-dir, or set DATABASE_URL to run replicas on PostgreSQL.`,
    );
  }
  writeFileSync(lockFile, `${process.pid}\n`);
  return lockFile;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
