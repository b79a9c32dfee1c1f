import { parse as parseCsv } from 'csv-parse';
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { InputError } from '../../common/errors.js';

export type InputFormat = 'ndjson' | 'json' | 'csv';

export const INPUT_FORMATS: readonly InputFormat[] = ['ndjson', 'json', 'csv'];

/** One file to read, or standard input (`-`). */
export interface InputSource {
  readonly name: string;
  readonly format: InputFormat;
  /** Bytes on disk, when known: the progress bar's 100%. */
  readonly size: number | undefined;
  open(): Readable;
}

/** A request's worth of events, as text in the wire format of its kind. */
export interface Batch {
  readonly body: string;
  readonly contentType: 'application/x-ndjson' | 'text/csv';
  readonly events: number;
  /** Where the events came from, for messages: `app.ndjson, lines 1–5000`. */
  readonly origin: string;
}

/** A batch also stays below this many characters, far under the service's body limit. */
const MAX_BATCH_CHARS = 8 * 1024 * 1024;

const EXTENSIONS: Readonly<Record<string, InputFormat>> = { ndjson: 'ndjson', jsonl: 'ndjson', json: 'json', csv: 'csv' };

/** The source for a path (`-` is standard input); the format from `--format`, else the extension (`.gz` aside). */
export function inputSource(path: string, format: InputFormat | undefined, stdin: () => Readable): InputSource {
  if (path === '-') return { name: 'standard input', format: format ?? 'ndjson', size: undefined, open: stdin };
  const extension = /\.([a-z]+)(?:\.gz)?$/i.exec(path)?.[1]?.toLowerCase();
  const chosen = format ?? (extension ? EXTENSIONS[extension] : undefined);
  if (!chosen) {
    throw new InputError(`Cannot tell the format of ${JSON.stringify(path)} from its name. Expected a .ndjson, .jsonl, .json or .csv file (optionally .gz), or --format ndjson|json|csv.`);
  }
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw new InputError(`Cannot read ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}. Expected a readable file.`);
  }
  return { name: path, format: chosen, size, open: () => createReadStream(path) };
}

/**
 * The source's batches of at most `batchSize` events. Gzip input is recognised by its first
 * bytes, whatever the name. `onBytes` reports bytes read from the source (before decompression).
 */
export async function* readBatches(source: InputSource, batchSize: number, delimiter: string, onBytes: (bytes: number) => void): AsyncGenerator<Batch> {
  const raw = source.open();
  raw.on('data', (chunk: Buffer) => onBytes(chunk.length));
  const chunks = await decompressed(raw);
  if (source.format === 'ndjson') yield* ndjsonBatches(source, chunks, batchSize);
  else if (source.format === 'json') yield* jsonBatches(source, chunks, batchSize);
  else yield* csvBatches(source, chunks, batchSize, delimiter);
}

async function decompressed(stream: Readable): Promise<AsyncIterable<Buffer>> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await iterator.next();
  const rest = async function* (): AsyncGenerator<Buffer> {
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  };
  const gzip = !first.done && first.value[0] === 0x1f && first.value[1] === 0x8b;
  return gzip ? Readable.from(rest()).pipe(createGunzip()) : rest();
}

async function* ndjsonBatches(source: InputSource, chunks: AsyncIterable<Buffer>, batchSize: number): AsyncGenerator<Batch> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let lines: string[] = [];
  let events = 0;
  let chars = 0;
  let lineNumber = 0;
  let firstLine = 1;
  const flush = (): Batch => {
    const batch: Batch = { body: `${lines.join('\n')}\n`, contentType: 'application/x-ndjson', events, origin: `${source.name}, lines ${firstLine}–${lineNumber}` };
    lines = [];
    events = 0;
    chars = 0;
    firstLine = lineNumber + 1;
    return batch;
  };
  const take = function* (line: string): Generator<Batch> {
    lineNumber++;
    // Blank lines travel too, so the service's line numbers count from the batch's first line.
    lines.push(line);
    chars += line.length + 1;
    if (line.trim() !== '') events++;
    if (events >= batchSize || chars >= MAX_BATCH_CHARS) yield flush();
  };
  for await (const chunk of chunks) {
    pending += decoder.write(chunk);
    let newline = pending.indexOf('\n');
    let start = 0;
    while (newline !== -1) {
      yield* take(pending.slice(start, newline).replace(/\r$/, ''));
      start = newline + 1;
      newline = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending !== '') yield* take(pending.replace(/\r$/, ''));
  if (events > 0) yield flush();
}

async function* jsonBatches(source: InputSource, chunks: AsyncIterable<Buffer>, batchSize: number): AsyncGenerator<Batch> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch (error) {
    throw new InputError(`${source.name} is not valid JSON (${(error as Error).message}). Expected an array of event objects; for one event per line, use a .ndjson file or --format ndjson.`);
  }
  const events = Array.isArray(value) ? value : [value];
  for (let start = 0; start < events.length; start += batchSize) {
    const slice = events.slice(start, start + batchSize);
    yield {
      body: `${slice.map((event) => JSON.stringify(event) ?? 'null').join('\n')}\n`,
      contentType: 'application/x-ndjson',
      events: slice.length,
      origin: `${source.name}, events ${start + 1}–${start + slice.length}`,
    };
  }
}

async function* csvBatches(source: InputSource, chunks: AsyncIterable<Buffer>, batchSize: number, delimiter: string): AsyncGenerator<Batch> {
  const parser = Readable.from(chunks).pipe(parseCsv({ raw: true, bom: true, delimiter, relax_column_count: true, skip_empty_lines: true }));
  let header: string | undefined;
  let rows: string[] = [];
  let chars = 0;
  let firstRow = 2;
  let rowNumber = 1;
  const flush = (): Batch => {
    const batch: Batch = { body: `${header}\n${rows.join('\n')}\n`, contentType: 'text/csv', events: rows.length, origin: `${source.name}, rows ${firstRow}–${rowNumber}` };
    rows = [];
    chars = 0;
    firstRow = rowNumber + 1;
    return batch;
  };
  try {
    for await (const { raw } of parser as AsyncIterable<{ raw: string }>) {
      // The header row starts every batch, so each request stands on its own.
      const text = raw.replace(/\r?\n?$/, '').replace(/\r$/, '');
      if (header === undefined) {
        header = text;
        continue;
      }
      rowNumber++;
      rows.push(text);
      chars += text.length + 1;
      if (rows.length >= batchSize || chars >= MAX_BATCH_CHARS) yield flush();
    }
  } catch (error) {
    throw new InputError(`${source.name} is not valid CSV: ${(error as Error).message} Expected RFC 4180 CSV with a header row, fields separated by ${JSON.stringify(delimiter)}.`);
  }
  if (rows.length > 0) yield flush();
}
