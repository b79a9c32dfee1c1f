import { UnavailableError } from '../../common/errors.js';

/**
 * Loads acknowledged batches into DuckDB in large transactions.
 *
 * DuckDB's cost per event falls steeply with the rows per commit (bench/README.md, "rows per
 * commit": about 15 µs of CPU per event at 10,000 rows, 8–9 µs at 100,000), and a commit per
 * request can never be large, since a request holds at most 10,000 events. So requests are
 * acknowledged once the ingest log holds them (ingest-log.ts) and this loader gathers what is
 * waiting: a load starts when `minRows` are waiting, `lingerMs` after the oldest arrived, or at
 * once when someone needs the data (`flush`: every read, schema change, trim and drop).
 *
 * Up to `concurrency` loads run at once, each in its own transaction that records which batches
 * it loaded (the `load` callback does that): DuckDB appends of separate transactions to one
 * table do not conflict, and two one-thread loads side by side cost no more CPU than one after
 * the other, where one load on two threads costs half as much again (bench/README.md,
 * "concurrent loads"). Loads take batches in sequence order but may finish in any order: what
 * counts as loaded for readers and for the log is everything below the oldest batch still
 * waiting or loading.
 */

export interface Loadable {
  readonly seq: bigint;
  readonly rows: number;
}

export interface BatchLoaderOptions<T extends Loadable> {
  /** Loads the items in one transaction that also records them as loaded. */
  readonly load: (items: readonly T[]) => Promise<void>;
  /** Runs after a load committed (deleting its files), with the seq everything up to which is loaded; errors go to onError. */
  readonly afterLoad: (items: readonly T[], loadedThrough: bigint) => Promise<void>;
  readonly onError: (error: unknown) => void;
  /** A load starts without waiting once this many rows are waiting. */
  readonly minRows: number;
  /** How long the oldest waiting batch may wait for others before a load starts anyway. */
  readonly lingerMs: number;
  /** Most rows in one load (DuckDB holds a transaction's rows in memory until it commits). */
  readonly maxRowsPerLoad: number;
  /** Past this many waiting rows, `room()` holds new ingests back until a load catches up. */
  readonly maxWaitingRows: number;
  /** Loads prefer row counts just past a multiple of this (DuckDB's row group size; see loadSize). */
  readonly alignRows?: number;
  /** Loads that may run at once (1 by default). */
  readonly concurrency?: number;
}

/** Why waiting data could not be loaded; reads and new ingests fail with it until a retry succeeds. */
export class LoadFailedError extends UnavailableError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: 'events_load_failed', cause });
  }
}

const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 10_000;

export class BatchLoader<T extends Loadable> {
  /** Batches no load has taken yet, in seq order. */
  private queue: T[] = [];
  /** Batches of the loads running now. */
  private readonly loading = new Set<readonly T[]>();
  private readonly running = new Set<Promise<void>>();
  /** Rows waiting or loading. */
  private waitingRows = 0;
  private lastSeq = 0n;
  private loadedSeq = 0n;
  private lingerTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_FIRST_MS;
  private failure: LoadFailedError | undefined;
  private readonly flushers: { seq: bigint; resolve: () => void; reject: (error: Error) => void }[] = [];
  private readonly roomWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private closed = false;

  constructor(private readonly options: BatchLoaderOptions<T>) {}

  /** Numbers already loaded before this loader started (from the database), so flushes resolve from there. */
  startAfter(loadedSeq: bigint): void {
    this.loadedSeq = loadedSeq;
    this.lastSeq = loadedSeq;
  }

  /** Everything added up to this seq is loaded. */
  get loadedThrough(): bigint {
    return this.loadedSeq;
  }

  /** Takes an acknowledged batch; items must arrive in increasing seq order. */
  add(item: T): void {
    if (item.seq <= this.lastSeq) throw new Error(`Batch ${item.seq} arrived after batch ${this.lastSeq}; the loader needs them in order.`);
    this.lastSeq = item.seq;
    this.queue.push(item);
    this.waitingRows += item.rows;
    this.kick();
  }

  /** Resolves once everything added so far is loaded; rejects while loads are failing. */
  flush(): Promise<void> {
    if (this.loadedSeq >= this.lastSeq) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.lastSeq;
    const done = new Promise<void>((resolve, reject) => this.flushers.push({ seq, resolve, reject }));
    this.kick();
    return done;
  }

