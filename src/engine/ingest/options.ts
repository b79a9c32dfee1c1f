import { ingestError } from './errors.js';
import { parseGoLayout } from './go-layout.js';

export type IngestFormat = 'json' | 'ndjson' | 'csv';
export type IngestEncoding = 'identity' | 'gzip' | 'zstd';

/** How to read one request's body: plain data, so that it crosses to the decode worker as is. */
export interface IngestOptions {
  readonly format: IngestFormat;
  readonly encoding: IngestEncoding;
  /** The (flattened) field whose value becomes `_time`. */
  readonly timestampField: string;
  /** A Go reference-time layout for string times, e.g. `02/Jan/2006:15:04:05 -0700`. */
  readonly timestampFormat?: string;
  readonly csvDelimiter: string;
  /** CSV field names given by header instead of a header row. */
  readonly csvFields?: readonly string[];
  /** Fields added to every event, overriding the event's own. */
  readonly labels?: Readonly<Record<string, unknown>>;
  /**
   * The dataset's map fields: a field of one of these names keeps an object value whole, as one
   * JSON value, instead of flattening it into a field per key. Not part of the request: the
   * service adds the dataset's own (see withMapFields).
   */
  readonly mapFields?: readonly string[];
}

/** The request's raw headers and query parameters that shape ingest. */
export interface IngestRequestParts {
  contentType?: string;
  contentEncoding?: string;
  timestampField?: string;
  timestampFormat?: string;
  csvDelimiter?: string;
  csvFields?: string;
  labels?: string;
}

const FORMAT_OF_MEDIA_TYPE: Readonly<Record<string, IngestFormat>> = {
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/x-jsonlines': 'ndjson',
  'application/jsonl': 'ndjson',
  'text/csv': 'csv',
};

const EXPECTED_TYPES = 'application/json (an array of events), application/x-ndjson (one event per line) or text/csv';

export function parseIngestOptions(parts: IngestRequestParts): IngestOptions {
  const format = parseContentType(parts.contentType);
  const options: {
    -readonly [K in keyof IngestOptions]: IngestOptions[K];
  } = {
    format,
    encoding: parseContentEncoding(parts.contentEncoding),
    timestampField: parts.timestampField === undefined || parts.timestampField === '' ? '_time' : parts.timestampField,
    csvDelimiter: parseDelimiter(parts.csvDelimiter),
  };
  if (parts.timestampFormat !== undefined && parts.timestampFormat !== '') {
    parseGoLayout(parts.timestampFormat);
    options.timestampFormat = parts.timestampFormat;
  }
  if (parts.csvFields !== undefined && parts.csvFields.trim() !== '') {
    options.csvFields = parts.csvFields.split(',').map((name) => name.trim());
  }
  if (parts.labels !== undefined && parts.labels.trim() !== '') options.labels = parseLabels(parts.labels);
  return options;
}

/** The options with the dataset's map fields (none: the options as they are). */
export function withMapFields(options: IngestOptions, mapFields: readonly string[]): IngestOptions {
  return mapFields.length === 0 ? options : { ...options, mapFields: [...mapFields] };
}

function parseContentType(header: string | undefined): IngestFormat {
  const [mediaType = '', ...params] = (header ?? '').split(';').map((part) => part.trim());
  const format = FORMAT_OF_MEDIA_TYPE[mediaType.toLowerCase()];
  if (!format) {
    throw ingestError('unsupported', 'unsupported_media_type', `Unsupported Content-Type ${JSON.stringify(header ?? '')}. Expected ${EXPECTED_TYPES}.`);
  }
  for (const param of params) {
    const [name = '', value = ''] = param.split('=').map((part) => part.trim().toLowerCase());
    if (name === 'charset' && value.replaceAll('"', '') !== 'utf-8' && value.replaceAll('"', '') !== 'utf8') {
      throw ingestError('unsupported', 'unsupported_charset', `Unsupported charset ${JSON.stringify(value)}. Expected UTF-8.`);
    }
  }
  return format;
}

export function parseContentEncoding(header: string | undefined): IngestEncoding {
  const value = (header ?? '').trim().toLowerCase();
  // axiom-py sends `1` for an uncompressed body (its ContentEncoding.IDENTITY).
  if (value === '' || value === 'identity' || value === '1') return 'identity';
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  if (value === 'zstd') return 'zstd';
  throw ingestError('unsupported', 'unsupported_encoding', `Unsupported Content-Encoding ${JSON.stringify(header)}. Expected gzip, zstd, identity or none.`);
}

function parseDelimiter(value: string | undefined): string {
  if (value === undefined || value === '') return ',';
  if ([...value].length !== 1 || value === '"' || value === '\n' || value === '\r') {
    throw ingestError('invalid', 'invalid_csv_delimiter', `Invalid csv-delimiter ${JSON.stringify(value)}. Expected one character other than a quote or a line break, such as ";" or a tab.`);
  }
  return value;
}

function parseLabels(text: string): Record<string, unknown> {
  let labels: unknown;
  try {
    labels = JSON.parse(text);
  } catch (error) {
    throw ingestError('invalid', 'invalid_labels', `X-Axiom-Event-Labels is not valid JSON (${(error as Error).message}). Expected a JSON object such as {"env":"prod"}.`);
  }
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) {
    throw ingestError('invalid', 'invalid_labels', `X-Axiom-Event-Labels is ${JSON.stringify(text.slice(0, 100))}. Expected a JSON object such as {"env":"prod"}.`);
  }
  return labels as Record<string, unknown>;
}
