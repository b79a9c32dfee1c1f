import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';

/**
 * Prepared statements of one connection, by SQL text, the most recently used kept. Values are
 * bound parameters, so the text of a query repeats across requests with other times and
 * filters (a dashboard's refresh, a monitor's run) and is parsed once per connection instead of
 * once per request.
 *
 * A cached statement stays correct when the catalog changes: DuckDB binds a prepared statement
 * again before running it when its parameters are bound anew or a table it reads has changed, so
 * a widened column or a recreated table reads as a fresh statement would.
 */
export class StatementCache {
  /** Map order is use order: the first entry is the least recently used. */
  private readonly statements = new Map<string, DuckDBPreparedStatement>();

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly capacity: number,
  ) {}

  async prepare(sql: string): Promise<DuckDBPreparedStatement> {
    const cached = this.statements.get(sql);
    if (cached) {
      this.statements.delete(sql);
      this.statements.set(sql, cached);
      return cached;
    }
    const prepared = await this.connection.prepare(sql);
    this.statements.set(sql, prepared);
    if (this.statements.size > this.capacity) {
      const [oldest, statement] = this.statements.entries().next().value as [string, DuckDBPreparedStatement];
      this.statements.delete(oldest);
      statement.destroySync();
    }
    return prepared;
  }

  /** Drops a statement whose run failed: whatever went wrong, the next run prepares it afresh. */
  forget(sql: string): void {
    const statement = this.statements.get(sql);
    if (!statement) return;
    this.statements.delete(sql);
    statement.destroySync();
  }
}
