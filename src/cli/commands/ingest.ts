import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { createEventsClient, type IngestStatus } from '../../client/events-client.js';
import { CLIENT_DEFAULTS } from '../../client/transport.js';
import { INGEST_LIMITS } from '../../engine/ingest/limits.js';
import { INPUT_FORMATS, inputSource, readBatches, type Batch, type InputFormat } from '../ingest/batches.js';
import { createProgress } from '../ingest/progress.js';
import type { CliIo } from '../io.js';
import { HELP_OPTION, parseOptions, parseWholeNumber, renderHelp, type CommandSpec, type ParsedOptions } from '../options.js';
import { serviceConnection, serviceOptions, withServiceFailures } from '../service-connection.js';
import { UsageError } from '../usage-error.js';

const gzipAsync = promisify(gzip);

export const INGEST_DEFAULTS = { batchSize: 5000, concurrency: 2 } as const;

/** A batch of 10,000 events takes longer to store than an annotation. */
const INGEST_TIMEOUT_MS = CLIENT_DEFAULTS.timeoutMs * 3;

const SPEC: CommandSpec = {
  name: 'ingest',
  usage: 'DATASET [FILE…] [options]',
  summary: `Sends events to DATASET (created if it does not exist) from NDJSON, JSON array or CSV files,
gzip-compressed or not, or from standard input when no file is given ("-" names it too).
The format comes from each file's extension (.ndjson/.jsonl, .json, .csv, each optionally .gz)
unless --format is given; standard input is NDJSON unless --format says otherwise.`,
  options: [
    { name: 'format', type: 'string', value: 'F', help: `input format: ${INPUT_FORMATS.join(', ')}`, example: 'ndjson' },
    {
      name: 'batch-size',
      type: 'string',
      value: 'N',
      help: `events per request, at most ${INGEST_LIMITS.maxEventsPerRequest}`,
      default: INGEST_DEFAULTS.batchSize,
      example: '5000',
      integer: { min: 1, unit: 'events' },
    },
    {
      name: 'concurrency',
      type: 'string',
      value: 'N',
      help: 'requests in flight at once',
      default: INGEST_DEFAULTS.concurrency,
      example: '2',
      integer: { min: 1, unit: 'requests' },
    },
    { name: 'timestamp-field', type: 'string', value: 'F', help: "the field holding each event's time", default: '_time', example: 'timestamp' },
    { name: 'timestamp-format', type: 'string', value: 'L', help: 'Go layout of string times, e.g. "02/Jan/2006:15:04:05 -0700"', example: '"2006-01-02 15:04:05"' },
    { name: 'csv-delimiter', type: 'string', value: 'C', help: 'CSV field separator', default: ',', example: "';'" },
    { name: 'label', type: 'string', multiple: true, value: 'KEY=VALUE', help: 'add a field to every event (repeatable)', example: 'env=prod' },
    ...serviceOptions({ timeoutMs: INGEST_TIMEOUT_MS }),
    HELP_OPTION,
  ],
  positionals: Number.POSITIVE_INFINITY,
  footer: `On a terminal a progress line shows events sent, events per second and failures. At the end a
summary goes to stdout and the first failures to stderr. Exit code 0 when every event was
ingested, 1 when any event or request failed, 2 when the command was called wrongly.`,
};

export const INGEST_HELP = renderHelp(SPEC);

/** Failures printed at the end; the count says how many there were in all. */
const FAILURES_SHOWN = 20;

