import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { mkdirSync, rmSync } from 'node:fs';
import { access, constants, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DatasetSchema } from '../schema.js';
import { quoteIdentifier } from '../sql/quote.js';
import { insertStaged, readRejectedRows } from './append.js';
import { applySchemaChange, BASE_FIELDS, createDatasetTable, dropDatasetTable, loadCatalog, migrateCatalog, type CatalogEntry } from './catalog.js';
import { ConnectionPool } from './connection-pool.js';
import { StoreClosedError, StoreLockedError } from './errors.js';
import { KeyedLock } from './keyed-lock.js';
import { readWithBudget } from './read.js';
import { planSchema, type SchemaPlan } from './schema-plan.js';
import type { StagedBatch } from './staged-batch.js';
import { convertStorage } from './storage-sql.js';
import type { EventReader, QueryBudget, QueryRows, RunSql, SqlParam } from './types.js';

export interface EventStoreOptions {
  /** The data dir: the store keeps `events.duckdb` and its scratch folders here. */
  dataDir: string;
  /** DuckDB's memory limit for everything it does (queries, appends, checkpoints), e.g. "1GB". */
  memoryLimit?: string;
  /** DuckDB worker threads; default: one per core. */
  threads?: number;
  /** Fields a dataset may have besides `_time` and `_sysTime`; events that would add more fail. */
  maxFieldsPerDataset?: number;
  /** Most connections open at once (each runs one statement at a time). */
  connections?: number;
  /** WAL size that triggers a checkpoint, e.g. "64MB". */
  walAutocheckpoint?: string;
  /** Called when a background checkpoint fails for another reason than concurrent transactions. */
  onBackgroundError?: (error: unknown) => void;
}

export const EVENT_STORE_DEFAULTS = {
  memoryLimit: '1GB',
  maxFieldsPerDataset: 1024,
  connections: 8,
  /** Checkpoints rewrite the newest row group; a larger WAL between them rewrites it less often. */
  walAutocheckpoint: '64MB',
} as const;

export const EVENTS_FILE = 'events.duckdb';
/** A readiness probe's own query: far below the probe's deadline, so that a busy pool reads as a reason, not a hang. */
const READY_CHECK_TIMEOUT_MS = 1_000;

/** Quiet time after the last append before the store checkpoints (see checkpointWhenIdle). */
const IDLE_CHECKPOINT_MS = 1000;

/**
 * Files open in this process. DuckDB's file lock keeps other processes out, but not a second
 * instance in the same process, and two instances writing one file would corrupt it.
 */
const openFiles = new Set<string>();

/** What an append did: how many events were stored and which failed for lack of room for their fields. */
export interface AppendResult {
  readonly ingested: number;
  readonly failures: readonly { readonly index: number; readonly timeNs: bigint; readonly error: string }[];
  /** `_rowid` values issued so far in this dataset: every event ever appended, trimmed or not. */
  readonly rowIdsIssued: bigint;
}

/** The event store: DuckDB tables per dataset behind a catalog, written under a per-dataset lock. */
export interface EventStore extends EventReader {
  /** Where staged batch files must be written (see StagedBatch); emptied at open. */
  readonly stagingDir: string;
  readonly memoryLimit: string;
  readonly maxFieldsPerDataset: number;
  /** Names of the datasets that have a table, sorted. */
  datasets(): string[];
  /** Creates an empty dataset; false when it exists already. */
  createDataset(dataset: string): Promise<boolean>;
  /** Loads a staged batch (creating the dataset if needed) and deletes its file, whatever happens. */
  append(dataset: string, batch: StagedBatch): Promise<AppendResult>;
  /** Deletes the dataset's events with `_time` before `beforeNs`; the number deleted (0 for an unknown dataset). */
  trim(dataset: string, beforeNs: bigint): Promise<number>;
  /** Drops the dataset's table and catalog entry; false when there was none. */
  dropDataset(dataset: string): Promise<boolean>;
  /** Throws unless the store can serve now: open, a connection answers, staged batches can be written. Used by /readyz. */
  check(): Promise<void>;
  /** Waits for writes in flight, stops reads, checkpoints and closes the file. */
  close(): Promise<void>;
}

