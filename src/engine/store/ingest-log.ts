import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UnavailableError } from '../../common/errors.js';
import type { StagedBatch, StagedPart } from './staged-batch.js';

/**
 * Timemark's own ingest log: what makes an ingest durable before DuckDB has loaded it.
 *
 * A batch's staged file stays where the decoder wrote it (in the log directory) and one JSON
 * line describing it is appended to the current segment (`log-<first seq>.jsonl`). What is made
 * durable is the smaller of two things that can restore the batch: the request body as it came
 * (often a tenth of the decoded size: gzip), kept in a file of its own with the recipe to decode
 * it again, or else the staged file itself. A batch is acknowledged once that file, the directory
 * entry naming it and its line are on disk. The store
 * loads acknowledged batches into DuckDB later, many per transaction, and records in that same
 * transaction the sequence number it loaded through; at open, the lines past that number are
 * loaded again — so a crash at any moment loses nothing acknowledged and loads nothing twice.
 *
 * Appends that arrive while a write is in flight are written together with one fsync (group
 * commit): the cost of durability is paid per group, not per request.
 */

/** What the log keeps of one batch: enough to load it after a restart exactly as it would have been loaded. */
export interface LoggedBatch {
  readonly seq: bigint;
  readonly dataset: string;
  /** `_rowid` of the batch's first event, reserved when it was accepted. */
  readonly firstRowId: bigint;
  readonly batch: StagedBatch;
  /** The request body kept instead of the staged file: decoding it again with `recipe` gives the batch. */
  readonly source?: { readonly bodyFile: string; readonly recipe: unknown };
}

/** What an ingest was decoded from: the body as received and what decoding it again needs (JSON). */
export interface BatchSource {
  readonly body: Uint8Array;
  readonly recipe: unknown;
}

/** A segment is closed and a new one begun past this size; closed segments are deleted once loaded. */
const SEGMENT_BYTES = 8 * 1024 * 1024;
const SEGMENT_PATTERN = /^log-(\d+)\.jsonl$/;

interface LogLine {
  seq: string;
  dataset: string;
  firstRowId: string;
  file: string;
  count: number;
  maxLineBytes: number;
  parts: StagedPart[];
  sysTimeNs: string;
  raw?: StagedBatch['raw'];
  body?: string;
  recipe?: unknown;
}

interface Waiting {
  readonly dataset: string;
  readonly firstRowId: bigint;
  readonly batch: StagedBatch;
  readonly source: LoggedBatch['source'];
  readonly onDurable: (entry: LoggedBatch) => void;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** The log's directory read at open: the batches it holds, in sequence order, and the next free number. */
export interface RecoveredLog {
  readonly batches: readonly LoggedBatch[];
  readonly nextSeq: bigint;
}

/**
 * Reads every segment in `dir` (creating it if needed). A line cut short at the very end of the
 * newest segment is a write that was never acknowledged and is ignored; any other unreadable
 * line is damage the store must not paper over.
 */
export function recoverLog(dir: string): RecoveredLog {
  mkdirSync(dir, { recursive: true });
  const segments = readdirSync(dir)
    .map((name) => ({ name, first: SEGMENT_PATTERN.exec(name)?.[1] }))
    .filter((segment): segment is { name: string; first: string } => segment.first !== undefined)
    .sort((a, b) => (BigInt(a.first) < BigInt(b.first) ? -1 : 1));
  const batches: LoggedBatch[] = [];
  let nextSeq = 1n;
  for (const [position, segment] of segments.entries()) {
    const text = readFileSync(join(dir, segment.name), 'utf8');
    const lines = text.split('\n');
    for (const [index, line] of lines.entries()) {
      if (line === '') continue;
      const last = position === segments.length - 1 && index === lines.length - 1;
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line) as LogLine;
      } catch (error) {
        if (last) break;
        throw new Error(`The ingest log ${join(dir, segment.name)} is damaged at line ${index + 1}; it cannot be replayed safely. Move the data dir aside and restore it from a backup.`, {
          cause: error,
        });
      }
      const entry = fromLine(dir, parsed);
      batches.push(entry);
      if (entry.seq >= nextSeq) nextSeq = entry.seq + 1n;
    }
  }
  return { batches, nextSeq };
}

/** Deletes everything in the log directory: segments and staged files (called once all of it is loaded). */
export function clearLogDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
}

export class IngestLog {
  private readonly waiting: Waiting[] = [];
  private writing = false;
  private writer: Promise<void> | undefined;
  private segment: { handle: FileHandle; first: bigint; bytes: number } | undefined;
  /** Closed segments and the last sequence number each holds, oldest first. */
  private readonly closedSegments: { file: string; last: bigint }[] = [];
  private broken: Error | undefined;

  private constructor(
    readonly dir: string,
    private nextSeq: bigint,
  ) {}

  /** Starts a log in `dir` that numbers batches from `nextSeq` (the directory holds no segment yet). */
  static create(dir: string, nextSeq: bigint): IngestLog {
    mkdirSync(dir, { recursive: true });
    return new IngestLog(dir, nextSeq);
  }

