import type { DatasetSchema } from '../schema.js';
import type { KnownWindowRows } from './table-extents.js';

/** A value bound to a `?` placeholder. bigint is BIGINT (nanosecond times), number is DOUBLE unless integral. */
export type SqlParam = string | number | bigint | boolean | null;

/** Limits of one query; the store enforces them while DuckDB runs. */
export interface QueryBudget {
  /** Interrupts the running statement after this long (connection.interrupt()). */
  readonly timeoutMs: number;
  /** Stops reading a result past this many rows and says so (`truncated`). */
  readonly maxRows: number;
  /** Cancels the query when aborted (client went away, service shutting down). */
  readonly signal?: AbortSignal;
}

/** A result read column-major, values as @duckdb/node-api returns them to JS (BIGINT as bigint). */
export interface QueryRows {
  readonly columnNames: readonly string[];
  /** DuckDB type names of the columns, e.g. BIGINT, DOUBLE, VARCHAR, BOOLEAN, LIST. */
  readonly columnTypes: readonly string[];
  readonly columns: readonly (readonly unknown[])[];
  readonly rowCount: number;
  /** True when maxRows cut the result short. */
  readonly truncated: boolean;
}

/**
 * Runs SQL with bound parameters inside one read snapshot. DuckDB makes the whole result before
 * it is read (see readWithBudget): a statement that could return many rows limits them itself.
 */
export type RunSql = (sql: string, params: readonly SqlParam[]) => Promise<QueryRows>;

/**
 * The event store as the query engine sees it. Ingest, trim and delete live beside it in the
 * store's own modules; the compiler needs only schemas and a budgeted, snapshot-consistent read.
 */
export interface EventReader {
  /** The dataset's table and fields, or undefined when no such dataset has events storage. */
  schema(dataset: string): DatasetSchema | undefined;
  /**
   * The datasets the reader may query, for patterns such as `union github*`; without it a
   * pattern matches none.
   */
  datasets?(): string[];
  /**
   * Runs `work` on one pooled connection inside a read transaction, so that every statement it
   * issues sees the same committed data. The budget covers the whole of `work`.
   */
  read<T>(budget: QueryBudget, work: (run: RunSql) => Promise<T>): Promise<T>;
  /**
   * Runs one statement within the budget. DuckDB reads a statement from one snapshot, so no
   * transaction is opened around it: the cheaper way for a query that is one statement.
   */
  readOne(budget: QueryBudget, sql: string, params: readonly SqlParam[]): Promise<QueryRows>;
  /**
   * How many rows of `table` have `_time` in [start, end), when the store knows it without
   * reading: for a window that takes in the whole table or misses it, while nothing is being
   * loaded. A read that uses it must check `unchangedSince` afterwards (see TableExtents).
   */
  windowRows(table: string, start: bigint, end: bigint): KnownWindowRows | undefined;
  /** Whether the data is still the version `windowRows` answered for: nothing committed since. */
  unchangedSince(version: number): boolean;
}