/** Opens (creating if needed) `<dataDir>/events.duckdb`. */
export async function openEventStore(options: EventStoreOptions): Promise<EventStore> {
  const settings = { ...EVENT_STORE_DEFAULTS, ...definedOnly(options) };
  mkdirSync(options.dataDir, { recursive: true });
  const stagingDir = join(options.dataDir, 'events-staging');
  // Staged files of a previous run were never acknowledged: nothing in them is owed.
  rmSync(stagingDir, { recursive: true, force: true });
  mkdirSync(stagingDir, { recursive: true });

  const file = resolve(options.dataDir, EVENTS_FILE);
  if (openFiles.has(file)) {
    throw new StoreLockedError(`${file} is already open in this process. Only one event store may use a data dir at a time.`, undefined);
  }
  const instance = await openInstance(file, {
    memory_limit: settings.memoryLimit,
    temp_directory: join(options.dataDir, 'events-spill'),
    wal_autocheckpoint: settings.walAutocheckpoint,
    // DuckDB's allocator (jemalloc) keeps freed memory in per-thread caches until they pass a
    // threshold (128 MB by default, 512 MB after bulk frees); lower thresholds and background
    // purging hand it back to the system soon after a burst of ingest.
    allocator_flush_threshold: '16MB',
    allocator_bulk_deallocation_flush_threshold: '64MB',
    allocator_background_threads: 'true',
    ...(options.threads === undefined ? {} : { threads: String(options.threads) }),
  });
  openFiles.add(file);
  const pool = new ConnectionPool(instance, settings.connections);
  let catalog: Map<string, CatalogEntry>;
  try {
    catalog = await pool.use(async (connection) => {
      await migrateCatalog(connection);
      return loadCatalog(connection);
    });
  } catch (error) {
    pool.close();
    instance.closeSync();
    openFiles.delete(file);
    throw error;
  }
  return new DuckDBEventStore(instance, pool, catalog, stagingDir, settings, options.onBackgroundError ?? (() => undefined), () => openFiles.delete(file));
}

async function openInstance(file: string, config: Record<string, string>): Promise<DuckDBInstance> {
  try {
    return await DuckDBInstance.create(file, config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/Could not set lock on file/i.test(message)) {
      const pid = /PID (\d+)/.exec(message)?.[1];
      throw new StoreLockedError(
        `Another process${pid ? ` (pid ${pid})` : ''} has ${file} open. Only one Timemark service may use a data dir at a time: stop it or use another --data-dir.`,
        error,
      );
    }
    throw error;
  }
}

