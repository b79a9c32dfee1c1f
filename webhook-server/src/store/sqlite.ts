import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DataDirError } from '../../../src/common/errors.js';
import { createProcessClaims, createSqlStore, schemaStatements, type Query, type Row, type SqlDriver } from './sql-store.js';
import type { BridgeStore } from './types.js';

export const SQLITE_FILE_NAME = 'bridge.sqlite';

/**
 * The embedded store: one SQLite file in the data dir. WAL with synchronous=FULL, so a
 * transaction that returned is on disk before the sender hears 2xx — even across kill -9 or a power cut.
 * One process owns the file; replicas need PostgreSQL. `dataDir` is a directory that
 * prepareDataDir has checked.
 */
export function openSqliteStore(dataDir: string): BridgeStore {
  const lockFile = claimDataDir(dataDir);
  const db = new Database(join(dataDir, SQLITE_FILE_NAME));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  for (const statement of schemaStatements('INTEGER PRIMARY KEY AUTOINCREMENT')) db.exec(statement);

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
    const rows = prepared.statement.reader ? (prepared.statement.all(...values) as Row[]) : (prepared.statement.run(...values), []);
    return Promise.resolve(rows);
  };

  // One connection, so transactions must not interleave across awaits: they queue. Whatever
  // queued while a commit was being synced to disk goes into the next transaction together
  // (group commit), each unit in its own savepoint: one fsync covers many acknowledgements, and a
  // unit that fails rolls back alone.
  interface Unit {
    work: (q: Query) => Promise<unknown>;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  }
  let queued: Unit[] = [];
  let draining: Promise<void> | undefined;

  async function drain(): Promise<void> {
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      const outcomes: Array<() => void> = [];
      try {
        if (!db.open) throw new Error('the SQLite store is closed');
        db.exec('BEGIN IMMEDIATE');
        for (const unit of batch) {
          db.exec('SAVEPOINT unit');
          try {
            const value = await unit.work(query);
            db.exec('RELEASE unit');
            outcomes.push(() => unit.resolve(value));
          } catch (error) {
            db.exec('ROLLBACK TO unit');
            db.exec('RELEASE unit');
            outcomes.push(() => unit.reject(error));
          }
        }
        db.exec('COMMIT');
      } catch (error) {
        if (db.open && db.inTransaction) db.exec('ROLLBACK');
        for (const unit of batch) unit.reject(error);
        continue;
      }
      for (const settle of outcomes) settle();
      // Let the requests that arrived during the commit queue up for the next one.
      await new Promise((resolve) => setImmediate(resolve));
    }
    draining = undefined;
  }

  const driver: SqlDriver = {
    kind: 'sqlite',
    // The queue above is the group commit: each delivery goes into it as it comes.
    ingestGroups: Number.POSITIVE_INFINITY,
    skipLocked: '',
    claims: createProcessClaims(),
    transaction<T>(work: (q: Query) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queued.push({ work, resolve: resolve as (value: unknown) => void, reject });
        draining ??= Promise.resolve().then(drain);
      });
    },
    // One connection: a lone statement takes its turn like any transaction.
    statement(sql, params) {
      return driver.transaction((q) => q(sql, params));
    },
    close: async () => {
      while (draining) await draining;
      if (db.open) db.close();
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