export async function run(args: string[], io: CliIo): Promise<number> {
  const options = parseOptions(SPEC, args);
  if (options.boolean('help')) {
    io.out(INGEST_HELP);
    return 0;
  }
  const [dataset, ...paths] = options.positionals;
  if (!dataset) throw new UsageError('the dataset name is missing; give it first, e.g. "timemark ingest http-logs access.ndjson".');
  const format = parseFormat(options.string('format'));
  const batchSize = wholeNumber(options, 'batch-size') ?? INGEST_DEFAULTS.batchSize;
  if (batchSize > INGEST_LIMITS.maxEventsPerRequest) {
    throw new UsageError(`Invalid --batch-size ${batchSize}; give at most ${INGEST_LIMITS.maxEventsPerRequest} events per request, e.g. --batch-size 5000.`);
  }
  const concurrency = wholeNumber(options, 'concurrency') ?? INGEST_DEFAULTS.concurrency;
  const labels = parseLabels(options.strings('label') ?? []);
  const stdin = io.stdin ?? (() => process.stdin);
  const sources = (paths.length === 0 ? ['-'] : paths).map((path) => inputSource(path, format, stdin));
  const timestampField = options.string('timestamp-field');
  const timestampFormat = options.string('timestamp-format');
  const csvDelimiter = options.string('csv-delimiter');
  const delimiter = csvDelimiter ?? ',';

  const connection = serviceConnection(options, io.env, { timeoutMs: INGEST_TIMEOUT_MS });
  const client = createEventsClient(connection);
  const totalBytes = sources.every((source) => source.size !== undefined) ? sources.reduce((sum, source) => sum + (source.size ?? 0), 0) : undefined;
  const progress = createProgress(io.terminal, totalBytes);
  const counts = { sent: 0, ingested: 0, failed: 0, bytesRead: 0 };
  const failures: string[] = [];
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let requestError: unknown;

  const send = async (batch: Batch): Promise<void> => {
    const status: IngestStatus = await client.ingest({
      dataset,
      body: await gzipAsync(batch.body),
      contentType: batch.contentType,
      contentEncoding: 'gzip',
      timestampField,
      timestampFormat,
      csvDelimiter,
      labels,
    });
    counts.sent += batch.events;
    counts.ingested += status.ingested;
    counts.failed += status.failed;
    for (const failure of status.failures ?? []) {
      if (failures.length < FAILURES_SHOWN) failures.push(`${batch.origin}: ${failure.error}`);
    }
    progress.update(counts);
  };

  try {
    for (const source of sources) {
      for await (const batch of readBatches(source, batchSize, delimiter, (bytes) => (counts.bytesRead += bytes))) {
        if (requestError) break;
        const pending: Promise<void> = send(batch).then(
          () => void inFlight.delete(pending),
          (error: unknown) => {
            inFlight.delete(pending);
            requestError ??= error;
          },
        );
        inFlight.add(pending);
        if (inFlight.size >= concurrency) await Promise.race(inFlight);
      }
      if (requestError) break;
    }
    await Promise.all(inFlight);
  } finally {
    progress.done();
    await client.close();
  }

  const seconds = (performance.now() - started) / 1000;
  for (const failure of failures) io.err(failure);
  if (counts.failed > failures.length) io.err(`… and ${counts.failed - failures.length} more failures.`);
  io.out(
    `Ingested ${counts.ingested.toLocaleString('en-US')} events into ${JSON.stringify(dataset)} in ${seconds.toFixed(1)} s (${Math.round(counts.ingested / Math.max(seconds, 0.001)).toLocaleString('en-US')} events/s); ${counts.failed.toLocaleString('en-US')} failed.`,
  );
  if (requestError) await withServiceFailures(connection.url, () => Promise.reject(requestError), INGEST_AMBIGUITY);
  return counts.failed > 0 ? 1 : 0;
}

function parseFormat(value: string | undefined): InputFormat | undefined {
  if (value === undefined) return undefined;
  if (!(INPUT_FORMATS as readonly string[]).includes(value)) {
    throw new UsageError(`Invalid --format ${JSON.stringify(value)}; give one of ${INPUT_FORMATS.join(', ')}, e.g. --format ndjson.`);
  }
  return value as InputFormat;
}

function parseLabels(pairs: readonly string[]): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new UsageError(`Invalid --label ${JSON.stringify(pair)}; give KEY=VALUE, e.g. --label env=prod.`);
    labels[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return labels;
}

function wholeNumber(options: ParsedOptions, name: 'batch-size' | 'concurrency'): number | undefined {
  const text = options.string(name);
  const spec = SPEC.options.find((option) => option.name === name);
  if (text === undefined || spec?.integer === undefined) return undefined;
  return parseWholeNumber(`--${name}`, text, { ...spec.integer, example: spec.example ?? String(spec.integer.min) });
}

/** A batch that may have been stored is not sent again: ingest has no idempotency key. */
const INGEST_AMBIGUITY = (): string =>
  'so that batch may or may not have been stored, and it was not sent again because that could store its events twice; the summary above counts only what the service confirmed';
