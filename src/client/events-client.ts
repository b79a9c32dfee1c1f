import { createTransport, type TransportOptions } from './transport.js';

/** The ingest reply (wire.md). */
export interface IngestStatus {
  ingested: number;
  failed: number;
  failures: { timestamp: string; error: string }[];
  processedBytes: number;
  blocksCreated: number;
  walLength: number;
}

export interface IngestRequest {
  dataset: string;
  /** The body as it goes on the wire (already compressed when `contentEncoding` is set). */
  body: Uint8Array;
  contentType: 'application/x-ndjson' | 'application/json' | 'text/csv';
  contentEncoding?: 'gzip' | 'zstd';
  timestampField?: string;
  timestampFormat?: string;
  csvDelimiter?: string;
  labels?: Readonly<Record<string, unknown>>;
  /** Also retry failures after which the service may have stored the batch (risks duplicates). */
  retryAmbiguous?: boolean;
}

/** The parts of a tabular APL result (wire.md) that clients read. */
export interface AplTable {
  name: string;
  fields: { name: string; type: string }[];
  columns?: unknown[][];
}

export interface AplTabularResult {
  format: 'tabular';
  status: {
    elapsedTime: number;
    rowsExamined: number;
    rowsMatched: number;
    isPartial: boolean;
    messages?: { code?: string; msg: string; priority: string }[];
  };
  tables: AplTable[];
}

export interface AplQuery {
  apl: string;
  /** RFC 3339 or relative (`now-1h`), as the service accepts them. */
  startTime?: string;
  endTime?: string;
}

/** A field of a dataset, as `GET /v2/datasets/{id}/fields` lists it. */
export interface DatasetField {
  name: string;
  /** `integer`, `float`, `string`…; a field seen with several types joins them (`integer|float`). */
  type: string;
}

export interface EventsClient {
  /** `POST /v1/datasets/{dataset}/ingest`. */
  ingest(request: IngestRequest): Promise<IngestStatus>;
  /** `POST /v1/datasets/_apl?format=tabular`. */
  apl(query: AplQuery): Promise<AplTabularResult>;
  /** `GET /v2/datasets/{dataset}/fields`. */
  fields(dataset: string): Promise<DatasetField[]>;
  close(): Promise<void>;
}

/**
 * The events half of the API — ingest, APL queries and the fields of a dataset — over the shared transport, beside the
 * annotations client; works against the hosted service too. Every failure is an ApiError.
 */
export function createEventsClient(options: TransportOptions): EventsClient {
  const transport = createTransport(options);
  return {
    ingest: (request) => {
      const query = new URLSearchParams();
      if (request.timestampField) query.set('timestamp-field', request.timestampField);
      if (request.timestampFormat) query.set('timestamp-format', request.timestampFormat);
      if (request.csvDelimiter) query.set('csv-delimiter', request.csvDelimiter);
      const search = query.size > 0 ? `?${query}` : '';
      return transport.send<IngestStatus>({
        method: 'POST',
        path: `/v1/datasets/${encodeURIComponent(request.dataset)}/ingest${search}`,
        body: { bytes: request.body, contentType: request.contentType, contentEncoding: request.contentEncoding },
        headers: request.labels ? { 'x-axiom-event-labels': JSON.stringify(request.labels) } : undefined,
        // Sending a batch twice stores it twice: only failures before it was sent are retried.
        idempotent: false,
        retryAmbiguous: request.retryAmbiguous === true,
      });
    },
    apl: (query) =>
      transport.send<AplTabularResult>({
        method: 'POST',
        path: '/v1/datasets/_apl?format=tabular',
        body: { json: query },
        // A query reads and changes nothing: sending it again is harmless.
        idempotent: true,
      }),
    fields: (dataset) => transport.send<DatasetField[]>({ method: 'GET', path: `/v2/datasets/${encodeURIComponent(dataset)}/fields`, idempotent: true }),
    close: () => transport.close(),
  };
}
