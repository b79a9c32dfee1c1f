import type { StagedBatch } from '../store/staged-batch.js';
import { BatchWriter, TIME_FIELD, type IngestFailure } from './batch-writer.js';
import { decompressBody } from './decompress.js';
import { ingestError } from './errors.js';
import { readCsv, readJson, readNdjson } from './formats.js';
import { parseGoLayout } from './go-layout.js';
import { INGEST_LIMITS, type IngestLimits } from './limits.js';
import type { IngestOptions } from './options.js';
import { stageRawNdjson } from './raw-ndjson.js';

export interface DecodedBody {
  /** The events that decoded, staged for the store. */
  readonly batch: StagedBatch;
  /** Events that could not be decoded, in body order. */
  readonly failures: readonly IngestFailure[];
  /** Bytes of the body once decompressed. */
  readonly processedBytes: number;
  /** `raw` when DuckDB reads the body's own lines (raw-ndjson.ts), `decoder` when JavaScript decoded it. */
  readonly path: 'raw' | 'decoder';
}

export interface DecodeContext {
  /** Where to write the staged batch (inside the store's staging directory). */
  readonly file: string;
  /** Ingest time, epoch ms. */
  readonly nowMs: number;
  readonly limits?: IngestLimits;
  /** Whether an NDJSON body may take the raw path when it can be taken exactly; default true. */
  readonly raw?: boolean;
}

/**
 * Decodes a request body (as received: possibly compressed) into a staged batch. Throws an
 * ingest error (see errors.ts) when the body as a whole cannot be read; single events that cannot be stored
 * become failures. Invalid UTF-8 is read with replacement characters, as the hosted service does.
 */
export function decodeBody(body: Uint8Array, options: IngestOptions, context: DecodeContext): DecodedBody {
  const limits = context.limits ?? INGEST_LIMITS;
  const bytes = decompressBody(body, options.encoding, limits.maxBodyBytes);
  // The raw path flattens every object; map fields need the decoder, which keeps theirs whole.
  const raw = context.raw !== false && options.format === 'ndjson' && options.timestampField === TIME_FIELD && options.timestampFormat === undefined && options.labels === undefined;
  if (raw && (options.mapFields === undefined || options.mapFields.length === 0)) {
    const batch = stageRawNdjson(bytes, { file: context.file, nowMs: context.nowMs, limits });
    if (batch) return { batch, failures: [], processedBytes: bytes.byteLength, path: 'raw' };
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const writer = new BatchWriter({
    file: context.file,
    nowMs: context.nowMs,
    timestampField: options.timestampField,
    timestampLayout: options.timestampFormat === undefined ? undefined : parseGoLayout(options.timestampFormat),
    timestampFormat: options.timestampFormat,
    labels: options.labels,
    mapFields: options.mapFields,
    limits,
  });
  let events = 0;
  const countEvent = (): void => {
    if (++events > limits.maxEventsPerRequest) {
      throw ingestError('too_large',
        'too_many_events',
        `The request has more than ${limits.maxEventsPerRequest} events. Expected at most ${limits.maxEventsPerRequest} events per request: split them into several requests.`,
      );
    }
  };
  if (options.format === 'ndjson') readNdjson(text, writer, countEvent);
  else if (options.format === 'json') readJson(text, writer, countEvent);
  else readCsv(text, options.csvDelimiter, options.csvFields, writer, countEvent);
  return { batch: writer.finish(), failures: writer.failures, processedBytes: bytes.byteLength, path: 'decoder' };
}
