import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { access, constants, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { DatasetSchema } from '../schema.js';
import { quoteIdentifier } from '../sql/quote.js';
import { insertStaged, insertStatement, readRejectedRows } from './append.js';
import { BatchLoader } from './batch-loader.js';
import {
  applySchemaChange,
  BASE_FIELDS,
  compactLoaded,
  createDatasetTable,
  dropDatasetTable,
  loadCatalog,
  migrateCatalog,
  readLoadedBatches,
  recordLoaded,
  recordLoadedThrough,
  TIME_COLUMN,
  type CatalogEntry,
} from './catalog.js';
import { ConnectionPool } from './connection-pool.js';
import { StoreClosedError, StoreLockedError } from './errors.js';
import { clearLogDir, IngestLog, recoverLog, type BatchSource, type LoggedBatch } from './ingest-log.js';
import { KeyedLock } from './keyed-lock.js';
import { readWithBudget } from './read.js';
import { planSchema, type SchemaPlan } from './schema-plan.js';
import type { StagedBatch } from './staged-batch.js';
import { convertStorage } from './storage-sql.js';
import { TableExtents, type Extent, type KnownWindowRows } from './table-extents.js';
import type { EventReader, QueryBudget, QueryRows, RunSql, SqlParam } from './types.js';
import { registerUdfs } from '../sql/udfs.js';

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
  /** Called when a background checkpoint or load fails (for a checkpoint: for another reason than concurrent transactions). */
  onBackgroundError?: (error: unknown) => void;
  /**
   * Decodes a logged request body again into a staged batch at `file`: how the store replays
   * ingests whose body the log kept (see ingest-log.ts). Needed only when appends pass a source.
   */
  restage?: Restage;
  /** Rows of acknowledged batches gathered into one load (see batch-loader.ts); tests lower it. */
  loadRows?: number;
  /** How long an acknowledged batch may wait for others before it is loaded anyway. */
  loadLingerMs?: number;
}

/** DuckDB's default row group size (ROW_GROUP_SIZE). */
const DUCKDB_ROW_GROUP_ROWS = 122_880;

export const EVENT_STORE_DEFAULTS = {
  memoryLimit: '1GB',
  maxFieldsPerDataset: 1024,
  connections: 8,
  /** Checkpoints rewrite the newest row group; a larger WAL between them rewrites it less often. */
  walAutocheckpoint: '64MB',
  /**
   * One DuckDB row group. A transaction's full row groups are written to the database file as
   * they fill; the rest goes through the WAL and is written again by the next checkpoint (a
   * 10,000-row commit put 2.9 MB in the WAL, a 300,000-row one next to nothing). Per event,
   * bench/README.md ("rows per commit"): 100,000-row commits cost DuckDB half the CPU of
   * 10,000-row ones.
   */
  loadRows: DUCKDB_ROW_GROUP_ROWS,
  /** Reads load at once whatever waits, so waiting longer for a full load costs no freshness. */
  loadLingerMs: 1000,
} as const;

/** Acknowledged rows not yet loaded past which new ingests wait. */
const MAX_WAITING_ROWS = 1_000_000;
/**
 * Most rows in one load, in loadRows: about one row group, so that a backlog splits into loads
 * that run side by side, and the load can end just past a whole row group (see BatchLoader).
 */
const LOAD_MAX_FACTOR = 1.1;
/**
 * Loads that run at once, each on one DuckDB thread (see setLoadThreads). In-process, 983,040
 * events in 1-row-group loads: 2 side by side took 2.7–2.9 µs of wall time per event and 4.5–4.8
 * µs of CPU, one at a time on one thread 4.5–4.6 / 4.4–4.5, one at a time on two threads
 * 4.5–4.6 / 6.8–7.3 (bench/README.md, "concurrent loads").
 */
const MAX_CONCURRENT_LOADS = 2;

export const EVENTS_FILE = 'events.duckdb';
/** A readiness probe's own query: far below the probe's deadline, so that a busy pool reads as a reason, not a hang. */
const READY_CHECK_TIMEOUT_MS = 1_000;
/** Measuring a table's extent (see TableExtents) reads statistics and one column at most. */
const EXTENT_TIMEOUT_MS = 10_000;

/** Requests count as still arriving while a batch was accepted within this long (see checkpointWhenIdle). */
const INGEST_BUSY_MS = 300;
/** How often the store looks whether DuckDB's threads can go back to queries (see setLoadThreads). */
const THREADS_BACK_MS = 300;

