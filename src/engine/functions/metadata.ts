import { call, literal } from '../check/context.js';
import type { Expr, PlanColumn } from '../plan/types.js';
import { SYS_TIME_FIELD, TIME_FIELD } from '../schema.js';
import { anyValue, constantString, text } from './bind.js';
import type { BindSite, FunctionDef } from './types.js';

/** The column named `name` that the call can see, the latest of that name; hidden ones only when asked. */
function columnNamed(site: BindSite, name: string, hidden = false): PlanColumn | undefined {
  return [...site.scope.columns].reverse().find((column) => column.name === name && (hidden || !column.hidden));
}

const reference = (column: PlanColumn): Expr => ({ kind: 'column', column: column.id, type: column.type });

/** Metadata functions (scalar-functions/metadata-functions). */
export const METADATA_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'column_ifexists',
    summary: 'The field of that name where the dataset (or the query so far) has it, otherwise the default value, so a query runs whether or not a field exists.',
    params: [text('FieldName'), anyValue('DefaultValue')],
    returns: { of: (args) => args[1]?.type ?? 'dynamic', doc: 'the type of the field, or of the default' },
    bind: (args, site) => {
      const name = constantString(args, 0, site, 'field name');
      const column = columnNamed(site, name);
      return column ? reference(column) : (args[1] as Expr);
    },
    examples: [
      { apl: "column_ifexists('geo.region', ['geo.country'])", result: 'Portugal', type: 'string' },
      { apl: "column_ifexists('geo.city', ['geo.country'])", result: 'Lisbon' },
      { apl: "column_ifexists('threat_level', status)", result: '200' },
      { apl: "column_ifexists('status_code', 100)", result: 100, type: 'integer' },
      { apl: "column_ifexists(method, 'x')", error: 'column_ifexists() needs a constant string field name as argument 1' },
    ],
  },
  {
    name: 'cursor_current',
    summary: 'The cursor of the current event: its `_rowId`, which a structured query resumes after (null once a summarize or project has dropped the event’s identity).',
    params: [],
    returns: 'string',
    bind: (_args, site) => {
      const time = columnNamed(site, TIME_FIELD);
      const rowId = columnNamed(site, '_rowId', true);
      if (!time || !rowId || time.type !== 'datetime') return literal('string', null);
      return call('cursor_current', [reference(time), reference(rowId)], 'string');
    },
    sql: (c) => `(CAST(${c.arg(0)} AS VARCHAR) || '-' || CAST(${c.arg(1)} AS VARCHAR))`,
    examples: [
      { apl: 'cursor_current()', result: '1714564805000000000-5', type: 'string' },
      { query: "['sample-http-logs'] | extend processing_cursor = cursor_current() | where status != '200' | summarize last_cursor = make_list(processing_cursor)[0]", rows: [{ last_cursor: '1714564801000000000-1' }] },
      { query: "['sample-http-logs'] | summarize n = count() | extend c = cursor_current()", rows: [{ n: 6, c: null }] },
    ],
  },
  {
    name: 'ingestion_time',
    summary: 'When the event was ingested (its `_sysTime`); null once a summarize or project has dropped it.',
    params: [],
    returns: 'datetime',
    bind: (_args, site) => {
      const column = columnNamed(site, SYS_TIME_FIELD);
      return column?.type === 'datetime' ? reference(column) : literal('datetime', null);
    },
    examples: [
      { apl: 'ingestion_time() == _sysTime', result: true, type: 'boolean' },
      { apl: 'ingestion_time() >= _time', result: true },
      { query: "['sample-http-logs'] | project method | extend t = ingestion_time() | take 1", rows: [{ method: 'GET', t: null }] },
    ],
  },
];
