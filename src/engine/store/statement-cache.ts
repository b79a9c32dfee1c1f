import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';

/**
 * Prepared statements of one connection, by SQL text, the most recently used kept. Values are
 * bound parameters, so the text of a query repeats across requests with other times and
 * filters (a dashboard's refresh, a monitor's run) and is parsed once per connection instead of
 * once per request.
 *
 * Only statements with parameters are kept. DuckDB plans a statement that has parameters when it
 * runs, after they are bound, so each run is planned against the tables as they are then. A
 * statement without parameters is planned once, when it is prepared, with the tables'
 * statistics of that moment, and the plan relies on them (compressed materialization packs a
 * column into the bits its min/max say it needs): run again after an append, such a plan
 * returned wrong values (0 read back as 5000192). `cacheable` says which texts may be kept;
 * `use` runs the others once and destroys them. Catalog changes (a widened column, a
 * recreated table) make DuckDB bind a statement again either way.
 */
export class StatementCache {
  /** Map order is use order: the first entry is the least recently used. */
  private readonly statements = new Map<string, DuckDBPreparedStatement>();

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly capacity: number,
  ) {}

  /** Whether a statement may be kept for later runs: only when DuckDB plans it at each run (see above). */
  static cacheable(prepared: DuckDBPreparedStatement): boolean {
    return prepared.parameterCount > 0;
  }

  /**
   * A prepared statement for `sql`. One that is not `cacheable` is not kept: the caller runs it
   * once and destroys it, as `use` does.
   */
  async prepare(sql: string): Promise<DuckDBPreparedStatement> {
    const cached = this.statements.get(sql);
    if (cached) {
      this.statements.delete(sql);
      this.statements.set(sql, cached);
      return cached;
    }
    const prepared = await this.connection.prepare(sql);
    if (!StatementCache.cacheable(prepared)) return prepared;
    this.statements.set(sql, prepared);
    if (this.statements.size > this.capacity) {
      const [oldest, statement] = this.statements.entries().next().value as [string, DuckDBPreparedStatement];
      this.statements.delete(oldest);
      statement.destroySync();
    }
    return prepared;
  }

  /**
   * Runs `work` on the statement for `sql` and applies the cache's rules around it: a kept
   * statement is dropped when its run fails (whatever went wrong, the next run prepares it
   * afresh); one that is not `cacheable` is destroyed once `work` is done with it.
   */
  async use<T>(sql: string, work: (prepared: DuckDBPreparedStatement) => Promise<T>): Promise<T> {
    const prepared = await this.prepare(sql);
    const kept = StatementCache.cacheable(prepared);
    try {
      return await work(prepared);
    } catch (error) {
      if (kept) this.forget(sql);
      throw error;
    } finally {
      if (!kept) prepared.destroySync();
    }
  }

  /** Drops a statement whose run failed: whatever went wrong, the next run prepares it afresh. */
  forget(sql: string): void {
    const statement = this.statements.get(sql);
    if (!statement) return;
    this.statements.delete(sql);
    statement.destroySync();
  }
}