/** DuckDB's default max_vacuum_tasks: what a checkpoint after a trim runs with (see checkpointIfOwed). */
const VACUUM_TASKS = 100;

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
  /** Where staged batch files must be written (see StagedBatch): the ingest log's directory. */
  readonly stagingDir: string;
  readonly memoryLimit: string;
  readonly maxFieldsPerDataset: number;
  /** Names of the datasets that have a table, sorted. */
  datasets(): string[];
  /** Creates an empty dataset; false when it exists already. */
  createDataset(dataset: string): Promise<boolean>;
  /**
   * Accepts a staged batch (creating the dataset if needed): when this resolves the batch is
   * durable in the ingest log and every later read sees it. Its file is the store's from then
   * on; if the append fails, the file is deleted.
   */
  append(dataset: string, batch: StagedBatch, source?: BatchSource): Promise<AppendResult>;
  /** Deletes the dataset's events with `_time` before `beforeNs`; the number deleted (0 for an unknown dataset). */
  trim(dataset: string, beforeNs: bigint): Promise<number>;
  /** Drops the dataset's table and catalog entry; false when there was none. */
  dropDataset(dataset: string): Promise<boolean>;
  /** Throws unless the store can serve now: open, a connection answers, staged batches can be written. Used by /readyz. */
  check(): Promise<void>;
  /** Loads at once what waits to be loaded again after a failure whose cause has gone (space freed on a full disk). */
  resume(): void;
  /** Waits for writes in flight, stops reads, checkpoints and closes the file. */
  close(): Promise<void>;
}

/** Opens (creating if needed) `<dataDir>/events.duckdb`. */
export async function openEventStore(options: EventStoreOptions): Promise<EventStore> {
  const settings = { ...EVENT_STORE_DEFAULTS, ...definedOnly(options) };
  mkdirSync(options.dataDir, { recursive: true });
  // Before the ingest log, batches were staged here and loaded before they were acknowledged: nothing in it is owed.
  rmSync(join(options.dataDir, 'events-staging'), { recursive: true, force: true });
  const logDir = join(options.dataDir, LOG_DIR);

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
    // A checkpoint's vacuum merges neighbouring row groups that are not full by writing them
    // again. Loads leave such groups (one that is not a whole number of row groups, or any
    // load on several threads, which ends one group per thread), so with vacuum on, the
    // checkpoint after a burst of 1,000,000 events wrote most of them a second time: 1.5–3.4 s
    // of CPU, and more when it fell between two loads (bench/README.md, "vacuum"). Partial
    // row groups cost queries next to nothing; the space a trim frees is what vacuum is for,
    // and a trim asks for one checkpoint with it (see checkpointIfOwed).
    max_vacuum_tasks: '0',
    ...(options.threads === undefined ? {} : { threads: String(options.threads) }),
  });
  openFiles.add(file);
  const pool = new ConnectionPool(instance, settings.connections);
  try {
    const { catalog, loaded } = await pool.use(async (connection) => {
      await migrateCatalog(connection);
      registerUdfs(connection);
      return { catalog: await loadCatalog(connection), loaded: await readLoadedBatches(connection) };
    });
    const recovered = recoverLog(logDir);
    const loadConcurrency = Math.max(1, Math.min(MAX_CONCURRENT_LOADS, options.threads ?? availableParallelism()));
    const store = new DuckDBEventStore(
      instance,
      pool,
      catalog,
      logDir,
      { ...settings, loadConcurrency },
      options.onBackgroundError ?? (() => undefined),
      () => openFiles.delete(file),
      options.restage,
    );
    await store.readThreads();
    await store.replay(recovered.batches.filter((entry) => entry.seq > loaded.through && !loaded.past.has(entry.seq)));
    // Everything the log held is in the tables now: the position moves past all of it before its
    // files go, so that no number it used can be handed out again and taken for loaded.
    let lastSeq = recovered.nextSeq - 1n > loaded.through ? recovered.nextSeq - 1n : loaded.through;
    for (const seq of loaded.past) if (seq > lastSeq) lastSeq = seq;
    if (lastSeq > loaded.through || loaded.past.size > 0) await store.compactLoaded(lastSeq);
    clearLogDir(logDir);
    store.startLog(lastSeq + 1n);
    return store;
  } catch (error) {
    pool.close();
    instance.closeSync();
    openFiles.delete(file);
    throw error;
  }
}