class DuckDBEventStore implements EventStore {
  private readonly writes = new KeyedLock();
  /** Dataset creation and removal also take this key, so ids are handed out one at a time. */
  private static readonly CATALOG_KEY = '\u0000catalog';
  private readonly shutdown = new AbortController();
  private nextDatasetId: number;
  private checkpointOwed = false;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly pool: ConnectionPool,
    private readonly catalog: Map<string, CatalogEntry>,
    readonly stagingDir: string,
    private readonly settings: { memoryLimit: string; maxFieldsPerDataset: number },
    private readonly onBackgroundError: (error: unknown) => void,
    private readonly onClosed: () => void,
  ) {
    this.nextDatasetId = Math.max(0, ...[...catalog.values()].map((entry) => entry.id)) + 1;
  }

  get memoryLimit(): string {
    return this.settings.memoryLimit;
  }

  get maxFieldsPerDataset(): number {
    return this.settings.maxFieldsPerDataset;
  }

  schema(dataset: string): DatasetSchema | undefined {
    return this.catalog.get(dataset)?.schema;
  }

  datasets(): string[] {
    return [...this.catalog.keys()].sort();
  }

  read<T>(budget: QueryBudget, work: (run: RunSql) => Promise<T>): Promise<T> {
    return this.budgetedRead(budget, true, work);
  }

  readOne(budget: QueryBudget, sql: string, params: readonly SqlParam[]): Promise<QueryRows> {
    return this.budgetedRead(budget, false, (run) => run(sql, params));
  }

  private async budgetedRead<T>(budget: QueryBudget, transaction: boolean, work: (run: RunSql) => Promise<T>): Promise<T> {
    this.assertOpen();
    const options = { memoryLimit: this.settings.memoryLimit, transaction, shutdown: this.shutdown.signal };
    return this.pool.use((connection) => readWithBudget(connection, this.pool.statements(connection), budget, options, work));
  }

  async check(): Promise<void> {
    this.assertOpen();
    // Every ingest stages its batch here first: a full or read-only disk shows up as this failing.
    await access(this.stagingDir, constants.W_OK).catch(() => {
      throw new Error(`the staging directory ${this.stagingDir} is not writable`);
    });
    await this.readOne({ timeoutMs: READY_CHECK_TIMEOUT_MS, maxRows: 1 }, 'SELECT 1', []);
  }

  async createDataset(dataset: string): Promise<boolean> {
    this.assertOpen();
    return this.writes.exclusive(dataset, async () => (await this.ensureDataset(dataset)).created);
  }

  async append(dataset: string, batch: StagedBatch): Promise<AppendResult> {
    try {
      this.assertOpen();
      // Most batches bring no new field and no new type: they share the dataset's lock and run
      // alongside each other. A batch that changes the schema waits to hold it alone.
      const shared = await this.writes.shared(dataset, async () => {
        const entry = this.catalog.get(dataset);
        if (!entry) return undefined;
        const plan = this.plan(entry, batch);
        return plan.catalogChanged ? undefined : this.insertRows(dataset, entry, batch, plan);
      });
      if (shared) return shared;
      return await this.writes.exclusive(dataset, async () => {
        const { entry } = await this.ensureDataset(dataset);
        const plan = this.plan(entry, batch);
        if (plan.catalogChanged) {
          await this.transaction((connection) => applySchemaChange(connection, entry, plan, convertStorage));
          entry.schema = { ...entry.schema, fields: plan.fields };
          entry.nextColumn = plan.nextColumn;
          this.owesCheckpoint();
        }
        return this.insertRows(dataset, entry, batch, plan);
      });
    } finally {
      await rm(batch.file, { force: true });
    }
  }

  async trim(dataset: string, beforeNs: bigint): Promise<number> {
    this.assertOpen();
    return this.writes.exclusive(dataset, async () => {
      const entry = this.catalog.get(dataset);
      if (!entry) return 0;
      return this.transaction(async (connection) => {
        // The newest rows may be among those deleted: record how far the numbering got, so it never restarts below.
        await connection.run('UPDATE timemark_datasets SET next_rowid = $1 WHERE id = $2', [entry.nextRowId, entry.id]);
        const result = await connection.run(`DELETE FROM ${quoteIdentifier(entry.schema.table)} WHERE ${quoteIdentifier('_time')} < $1`, [beforeNs]);
        return Number(result.rowsChanged);
      });
    });
  }

  async dropDataset(dataset: string): Promise<boolean> {
    this.assertOpen();
    return this.writes.exclusive(dataset, () =>
      this.writes.exclusive(DuckDBEventStore.CATALOG_KEY, async () => {
        const entry = this.catalog.get(dataset);
        if (!entry) return false;
        await this.transaction((connection) => dropDatasetTable(connection, entry));
        this.catalog.delete(dataset);
        this.owesCheckpoint();
        return true;
      }),
    );
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.shutdown.abort();
      await this.writes.drain();
      clearTimeout(this.checkpointTimer);
      clearTimeout(this.idleTimer);
      try {
        await this.pool.use((connection) => connection.run('CHECKPOINT'));
      } catch (error) {
        // Everything committed is in the WAL already; the next open replays it.
        this.onBackgroundError(error);
      }
      this.pool.close();
      while (this.pool.lentCount > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      this.instance.closeSync();
      this.onClosed();
    })();
    return this.closing;
  }

  private plan(entry: CatalogEntry, batch: StagedBatch): SchemaPlan {
    return planSchema(entry.schema.fields, batch.parts, { maxFields: this.settings.maxFieldsPerDataset + BASE_FIELDS.length, nextColumn: entry.nextColumn });
  }

  /**
   * Inserts the batch's rows in one transaction. Its `_rowid` range is taken before the insert,
   * so concurrent appends number their rows apart; a failed insert leaves a gap, never a repeat.
   * The counter is not written per append (concurrent appends would conflict on its row): the
   * store reads the largest `_rowid` at open instead (see loadCatalog).
   */
  private async insertRows(dataset: string, entry: CatalogEntry, batch: StagedBatch, plan: SchemaPlan): Promise<AppendResult> {
    if (batch.count === 0) return { ingested: 0, failures: [], rowIdsIssued: entry.nextRowId };
    const firstRowId = entry.nextRowId;
    entry.nextRowId += BigInt(batch.count);
    const { ingested, rejectedRows } = await this.transaction(async (connection) => {
      const rejectedRows = plan.rejected.length > 0 ? await readRejectedRows(connection, batch, plan.rejected) : [];
      const ingested = await insertStaged(connection, entry.schema.table, firstRowId, batch, plan);
      return { ingested, rejectedRows };
    });
    this.checkpointIfOwed();
    this.checkpointWhenIdle();
    const limit = this.settings.maxFieldsPerDataset;
    return {
      ingested,
      rowIdsIssued: entry.nextRowId,
      failures: rejectedRows.map((row) => ({
        index: row.index,
        timeNs: row.timeNs,
        error: `Dataset ${JSON.stringify(dataset)} has reached its limit of ${limit} fields, so the event's new field${row.fields.length > 1 ? 's' : ''} ${row.fields.map((field) => JSON.stringify(field)).join(', ')} cannot be added. Expected events that use the dataset's existing fields.`,
      })),
    };
  }

  /** Runs inside the dataset's exclusive lock: returns its catalog entry, creating the table first if needed. */
  private async ensureDataset(dataset: string): Promise<{ entry: CatalogEntry; created: boolean }> {
    const existing = this.catalog.get(dataset);
    if (existing) return { entry: existing, created: false };
    return this.writes.exclusive(DuckDBEventStore.CATALOG_KEY, async () => {
      const id = this.nextDatasetId++;
      const entry = await this.transaction((connection) => createDatasetTable(connection, id, dataset));
      this.catalog.set(dataset, entry);
      this.owesCheckpoint();
      return { entry, created: true };
    });
  }

  private async transaction<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.pool.use(async (connection) => {
      await connection.run('BEGIN');
      try {
        const result = await work(connection);
        // DuckDB fsyncs its WAL before COMMIT returns: from here the change survives a crash.
        await connection.run('COMMIT');
        return result;
      } catch (error) {
        await connection.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * DuckDB's WAL replay has had bugs around schema changes, so every change is checkpointed
   * into the main file soon after it commits. A checkpoint cannot run while other transactions
   * are open; it is then retried after the next write or a moment later.
   */
  private owesCheckpoint(): void {
    this.checkpointOwed = true;
    this.checkpointIfOwed();
  }

  private checkpointIfOwed(): void {
    if (!this.checkpointOwed || this.closing) return;
    this.checkpointOwed = false;
    void this.pool
      .use((connection) => connection.run('CHECKPOINT'))
      .catch((error: unknown) => {
        if (this.closing) return;
        this.checkpointOwed = true;
        if (!(error instanceof Error && /Cannot CHECKPOINT/i.test(error.message))) this.onBackgroundError(error);
        clearTimeout(this.checkpointTimer);
        this.checkpointTimer = setTimeout(() => this.checkpointIfOwed(), 1000).unref();
      });
  }

  /**
   * Appended rows wait in memory, uncompressed, until a checkpoint writes them to the file
   * (DuckDB checkpoints by itself only once the WAL reaches wal_autocheckpoint). A moment
   * without writes is a cheap time to do it: memory shrinks to the compressed blocks and a
   * restart has less WAL to replay.
   */
  private checkpointWhenIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.owesCheckpoint(), IDLE_CHECKPOINT_MS).unref();
  }

  private assertOpen(): void {
    if (this.closing) throw new StoreClosedError();
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
