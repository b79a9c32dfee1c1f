import type { BatchSource } from '../store/ingest-log.js';
import type { StagedBatch } from '../store/staged-batch.js';
import { decodeBody } from './decode.js';
import type { IngestLimits } from './limits.js';
import type { IngestOptions } from './options.js';

/**
 * What the ingest log keeps of a request besides its body: everything decoding depends on. The
 * decoder is a pure function of these and the body, so decoding them again after a crash stages
 * exactly the batch that was acknowledged (same events, times, `_sysTime` and failures).
 */
interface IngestRecipe {
  readonly options: IngestOptions;
  readonly nowMs: number;
  readonly limits: IngestLimits;
}

/** The body and recipe of one ingest request, for `EventStore.append`. */
export function ingestSource(body: Uint8Array, options: IngestOptions, nowMs: number, limits: IngestLimits): BatchSource {
  const recipe: IngestRecipe = { options, nowMs, limits };
  return { body, recipe };
}

/** The store's `restage`: decodes a kept body again, on the thread that opens the store (only at start-up). */
export function restageBody(body: Uint8Array, recipe: unknown, file: string): StagedBatch {
  const { options, nowMs, limits } = recipe as IngestRecipe;
  return decodeBody(body, options, { file, nowMs, limits }).batch;
}