/** Decoding a kept request body again, exactly as the first time (same recipe: options, ingest time, limits). */
export type Restage = (body: Uint8Array, recipe: unknown, file: string) => StagedBatch;

/** The ingest log: staged batch files and the segments that describe them (ingest-log.ts). */
export const LOG_DIR = 'events-log';

/** What the loader holds of an acknowledged batch. */
interface PendingLoad {
  readonly seq: bigint;
  readonly rows: number;
  readonly entry: CatalogEntry;
  readonly batch: StagedBatch;
  readonly firstRowId: bigint;
  readonly plan: SchemaPlan;
  /** The kept request body, deleted with the staged file once loaded. */
  readonly bodyFile: string | undefined;
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
  /** The log position last written to timemark_ingest_log (see compactLoaded). */
  private compactedThrough = 0n;
  /** The owed checkpoint should also vacuum: rows were deleted (see openEventStore's max_vacuum_tasks). */
  private vacuumOwed = false;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private log: IngestLog | undefined;
  /** When the last batch was accepted (performance.now()): requests still arriving means cores busy decoding. */
  private lastAcceptAt = Number.NEGATIVE_INFINITY;
  /** DuckDB's threads as configured, and as set now (loads may lower it, see setLoadThreads). */
  private threads = 1;
  private threadsNow = 1;
  private threadsTimer: NodeJS.Timeout | undefined;
  private readonly loader: BatchLoader<PendingLoad>;
  private readonly extents: TableExtents;

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly pool: ConnectionPool,
    private readonly catalog: Map<string, CatalogEntry>,
    readonly stagingDir: string,
    private readonly settings: { memoryLimit: string; maxFieldsPerDataset: number; loadRows: number; loadLingerMs: number; loadConcurrency: number },
    private readonly onBackgroundError: (error: unknown) => void,
    private readonly onClosed: () => void,
    private readonly restage: Restage | undefined,
  ) {
    this.nextDatasetId = Math.max(0, ...[...catalog.values()].map((entry) => entry.id)) + 1;
    this.extents = new TableExtents(
      (table) => this.measureExtent(table),
      (error, table) => {
        // Measuring is only an optimisation: one cut off by shutdown, or by the drop of its table, is no fault.
        if (!this.closing && [...this.catalog.values()].some((entry) => entry.schema.table === table)) onBackgroundError(error);
      },
    );
    this.loader = new BatchLoader<PendingLoad>({
      load: (items) => this.load(items),
      afterLoad: async (items, loadedThrough) => {
        await Promise.all(items.flatMap((item) => [item.batch.file, ...(item.bodyFile ? [item.bodyFile] : [])]).map((file) => rm(file, { force: true })));
        await this.log?.release(loadedThrough);
      },
      onError: onBackgroundError,
      minRows: settings.loadRows,
      lingerMs: settings.loadLingerMs,
      maxRowsPerLoad: settings.loadRows * LOAD_MAX_FACTOR,
      maxWaitingRows: MAX_WAITING_ROWS,
      alignRows: DUCKDB_ROW_GROUP_ROWS,
      concurrency: settings.loadConcurrency,
    });
  }

  /** Loads, at open, the batches the log acknowledged that no load recorded, each in its own transaction with its position. */
  async replay(batches: readonly LoggedBatch[]): Promise<void> {
    for (const logged of batches) {
      const batch = this.restaged(logged);
      const { entry } = await this.ensureDataset(logged.dataset);
      const plan = this.plan(entry, batch);
      if (plan.catalogChanged) await this.changeSchema(entry, plan);
      await this.transaction(async (connection) => {
        await insertStaged(connection, entry.schema.table, [{ batch, firstRowId: logged.firstRowId }], plan);
        await recordLoadedThrough(connection, logged.seq);
      });
      const end = logged.firstRowId + BigInt(batch.count);
      if (end > entry.nextRowId) entry.nextRowId = end;
    }
  }

  /** Folds the loads' records into the log position, which everything up to `through` has reached. */
  async compactLoaded(through: bigint): Promise<void> {
    await this.transaction((connection) => compactLoaded(connection, through));
    this.compactedThrough = through;
  }

  /** A logged batch's staged file as it was: kept as is, or decoded again from the kept body. */
  private restaged(logged: LoggedBatch): StagedBatch {
    const where = `batch ${logged.seq} of dataset ${JSON.stringify(logged.dataset)}`;
    const kept = logged.source?.bodyFile ?? logged.batch.file;
    if (!existsSync(kept)) throw new Error(`The ingest log names ${kept} (${where}), which is missing; the log cannot be replayed safely.`);
    if (!logged.source) return logged.batch;
    if (!this.restage) throw new Error(`The ingest log keeps request bodies (${where}); open the store with a restage function (the service's decoder) to replay them.`);
    const batch = this.restage(readFileSync(logged.source.bodyFile), logged.source.recipe, logged.batch.file);
    if (batch.count !== logged.batch.count) {
      throw new Error(`Decoding the kept body of ${where} again gave ${batch.count} events, not the ${logged.batch.count} acknowledged; the log cannot be replayed safely.`);
    }
    return batch;
  }

  /** Reads DuckDB's configured thread count, which setLoadThreads returns to. */
  async readThreads(): Promise<void> {
    const rows = await this.pool.use(async (connection) => (await connection.runAndReadAll("SELECT current_setting('threads')")).getRowsJS());
    this.threads = Number(rows[0]?.[0] ?? 1);
    this.threadsNow = this.threads;
  }

  /** Starts the log after `nextSeq - 1`, the position timemark_ingest_log holds now. */
  startLog(nextSeq: bigint): void {
    this.compactedThrough = nextSeq - 1n;
    this.log = IngestLog.create(this.stagingDir, nextSeq);
    this.loader.startAfter(nextSeq - 1n);
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

  windowRows(table: string, start: bigint, end: bigint): KnownWindowRows | undefined {
    // A read loads what was accepted before it runs: with anything waiting, the version would change under it.
    return this.loader.idle && !this.closing ? this.extents.windowRows(table, start, end) : undefined;
  }

  unchangedSince(version: number): boolean {
    return this.extents.unchangedSince(version);
  }

  /** A table's extent, for TableExtents: DuckDB answers the count and mostly the bounds from its statistics. */
  private async measureExtent(table: string): Promise<Extent> {
    const time = quoteIdentifier(TIME_COLUMN);
    const sql = `SELECT count(*), min(${time}), max(${time}) FROM ${quoteIdentifier(table)}`;
    const rows = await this.readLoaded({ timeoutMs: EXTENT_TIMEOUT_MS, maxRows: 1 }, false, (run) => run(sql, []));
    const [count, first, last] = rows.columns.map((column) => column[0]);
    return { rows: Number(count), first: typeof first === 'bigint' ? first : 0n, last: typeof last === 'bigint' ? last : 0n };
  }

  readOne(budget: QueryBudget, sql: string, params: readonly SqlParam[]): Promise<QueryRows> {
    return this.budgetedRead(budget, false, (run) => run(sql, params));
  }

  private async budgetedRead<T>(budget: QueryBudget, transaction: boolean, work: (run: RunSql) => Promise<T>): Promise<T> {
    this.assertOpen();
    // Read-your-writes: whatever was acknowledged before this read is loaded before it runs.
    await this.loader.flush();
    if (this.threadsNow !== this.threads && this.loader.idle) await this.setLoadThreads(this.threads);
    return this.readLoaded(budget, transaction, work);
  }

  /** A budgeted read of what is loaded now, without waiting for anything accepted. */
  private readLoaded<T>(budget: QueryBudget, transaction: boolean, work: (run: RunSql) => Promise<T>): Promise<T> {
    const options = { memoryLimit: this.settings.memoryLimit, transaction, shutdown: this.shutdown.signal };
    return this.pool.use((connection) => readWithBudget(connection, this.pool.statements(connection), budget, options, work));
  }

  async check(): Promise<void> {
    this.assertOpen();
    // Every ingest stages its batch here first: a full or read-only disk shows up as this failing.
    await access(this.stagingDir, constants.W_OK).catch(() => {
      throw new Error(`the staging directory ${this.stagingDir} is not writable`);
    });
    this.log?.check();
    this.loader.check();
    await this.readLoaded({ timeoutMs: READY_CHECK_TIMEOUT_MS, maxRows: 1 }, false, (run) => run('SELECT 1', []));
  }

  resume(): void {
    this.loader.retryNow();
  }

  async createDataset(dataset: string): Promise<boolean> {
    this.assertOpen();
    return this.writes.exclusive(dataset, async () => (await this.ensureDataset(dataset)).created);
  }

  async append(dataset: string, batch: StagedBatch, source?: BatchSource): Promise<AppendResult> {
    const handover = { done: false };
    try {
      this.assertOpen();
      await this.loader.room();
      // Most batches bring no new field and no new type: they share the dataset's lock and are
      // accepted alongside each other. A batch that changes the schema waits to hold it alone.
      const shared = await this.writes.shared(dataset, async () => {
        const entry = this.catalog.get(dataset);
        if (!entry) return undefined;
        const plan = this.plan(entry, batch);
        return plan.catalogChanged ? undefined : this.accept(dataset, entry, batch, source, plan, handover);
      });
      if (shared) return shared;
      return await this.writes.exclusive(dataset, async () => {
        const { entry } = await this.ensureDataset(dataset);
        const plan = this.plan(entry, batch);
        if (plan.catalogChanged) await this.changeSchema(entry, plan);
        return this.accept(dataset, entry, batch, source, plan, handover);
      });
    } finally {
      if (!handover.done) await rm(batch.file, { force: true });
    }
  }

  async trim(dataset: string, beforeNs: bigint): Promise<number> {
    this.assertOpen();
    return this.writes.exclusive(dataset, async () => {
      const entry = this.catalog.get(dataset);
      if (!entry) return 0;
      await this.loader.flush();
      const deleted = await this.transaction(async (connection) => {
        // The newest rows may be among those deleted: record how far the numbering got, so it never restarts below.
        await connection.run('UPDATE timemark_datasets SET next_rowid = $1 WHERE id = $2', [entry.nextRowId, entry.id]);
        const result = await connection.run(`DELETE FROM ${quoteIdentifier(entry.schema.table)} WHERE ${quoteIdentifier(TIME_COLUMN)} < $1`, [beforeNs]);
        return Number(result.rowsChanged);
      });
      if (deleted > 0) {
        this.vacuumOwed = true;
        this.owesCheckpoint();
      }
      return deleted;
    });
  }

  async dropDataset(dataset: string): Promise<boolean> {
    this.assertOpen();
    return this.writes.exclusive(dataset, () =>
      this.writes.exclusive(DuckDBEventStore.CATALOG_KEY, async () => {
        const entry = this.catalog.get(dataset);
        if (!entry) return false;
        // Rows accepted before the drop are loaded first, so none can arrive in a table that is gone.
        await this.loader.flush();
        await this.transaction((connection) => dropDatasetTable(connection, entry));
        this.catalog.delete(dataset);
        this.extents.forget(entry.schema.table);
        this.owesCheckpoint();
        return true;
      }),
    );
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.shutdown.abort();
      await this.writes.drain();
      // What is still waiting is loaded now; if that fails it stays in the log for the next open.
      await this.loader.close();
      await this.log?.close();
      clearTimeout(this.checkpointTimer);
      clearTimeout(this.idleTimer);
      clearTimeout(this.threadsTimer);
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

  /** Applies a schema change, with the dataset's lock held alone. */
  private async changeSchema(entry: CatalogEntry, plan: SchemaPlan): Promise<void> {
    // Accepted batches were planned against the schema as it is: they are loaded before it changes.
    await this.loader.flush();
    await this.transaction((connection) => applySchemaChange(connection, entry, plan, convertStorage));
    entry.schema = { ...entry.schema, fields: plan.fields };
    entry.nextColumn = plan.nextColumn;
    this.owesCheckpoint();
  }

  /**
   * Makes the batch durable in the ingest log and hands it to the loader. Its `_rowid` range is
   * taken first, so concurrent appends number their rows apart; a failed append leaves a gap,
   * never a repeat. The log records the range, so a replay numbers the rows alike.
   */
  private async accept(
    dataset: string,
    entry: CatalogEntry,
    batch: StagedBatch,
    source: BatchSource | undefined,
    plan: SchemaPlan,
    handover: { done: boolean },
  ): Promise<AppendResult> {
    if (batch.count === 0) return { ingested: 0, failures: [], rowIdsIssued: entry.nextRowId };
    const log = this.log;
    if (!log) throw new StoreClosedError();
    const rejectedRows = plan.rejected.length > 0 ? await this.pool.use((connection) => readRejectedRows(connection, batch, plan.rejected)) : [];
    const firstRowId = entry.nextRowId;
    entry.nextRowId += BigInt(batch.count);
    this.lastAcceptAt = performance.now();
    await log.append(dataset, firstRowId, batch, source, (logged) => {
      handover.done = true;
      this.loader.add({ seq: logged.seq, rows: batch.count, entry, batch, firstRowId, plan, bodyFile: logged.source?.bodyFile });
    });
    const limit = this.settings.maxFieldsPerDataset;
    return {
      ingested: batch.count - rejectedRows.length,
      rowIdsIssued: entry.nextRowId,
      failures: rejectedRows.map((row) => ({
        index: row.index,
        timeNs: row.timeNs,
        error: `Dataset ${JSON.stringify(dataset)} has reached its limit of ${limit} fields, so the event's new field${row.fields.length > 1 ? 's' : ''} ${row.fields.map((field) => JSON.stringify(field)).join(', ')} cannot be added. Expected events that use the dataset's existing fields.`,
      })),
    };
  }

  /**
   * Loads run on one DuckDB thread each, side by side (see MAX_CONCURRENT_LOADS): DuckDB runs a
   * statement on the calling thread and its own workers, and the calling thread polls for work
   * whenever the others hold all of it (perf over an ingest burst put 15% of the service's CPU
   * in that loop's mutex lock and unlock), and a load's insert does not spread well over
   * threads. The setting is the instance's: it goes back to every thread once no load runs or
   * waits, before any read that finds the loader idle, or else by this timer. A query that
   * starts while loads run gets one thread.
   */
  private async setLoadThreads(threads: number): Promise<void> {
    clearTimeout(this.threadsTimer);
    if (threads !== this.threadsNow) {
      await this.pool.use((connection) => connection.run(`SET threads = ${Math.trunc(threads)}`));
      this.threadsNow = threads;
    }
    if (this.threadsNow !== this.threads) {
      this.threadsTimer = setTimeout(() => {
        if (this.closing) return;
        void this.setLoadThreads(this.loader.idle ? this.threads : 1).catch(this.onBackgroundError);
      }, THREADS_BACK_MS).unref();
    }
  }

  /** Whether requests are still arriving (a batch accepted within INGEST_BUSY_MS): the cores are busy decoding them. */
  private ingestBusy(): boolean {
    return performance.now() - this.lastAcceptAt < INGEST_BUSY_MS;
  }

  /**
   * Loads accepted batches in one transaction that records them as loaded: one statement per
   * group of batches that are laid out alike and go to the same table.
   */
  private async load(items: readonly PendingLoad[]): Promise<void> {
    const groups = new Map<string, PendingLoad[]>();
    for (const item of items) {
      const key = insertStatement(item.entry.schema.table, item.batch, item.plan);
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
    await this.setLoadThreads(1);
    await this.transaction(async (connection) => {
      for (const group of groups.values()) {
        const first = group[0] as PendingLoad;
        await insertStaged(connection, first.entry.schema.table, group, first.plan);
      }
      await recordLoaded(connection, items.map((item) => item.seq));
    });
    this.checkpointIfOwed();
    this.checkpointWhenIdle();
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
        await this.extents.commit(() => connection.run('COMMIT'));
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
    const vacuum = this.vacuumOwed;
    this.vacuumOwed = false;
    void this.pool
      .use(async (connection) => {
        if (!vacuum) return void (await connection.run('CHECKPOINT'));
        // The setting is the instance's: a checkpoint that runs meanwhile vacuums as well, which only costs it time.
        await connection.run(`SET max_vacuum_tasks = ${VACUUM_TASKS}`);
        try {
          await connection.run('CHECKPOINT');
        } finally {
          await connection.run('SET max_vacuum_tasks = 0');
        }
      })
      .catch((error: unknown) => {
        if (this.closing) return;
        this.checkpointOwed = true;
        this.vacuumOwed ||= vacuum;
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
    this.idleTimer = setTimeout(() => {
      // Not while a load runs or waits (a load longer than the quiet time used to set it off
      // mid-burst, where it failed and then ran between two loads); the last load sets it again.
      if (!this.loader.idle || this.ingestBusy() || this.closing) return;
      const through = this.loader.loadedThrough;
      const compacted = through > this.compactedThrough ? this.compactLoaded(through) : Promise.resolve();
      void compacted.then(() => this.owesCheckpoint(), this.onBackgroundError);
    }, IDLE_CHECKPOINT_MS).unref();
  }

  private assertOpen(): void {
    if (this.closing) throw new StoreClosedError();
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