  /**
   * Makes a staged batch durable. `onDurable` runs synchronously once the batch is on disk, in
   * sequence order across all appends, before the promise resolves; the caller hands the batch
   * to the loader there, so the loader sees batches in the order of their numbers.
   */
  async append(dataset: string, firstRowId: bigint, batch: StagedBatch, source: BatchSource | undefined, onDurable: (entry: LoggedBatch) => void): Promise<void> {
    if (dirname(batch.file) !== this.dir) throw new Error(`A staged batch must be written in the ingest log's directory ${this.dir}, not at ${batch.file}.`);
    if (this.broken) throw this.broken;
    // The bytes first, concurrently with other appends; the names and the log line follow in the group.
    let kept: LoggedBatch['source'];
    if (source) {
      const bodyFile = join(this.dir, `${randomUUID()}.body`);
      kept = { bodyFile, recipe: source.recipe };
      await writeDurably(bodyFile, source.body).catch(async (error: unknown) => {
        await rm(bodyFile, { force: true });
        throw error;
      });
    } else {
      await syncToDisk(batch.file, 'data');
    }
    await new Promise<void>((resolve, reject) => {
      this.waiting.push({ dataset, firstRowId, batch, source: kept, onDurable, resolve, reject });
      if (!this.writing) this.writer = this.writeGroups();
    });
  }

  /** Deletes closed segments whose batches are all loaded (through `loadedSeq`). */
  async release(loadedSeq: bigint): Promise<void> {
    while (this.closedSegments.length > 0 && (this.closedSegments[0] as { last: bigint }).last <= loadedSeq) {
      const { file } = this.closedSegments.shift() as { file: string };
      await rm(file, { force: true });
    }
  }

  /** Throws when the log can no longer be written (see writeGroups). */
  check(): void {
    if (this.broken) throw this.broken;
  }

  async close(): Promise<void> {
    await this.writer;
    await this.segment?.handle.close();
    this.segment = undefined;
  }

  private async writeGroups(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0);
        try {
          if (this.broken) throw this.broken;
          await this.writeGroup(group);
        } catch (error) {
          for (const waiting of group) waiting.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async writeGroup(group: readonly Waiting[]): Promise<void> {
    const segment = await this.currentSegment();
    // The staged files were created since the last group: their names become durable with the directory.
    await syncToDisk(this.dir, 'entries');
    const entries = group.map(
      (waiting, index): LoggedBatch => ({
        seq: this.nextSeq + BigInt(index),
        dataset: waiting.dataset,
        firstRowId: waiting.firstRowId,
        batch: waiting.batch,
        ...(waiting.source ? { source: waiting.source } : {}),
      }),
    );
    const bytes = Buffer.from(entries.map((entry) => `${JSON.stringify(toLine(entry))}\n`).join(''), 'utf8');
    try {
      await segment.handle.write(bytes, 0, bytes.length, segment.bytes);
      await segment.handle.datasync();
    } catch (error) {
      // Cut the segment back to what was durable before, so a later group never follows a torn
      // line; if even that fails, nothing more may be acknowledged until a restart recovers.
      try {
        await segment.handle.truncate(segment.bytes);
        await segment.handle.datasync();
      } catch (truncateError) {
        this.broken = new UnavailableError(`The ingest log ${this.dir} could not be written or repaired; restart the service to recover it.`, {
          code: 'ingest_log_broken',
          cause: truncateError,
        });
      }
      throw error;
    }
    segment.bytes += bytes.length;
    this.nextSeq += BigInt(entries.length);
    for (const [index, entry] of entries.entries()) (group[index] as Waiting).onDurable(entry);
    for (const waiting of group) waiting.resolve();
    if (segment.bytes >= SEGMENT_BYTES) {
      this.closedSegments.push({ file: segmentFile(this.dir, segment.first), last: this.nextSeq - 1n });
      this.segment = undefined;
      await segment.handle.close();
    }
  }

  private async currentSegment(): Promise<{ handle: FileHandle; first: bigint; bytes: number }> {
    if (!this.segment) {
      // Its name becomes durable with the directory sync that precedes the first write into it.
      const handle = await open(segmentFile(this.dir, this.nextSeq), 'wx');
      this.segment = { handle, first: this.nextSeq, bytes: 0 };
    }
    return this.segment;
  }
}

function segmentFile(dir: string, first: bigint): string {
  return join(dir, `log-${first}.jsonl`);
}

/** Flushes a file's bytes (`data`: fdatasync) or a directory's entries (fsync) to the disk. */
async function syncToDisk(path: string, what: 'data' | 'entries'): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await (what === 'data' ? handle.datasync() : handle.sync());
  } finally {
    await handle.close();
  }
}

async function writeDurably(file: string, bytes: Uint8Array): Promise<void> {
  const handle = await open(file, 'wx');
  try {
    await handle.writeFile(bytes);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

function toLine(entry: LoggedBatch): LogLine {
  const { batch } = entry;
  return {
    seq: String(entry.seq),
    dataset: entry.dataset,
    firstRowId: String(entry.firstRowId),
    file: basename(batch.file),
    count: batch.count,
    maxLineBytes: batch.maxLineBytes,
    parts: [...batch.parts],
    sysTimeNs: String(batch.sysTimeNs),
    ...(batch.raw ? { raw: batch.raw } : {}),
    ...(entry.source ? { body: basename(entry.source.bodyFile), recipe: entry.source.recipe } : {}),
  };
}

function fromLine(dir: string, line: LogLine): LoggedBatch {
  return {
    seq: BigInt(line.seq),
    dataset: line.dataset,
    firstRowId: BigInt(line.firstRowId),
    batch: {
      file: join(dir, line.file),
      count: line.count,
      maxLineBytes: line.maxLineBytes,
      parts: line.parts,
      sysTimeNs: BigInt(line.sysTimeNs),
      ...(line.raw ? { raw: line.raw } : {}),
    },
    ...(line.body === undefined ? {} : { source: { bodyFile: join(dir, line.body), recipe: line.recipe } }),
  };
}
