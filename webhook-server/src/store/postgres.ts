import pg from 'pg';
import { createSessionClaims } from './postgres-claims.js';
import { ConfigError } from '../../../src/common/errors.js';
import { redactUrl } from '../../../src/common/redact-url.js';
import { createSqlStore, schemaStatements, upgradeStatements, type Query, type Row, type SqlDriver, type TransactionOptions } from './sql-store.js';
import { StoreUnavailableError, type BridgeStore } from './types.js';

export interface PostgresOptions {
  connectionString: string;
  /** A schema to keep the bridge's tables in (created if missing); default: the connection's search_path. */
  schema?: string;
  maxConnections?: number;
}

/**
 * The SQL of the advisory lock key for one of the store's lock constants (sql-store.ts's
 * FOLD_LOCK): the constant with the schema the connection works in, hashed to 64 bits.
 */
export function storeLockSql(lock: bigint): string {
  return `hashtextextended(current_schema() || ':lock:${lock}', 0)`;
}

/** An arbitrary constant: the advisory lock that serialises schema creation across replicas starting together. */
const MIGRATION_LOCK = 7_305_118_001;

/**
 * The shared store for replicas. A session-level advisory lock per episode, held by one connection
 * of each replica, hands each due episode to exactly one worker and frees it when that replica
 * dies (postgres-claims.ts); a transaction-scoped advisory lock per correlation key serialises
 * the folding of events into episodes; unique constraints make dedupe hold across replicas.
 */
export async function openPostgresStore(options: PostgresOptions): Promise<BridgeStore> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new ConfigError(`Invalid PostgreSQL schema ${JSON.stringify(schema)}. Expected lower-case letters, digits and underscores.`);
  }
  const connection: pg.ClientConfig = {
    connectionString: options.connectionString,
    connectionTimeoutMillis: 3_000,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  };
  // Two pools, whose connections differ in one setting fixed when they open: on `lazy` ones a
  // commit returns before it reaches the disk (synchronous_commit off), so that a statement
  // of the outbox's bookkeeping, or a read, is one round trip with no transaction around it.
  // Each pg client runs one query at a time: a pool hands a connection to one caller at a time.
  const max = options.maxConnections ?? 20;
  const lazyMax = Math.max(2, Math.floor(max / 4));
  const pool = new pg.Pool({ ...connection, max: Math.max(2, max - lazyMax) });
  const lazyPool = new pg.Pool({ ...connection, max: lazyMax, options: [connection.options, '-c synchronous_commit=off'].filter(Boolean).join(' ') });
  // An idle connection that drops must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  lazyPool.on('error', () => undefined);

  const driver: SqlDriver = {
    kind: 'postgres',
    // Each group costs one round trip and one flush, whatever its size; two in flight keep the
    // connection to the database busy while the other's answer travels.
    ingestGroups: 2,
    skipLocked: ' FOR UPDATE SKIP LOCKED',
    claims: createSessionClaims(connection),
    transaction: <T>(work: (q: Query) => Promise<T>, options: TransactionOptions = { durable: true }) => retried(() => once(work, options)),
    statement: (sql, params, options) =>
      retried(async () => (await (options.durable ? pool : lazyPool).query(sql, params as unknown[])).rows as Row[]),
    close: async () => {
      await Promise.all([pool.end(), lazyPool.end()]);
    },
  };

  async function retried<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        // Deadlocks and serialization failures are transient by definition: run the transaction again.
        const code = (error as { code?: unknown }).code;
        if (attempt >= 3 || (code !== '40P01' && code !== '40001')) throw error;
      }
    }
  }

  async function once<T>(work: (q: Query) => Promise<T>, options: TransactionOptions): Promise<T> {
    const client = await pool.connect();
    const query: Query = async (sql, params = []) => (await client.query(sql, params as unknown[])).rows as Row[];
    try {
      // One round trip opens the transaction, sets its durability and takes its lock: all of it
      // the store's own constants (a lock is one of sql-store.ts's numbers), nothing a sender wrote.
      const opening = ['BEGIN'];
      if (!options.durable) opening.push('SET LOCAL synchronous_commit TO OFF');
      // Keyed by the schema too, as the claims are: bridges kept in other schemas of the same
      // database never wait for each other.
      if (options.exclusive !== undefined) opening.push(`SELECT pg_advisory_xact_lock(${storeLockSql(BigInt(options.exclusive))})`);
      await client.query(opening.join('; '));
      const result = await work(query);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw error;
    }
  }

  try {
    await driver.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      if (schema !== undefined) await query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      const upgrades = upgradeStatements((table, column, definition) => [`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${column} ${definition}`]);
      for (const statement of [...schemaStatements('BIGSERIAL PRIMARY KEY'), ...upgrades]) await query(statement);
    });
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw new StoreUnavailableError(
      `Cannot open the PostgreSQL store at ${redactUrl(options.connectionString)}: ${error instanceof Error ? error.message : String(error)}. Expected a reachable database that the user in DATABASE_URL may create tables in.`,
      { cause: error },
    );
  }
  return createSqlStore(driver);
}
