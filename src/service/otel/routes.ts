import { Router, type Request, type Response } from 'express';
import { InputError, UnsupportedMediaTypeError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { decompressBody } from '../../engine/ingest/decompress.js';
import { ingestEvents } from '../../engine/ingest/ingest-events.js';
import { INGEST_LIMITS, type IngestLimits } from '../../engine/ingest/limits.js';
import { parseContentEncoding } from '../../engine/ingest/options.js';
import type { EventStore } from '../../engine/store/event-store.js';
import type { Datasets } from '../datasets/datasets.js';
import { DATASET_NAME_PATTERN, INVALID_DATASET_NAME } from '../datasets/routes.js';
import { readRawBody } from '../ingest/raw-body.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { initialMapFields, OTEL_CUSTOM_ATTRIBUTES } from '../datasets/map-fields.js';
import { logEvents, metricEvents, spanEvents, type SpanLayout } from './layout.js';
import { decodeOtlpRequest, encodeOtlpResponse, otlpFormat, type OtlpFormat, type OtlpObject, type OtlpSignal } from './otlp.js';

export interface OtelRouteDeps {
  datasets: Datasets;
  events: EventStore;
  metrics: ServiceMetrics;
  clock: () => number;
  who: string;
  limits?: IngestLimits;
}

interface Signal {
  signal: OtlpSignal;
  path: string;
  kind: 'otel:traces:v1' | 'otel:logs:v1' | 'otel:metrics:v1';
  toEvents: (request: OtlpObject, layout: SpanLayout) => Record<string, unknown>[];
  records: string;
  /** The formats the hosted endpoint takes. */
  formats: readonly OtlpFormat[];
}

const SIGNALS: readonly Signal[] = [
  { signal: 'traces', path: '/v1/traces', kind: 'otel:traces:v1', toEvents: spanEvents, records: 'spans', formats: ['protobuf', 'json'] },
  { signal: 'logs', path: '/v1/logs', kind: 'otel:logs:v1', toEvents: logEvents, records: 'log records', formats: ['protobuf', 'json'] },
  { signal: 'metrics', path: '/v1/metrics', kind: 'otel:metrics:v1', toEvents: metricEvents, records: 'data points', formats: ['protobuf'] },
];

/**
 * The dataset of an OTLP request: `X-Axiom-Dataset`, or for metrics `X-Axiom-Metrics-Dataset`,
 * the header the hosted service documents for them (either is taken).
 */
export function otlpDataset(req: Request): string | undefined {
  return (req.path === '/v1/metrics' ? req.get('x-axiom-metrics-dataset') : undefined) || req.get('x-axiom-dataset') || undefined;
}

/**
 * OTLP/HTTP ingest, where OpenTelemetry SDKs, the Collector and axiom-go's `otel` package send:
 * `POST /v1/traces` and `POST /v1/logs`, protobuf or JSON, and `POST /v1/metrics`, protobuf only
 * (as the hosted endpoint), gzip or zstd or plain, into the dataset its header names (made, as an
 * OTel dataset, if it does not exist). Records
 * become events in the hosted OTel field layout (layout.ts) and are stored like any ingest: the
 * reply is sent once they are durable. A record the store cannot take (over the field limit)
 * is counted in the reply's `partialSuccess`, as OTLP reports rejected records.
 */
export function createOtelRoutes(deps: OtelRouteDeps): Router {
  const limits = deps.limits ?? INGEST_LIMITS;
  const router = Router();
  for (const { signal, path, kind, toEvents, records, formats } of SIGNALS) {
    const header = signal === 'metrics' ? 'X-Axiom-Metrics-Dataset (or X-Axiom-Dataset)' : 'X-Axiom-Dataset';
    const ingest = async (req: Request, res: Response): Promise<void> => {
      const dataset = otlpDataset(req);
      if (!dataset) throw new InputError(`Missing the ${header} header. Expected the name of the dataset to store the telemetry in, as the hosted OTLP endpoints take it.`);
      if (!DATASET_NAME_PATTERN.test(dataset)) throw new InputError(`Invalid ${header} ${JSON.stringify(dataset)}. ${INVALID_DATASET_NAME}`);
      const format = otlpFormat(req.get('content-type'));
      if (!formats.includes(format)) {
        throw new UnsupportedMediaTypeError(`Unsupported Content-Type ${JSON.stringify(req.get('content-type') ?? '')} for ${path}. Expected application/x-protobuf: the hosted ${path} takes no JSON.`);
      }
      const encoding = parseContentEncoding(req.get('content-encoding'));
      const body = decompressBody(await readRawBody(req, limits.maxBodyBytes), encoding, limits.maxBodyBytes);
      // Spans are laid out by the dataset's map fields: those a dataset this request makes will
      // start with (a trace dataset's attributes.custom), else its own (none, for one made
      // before map fields, whose spans keep the layout they had).
      const existing = deps.datasets.get(dataset);
      const mapFields = existing ? existing.mapFields : initialMapFields(kind);
      const layout: SpanLayout = mapFields.includes(OTEL_CUSTOM_ATTRIBUTES) ? { customAttributes: OTEL_CUSTOM_ATTRIBUTES } : {};
      const events = toEvents(decodeOtlpRequest(signal, format, body), layout);
      if (events.length > limits.maxEventsPerRequest) {
        throw new InputError(`The request holds ${events.length} ${records}. Expected at most ${limits.maxEventsPerRequest} per request: export in smaller batches.`);
      }
      const nowMs = deps.clock();
      let rejected = { count: 0, message: '' };
      if (events.length > 0) {
        await deps.datasets.ensure(dataset, deps.who, nowMs, kind);
        const stored = await ingestEvents(deps.events, dataset, events, { nowMs, mapFields });
        if (stored.ingested > 0) deps.metrics.ingestedEvents.inc({ dataset }, stored.ingested);
        const failures = [...stored.decodeFailures.map((failure) => failure.error), ...stored.failures.map((failure) => failure.error)];
        if (failures.length > 0) rejected = { count: failures.length, message: failures.slice(0, 3).join(' ') };
      }
      const reply = encodeOtlpResponse(signal, format, rejected);
      res.status(200).type(reply.contentType).send(typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body));
    };
    router.route(path).post(ingest).all(methodNotAllowed(['POST']));
  }
  return router;
}
