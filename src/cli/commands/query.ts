import { ApiError } from '../../client/api-error.js';
import { createEventsClient, type AplTabularResult } from '../../client/events-client.js';
import { CLIENT_DEFAULTS } from '../../client/transport.js';
import { codeFrame } from '../../engine/apl/errors.js';
import type { CliIo } from '../io.js';
import { renderCsv, renderTable } from '../query/render.js';
import { HELP_OPTION, parseOptions, renderHelp, type CommandSpec } from '../options.js';
import { formatOption, outputFormat } from '../output-format.js';
import { serviceConnection, serviceOptions, withServiceFailures } from '../service-connection.js';
import { UsageError } from '../usage-error.js';

export const QUERY_FORMATS = ['table', 'json', 'csv'] as const;
type QueryFormat = (typeof QUERY_FORMATS)[number];

export const QUERY_DEFAULTS = { start: 'now-1h', end: 'now' } as const;

/** A query may run for up to the service's own time limit (30 s locally). */
const QUERY_TIMEOUT_MS = CLIENT_DEFAULTS.timeoutMs * 6;

const SPEC: CommandSpec = {
  name: 'query',
  usage: "'APL' [options]",
  summary: `Runs an APL query, such as "['http-logs'] | summarize count() by status", and prints the result.`,
  options: [
    { name: 'start', type: 'string', value: 'TIME', help: 'start of the time range: RFC 3339 or relative, e.g. now-1d', default: QUERY_DEFAULTS.start, example: 'now-1d' },
    { name: 'end', type: 'string', value: 'TIME', help: 'end of the time range', default: QUERY_DEFAULTS.end, example: 'now' },
    formatOption(QUERY_FORMATS, 'table (for reading), json (the result as the service sent it) or csv (the first table)'),
    ...serviceOptions({ timeoutMs: QUERY_TIMEOUT_MS }),
    HELP_OPTION,
  ],
  positionals: 1,
  footer: `A query the service rejects is printed with a caret under the position of the error. Exit code
0 on success, 2 when the query or the command line is wrong, 1 when the request failed.`,
};

export const QUERY_HELP = renderHelp(SPEC);

export async function run(args: string[], io: CliIo): Promise<number> {
  const options = parseOptions(SPEC, args);
  if (options.boolean('help')) {
    io.out(QUERY_HELP);
    return 0;
  }
  const [apl] = options.positionals;
  if (apl === undefined || apl.trim() === '') {
    throw new UsageError(`the APL text is missing; give it first, e.g. timemark query "['http-logs'] | count".`);
  }
  const format = outputFormat<QueryFormat>(options.string('format'), QUERY_FORMATS, io);
  const startTime = options.string('start') ?? QUERY_DEFAULTS.start;
  const endTime = options.string('end') ?? QUERY_DEFAULTS.end;
  const connection = serviceConnection(options, io.env, { timeoutMs: QUERY_TIMEOUT_MS });
  const client = createEventsClient(connection);

  let result: AplTabularResult;
  try {
    result = await client.apl({ apl, startTime, endTime });
  } catch (error) {
    const position = queryErrorPosition(error);
    if (!position) return withServiceFailures(connection.url, () => Promise.reject(error));
    io.err(`timemark query: ${(error as ApiError).serviceMessage ?? ''}\n${codeFrame(apl, position)}`);
    return 2;
  } finally {
    await client.close();
  }

  switch (format) {
    case 'json':
      io.out(JSON.stringify(result, null, 2));
      break;
    case 'csv':
      io.out(result.tables[0] ? renderCsv(result.tables[0]) : '');
      break;
    case 'table': {
      const several = result.tables.length > 1;
      const text = result.tables.map((table) => `${several ? `${table.name === '_totals' ? 'Totals' : `Table ${table.name}`}\n` : ''}${renderTable(table, io.stdoutColumns)}`);
      io.out(text.join('\n\n'));
      const rows = result.tables[0]?.columns?.[0]?.length ?? 0;
      const status = result.status;
      io.err(`${rows.toLocaleString('en-US')} rows · ${status.rowsMatched.toLocaleString('en-US')} of ${status.rowsExamined.toLocaleString('en-US')} events matched · ${(status.elapsedTime / 1000).toFixed(1)} ms`);
      for (const message of status.messages ?? []) io.err(`${message.priority}: ${message.msg}`);
      break;
    }
  }
  return 0;
}

/** The line and column of a 400 that says where the query is wrong (wire.md's `detail`). */
function queryErrorPosition(error: unknown): { line: number; column: number } | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const detail = error.detail as { line?: unknown; column?: unknown } | undefined;
  if (typeof detail?.line !== 'number' || typeof detail.column !== 'number' || detail.line < 1 || detail.column < 1) return undefined;
  return { line: detail.line, column: detail.column };
}
