import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { StoreClosedError } from './errors.js';
import { StatementCache } from './statement-cache.js';

/** Prepared statements kept per connection: the distinct queries a dashboard and its monitors repeat. */
const STATEMENTS_PER_CONNECTION = 32;

/**
 * Connections of one DuckDB instance, lent out one at a time. A connection runs one statement at
 * a time, so concurrent reads and writes each take their own; DuckDB's MVCC keeps them apart.
 */
export class ConnectionPool {
  private readonly idle: DuckDBConnection[] = [];
  private readonly waiters: { resolve: (connection: DuckDBConnection) => void; reject: (error: Error) => void }[] = [];
  private readonly lent = new Set<DuckDBConnection>();
  private readonly caches = new WeakMap<DuckDBConnection, StatementCache>();
  private created = 0;
  private closed = false;

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly size: number,
  ) {}

  async acquire(): Promise<DuckDBConnection> {
    if (this.closed) throw new StoreClosedError();
    const connection = this.idle.pop();
    if (connection) return this.lend(connection);
    if (this.created < this.size) {
      this.created++;
      try {
        return this.lend(await this.instance.connect());
      } catch (error) {
        this.created--;
        throw error;
      }
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve: (next) => resolve(this.lend(next)), reject }));
  }

  release(connection: DuckDBConnection): void {
    this.lent.delete(connection);
    if (this.closed) {
      connection.closeSync();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(connection);
    else this.idle.push(connection);
  }

  /** Runs `work` on a borrowed connection and gives it back, whatever happens. */
  async use<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = await this.acquire();
    try {
      return await work(connection);
    } finally {
      this.release(connection);
    }
  }

  /** The prepared statements of a connection this pool made (closing the connection destroys them). */
  statements(connection: DuckDBConnection): StatementCache {
    let cache = this.caches.get(connection);
    if (!cache) {
      cache = new StatementCache(connection, STATEMENTS_PER_CONNECTION);
      this.caches.set(connection, cache);
    }
    return cache;
  }

  /** Interrupts whatever the lent connections are running (used at shutdown). */
  interruptAll(): void {
    for (const connection of this.lent) connection.interrupt();
  }

  get lentCount(): number {
    return this.lent.size;
  }

  /** Refuses new borrowers and disconnects idle connections; lent ones are disconnected on release. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new StoreClosedError());
    for (const connection of this.idle.splice(0)) connection.closeSync();
  }

  private lend(connection: DuckDBConnection): DuckDBConnection {
    this.lent.add(connection);
    return connection;
  }
}
