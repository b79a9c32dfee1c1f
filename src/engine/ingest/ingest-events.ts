import type { AppendResult, EventStore } from '../store/event-store.js';
import { BatchWriter, type IngestFailure } from './batch-writer.js';
import { parseGoLayout } from './go-layout.js';
import { INGEST_LIMITS } from './limits.js';
import { stagingFile } from './staging-file.js';

export interface IngestEventsOptions {
  /** Ingest time (`_sysTime`, and `_time` of events without one), epoch ms; default now. */
  nowMs?: number;
  timestampField?: string;
  timestampFormat?: string;
  labels?: Record<string, unknown>;
  /** The dataset's map fields, whose objects are kept whole (BatchWriterOptions.mapFields). */
  mapFields?: readonly string[];
}

/**
 * Ingests already-parsed events (plain JSON-like objects, and TimespanValue for durations) in
 * this process, through the same flattening, time and naming rules as the HTTP endpoints, and
 * keeps the staged batch itself in the ingest log (no body to decode again). For the OTLP
 * endpoints (whose records are converted in this process), tests, fixtures and tools; the
 * ingest endpoints decode request bodies in their worker instead.
 */
export async function ingestEvents(
  store: EventStore,
  dataset: string,
  events: Iterable<unknown>,
  options: IngestEventsOptions = {},
): Promise<AppendResult & { decodeFailures: readonly IngestFailure[] }> {
  const writer = new BatchWriter({
    file: stagingFile(store.stagingDir),
    nowMs: options.nowMs ?? Date.now(),
    timestampField: options.timestampField ?? '_time',
    timestampLayout: options.timestampFormat === undefined ? undefined : parseGoLayout(options.timestampFormat),
    timestampFormat: options.timestampFormat,
    labels: options.labels,
    mapFields: options.mapFields,
    limits: INGEST_LIMITS,
  });
  let index = 0;
  for (const event of events) writer.add(event, `event ${++index}`);
  const result = await store.append(dataset, writer.finish());
  return { ...result, decodeFailures: writer.failures };
}
