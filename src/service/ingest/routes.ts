import { Router, type Request, type Response } from 'express';
import { rm } from 'node:fs/promises';
import { InputError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { formatTime } from '../../common/time.js';
import type { DecodePool } from '../../engine/ingest/decode-pool.js';
import { INGEST_LIMITS, type IngestLimits } from '../../engine/ingest/limits.js';
import { parseIngestOptions, withMapFields } from '../../engine/ingest/options.js';
import { ingestSource } from '../../engine/ingest/restage.js';
import { stagingFile } from '../../engine/ingest/staging-file.js';
import type { EventStore } from '../../engine/store/event-store.js';
import type { Datasets } from '../datasets/datasets.js';
import { DATASET_NAME_PATTERN, INVALID_DATASET_NAME } from '../datasets/routes.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { readRawBody } from './raw-body.js';

export interface IngestRouteDeps {
  datasets: Datasets;
  events: EventStore;
  decoder: DecodePool;
  metrics: ServiceMetrics;
  clock: () => number;
  who: string;
  limits?: IngestLimits;
}

/** The ingest reply, exactly as the hosted service shapes it. */
export interface IngestReply {
  ingested: number;
  failed: number;
  failures: { timestamp: string; error: string }[];
  processedBytes: number;
  blocksCreated: 0;
  walLength: number;
}

/**
 * `POST /v1/datasets/{dataset}/ingest` and `POST /v1/ingest/{dataset}`: the body is read as
 * sent, decoded on a worker thread into a staged batch, and handed to the store with the body
 * itself. The reply is sent only once the store's ingest log holds the body on disk (the store
 * loads the batch into DuckDB soon after, and before any read), so every event counted as
 * ingested is durable.
 */
export function createIngestRoutes(deps: IngestRouteDeps): Router {
  const limits = deps.limits ?? INGEST_LIMITS;
  const router = Router();

  const ingest = async (req: Request, res: Response): Promise<void> => {
    const dataset = String(req.params.dataset);
    if (!DATASET_NAME_PATTERN.test(dataset)) throw new InputError(`Invalid dataset name ${JSON.stringify(dataset)}. ${INVALID_DATASET_NAME}`);
    const requested = parseIngestOptions({
      contentType: req.get('content-type'),
      contentEncoding: req.get('content-encoding'),
      timestampField: queryText(req.query['timestamp-field']),
      timestampFormat: queryText(req.query['timestamp-format']),
      csvDelimiter: queryText(req.query['csv-delimiter']),
      csvFields: req.get('x-axiom-csv-fields'),
      labels: req.get('x-axiom-event-labels'),
    });
    // The dataset's map fields as they are now go into the options, so that the ingest log's
    // recipe decodes the body again the same way after a crash, whatever changed since.
    const options = withMapFields(requested, deps.datasets.get(dataset)?.mapFields ?? []);
    const body = await readRawBody(req, limits.maxBodyBytes);
    const nowMs = deps.clock();
    const decoded = await deps.decoder.decode({ body, options, file: stagingFile(deps.events.stagingDir), nowMs, limits });
    try {
      await deps.datasets.ensure(dataset, deps.who, nowMs);
    } catch (error) {
      await rm(decoded.batch.file, { force: true });
      throw error;
    }
    const stored = await deps.events.append(dataset, decoded.batch, ingestSource(body, options, nowMs, limits));
    if (stored.ingested > 0) deps.metrics.ingestedEvents.inc({ dataset }, stored.ingested);
    const failures = [
      ...decoded.failures.map((failure) => ({ timestamp: formatTime(failure.timeMs), error: failure.error })),
      ...stored.failures.map((failure) => ({ timestamp: formatTime(Number(failure.timeNs / 1_000_000n)), error: failure.error })),
    ];
    const reply: IngestReply = {
      ingested: stored.ingested,
      failed: failures.length,
      failures,
      processedBytes: decoded.processedBytes,
      blocksCreated: 0,
      walLength: Number(stored.rowIdsIssued),
    };
    res.json(reply);
  };

  router.route('/v1/datasets/:dataset/ingest').post(ingest).all(methodNotAllowed(['POST']));
  router.route('/v1/ingest/:dataset').post(ingest).all(methodNotAllowed(['POST']));
  return router;
}

/** A query parameter as one string (the first, when repeated). */
function queryText(value: unknown): string | undefined {
  if (Array.isArray(value)) return queryText(value[0]);
  return typeof value === 'string' ? value : undefined;
}
