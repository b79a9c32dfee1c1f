import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSqlStore, schemaStatements, type Query, type Row, type SqlDriver } from './sql-store.js';
import type { BridgeStore } from './types.js';

export const SQLITE_FILE_NAME = 'bridge.sqlite';

/**
 * The embedded store: one SQLite file in the data dir. WAL with synchronous=FULL, so a
 * transaction that returned is on disk before the sender hears 2xx — even across kill -9 or a power cut.
 * One process owns the file; replicas need PostgreSQL.
 */
export function openSqliteStore(dataDir: string): BridgeStore {
  mkdirSync(dataDir, { recursive: true });
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

  // One connection: transactions must not interleave across awaits, so they queue.
  let queue: Promise<unknown> = Promise.resolve();
  const driver: SqlDriver = {
    kind: 'sqlite',
    skipLocked: '',
    transaction<T>(work: (q: Query) => Promise<T>): Promise<T> {
      const run = async (): Promise<T> => {
        if (!db.open) throw new Error('the SQLite store is closed');
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(query);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw error;
        }
      };
      const result = queue.then(run, run);
      queue = result.catch(() => undefined);
      return result;
    },
    lockKey: () => Promise.resolve(),
    close: async () => {
      await queue;
      if (db.open) db.close();
    },
  };
  return createSqlStore(driver);
}