  /** Resolves when there is room for more waiting rows (backpressure). */
  room(): Promise<void> {
    if (this.waitingRows <= this.options.maxWaitingRows) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.roomWaiters.push({ resolve, reject }));
  }

  /** Throws while loads are failing (readiness). */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /** Retries a failed load now rather than after its pause: its cause is known to have gone. */
  retryNow(): void {
    if (!this.retryTimer) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.start();
  }

  /** Whether no load runs and nothing waits (true already while the last load's flushers resolve). */
  get idle(): boolean {
    return this.loading.size === 0 && this.queue.length === 0;
  }

  /** Batches and rows waiting or loading. */
  get waiting(): { batches: number; rows: number } {
    let batches = this.queue.length;
    for (const items of this.loading) batches += items.length;
    return { batches, rows: this.waitingRows };
  }

  /** Loads everything waiting, then stops (on a failing load it stops at once; what remains is replayed at the next open). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.lingerTimer);
    clearTimeout(this.retryTimer);
    await Promise.all(this.running);
    this.failure = undefined;
    // One load takes at most maxRowsPerLoad: as many as it takes, until none is left or one fails.
    while (this.queue.length > 0 && !this.failure) {
      this.start();
      await Promise.all(this.running);
    }
    const error = this.failure ?? new LoadFailedError('The event store closed before these events were loaded; they load at the next start.');
    for (const waiter of this.flushers.splice(0)) waiter.reject(error);
    for (const waiter of this.roomWaiters.splice(0)) waiter.reject(error);
  }

  private kick(): void {
    if (this.retryTimer || this.queue.length === 0 || this.closed) return;
    while (this.running.size < (this.options.concurrency ?? 1) && this.queue.length > 0) {
      if (this.flushers.length === 0 && this.queuedRows() < this.options.minRows) break;
      this.start();
    }
    if (this.queue.length === 0 || this.running.size > 0) return;
    this.lingerTimer ??= setTimeout(() => {
      this.lingerTimer = undefined;
      this.start();
    }, this.options.lingerMs);
    this.lingerTimer.unref();
  }

  /** Rows of the batches no load has taken yet. */
  private queuedRows(): number {
    let rows = 0;
    for (const item of this.queue) rows += item.rows;
    return rows;
  }

  /** Starts a load of the batches at the head of the queue (if another may run). */
  private start(): void {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    if (this.running.size >= (this.options.concurrency ?? 1) || this.queue.length === 0) return;
    const { count, rows } = this.loadSize();
    const items = this.queue.splice(0, count);
    this.loading.add(items);
    const run = this.run(items, rows).finally(() => {
      this.running.delete(run);
      this.kick();
    });
    this.running.add(run);
  }

  /**
   * How many batches from the head of the queue the next load takes: as many as fit in
   * maxRowsPerLoad, except that among the counts that fill at least one whole `alignRows` group
   * it takes the one leaving the smallest part of its rows in a partial group (DuckDB writes full
   * row groups straight to the file; the rest goes through the WAL and a checkpoint).
   */
  private loadSize(): { count: number; rows: number } {
    const align = this.options.alignRows;
    const limit = this.options.maxRowsPerLoad;
    let best = { count: 0, rows: 0, waste: Number.POSITIVE_INFINITY };
    let rows = 0;
    for (let count = 1; count <= this.queue.length; count++) {
      const next = rows + (this.queue[count - 1] as T).rows;
      if (count > 1 && next > limit) break;
      rows = next;
      const waste = align && rows >= align ? (rows % align) / rows : Number.POSITIVE_INFINITY;
      if (waste <= best.waste) best = { count, rows, waste };
    }
    return best;
  }

  private async run(items: readonly T[], rows: number): Promise<void> {
    try {
      await this.options.load(items);
    } catch (error) {
      this.loading.delete(items);
      this.failed(items, error);
      return;
    }
    this.loading.delete(items);
    this.failure = undefined;
    this.retryMs = RETRY_FIRST_MS;
    this.waitingRows -= rows;
    this.loadedSeq = this.oldestPending() - 1n;
    for (let i = this.flushers.length - 1; i >= 0; i--) {
      const flusher = this.flushers[i] as (typeof this.flushers)[number];
      if (flusher.seq > this.loadedSeq) continue;
      this.flushers.splice(i, 1);
      flusher.resolve();
    }
    if (this.waitingRows <= this.options.maxWaitingRows) for (const waiter of this.roomWaiters.splice(0)) waiter.resolve();
    await this.options.afterLoad(items, this.loadedSeq).catch(this.options.onError);
  }

  /** The seq of the oldest batch waiting or loading; one past the last added when there is none. */
  private oldestPending(): bigint {
    let oldest = this.lastSeq + 1n;
    const head = this.queue[0];
    if (head && head.seq < oldest) oldest = head.seq;
    for (const items of this.loading) {
      const first = items[0];
      if (first && first.seq < oldest) oldest = first.seq;
    }
    return oldest;
  }

  /**
   * The batches stay first in line and the load is retried with a growing pause. Meanwhile
   * whoever waits for them is told why, rather than left hanging: the events are safe in the
   * log, but not yet readable.
   */
  private failed(items: readonly T[], error: unknown): void {
    // Back in line, in seq order: loads that started later may have failed first.
    this.queue = [...items, ...this.queue].sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
    this.options.onError(error);
    const message = error instanceof Error ? error.message : String(error);
    this.failure = new LoadFailedError(`Acknowledged events could not be loaded into the event store yet (retrying): ${message}`, error);
    for (const waiter of this.flushers.splice(0)) waiter.reject(this.failure);
    for (const waiter of this.roomWaiters.splice(0)) waiter.reject(this.failure);
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.start();
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }
}
