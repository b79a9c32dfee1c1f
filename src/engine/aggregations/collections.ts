import { toText } from '../sql/convert.js';
import { sqlInteger } from '../sql/quote.js';
import { ORDERED, constantNumber, expectType, fieldsOf, nameFor, single } from './helpers.js';
import type { AggregateOutput, AggregationDef, AggregateSqlCall, BoundArg } from './types.js';

const COLLECTABLE = [...ORDERED, 'dynamic'] as const;

/**
 * A value as a list element: dynamic values are JSON, not their text; datetimes and timespans
 * their text, as inside any dynamic value (`functions/lowering.ts`'s `jsonValue`); reals that
 * are not finite null, as JSON has no NaN.
 */
function element(c: AggregateSqlCall): string {
  const type = c.type(0);
  if (type === 'dynamic') return `CAST(${c.arg(0)} AS JSON)`;
  if (type === 'datetime' || type === 'timespan') return toText(c.arg(0), type);
  if (type === 'real') return `CASE WHEN isfinite(${c.arg(0)}) THEN ${c.arg(0)} END`;
  return c.arg(0);
}

function inIngestOrder(c: AggregateSqlCall): string {
  return c.rowId ? ` ORDER BY ${c.rowId}` : '';
}

/** `make_list` and `make_set`, and their `…_if` forms: the values as an array, at most `limit` of them. */
function collection(name: 'make_list' | 'make_set', spec: Pick<AggregationDef, 'summary' | 'sql' | 'examples' | 'firstSeen'> & { wire: string; defaultLimit: number }): AggregationDef {
  return {
    name,
    syntax: `${name}(expr[, maxSize])`,
    summary: spec.summary,
    min: 1,
    max: 2,
    wire: spec.wire,
    conditional: { name: `${name}_if`, wire: `${spec.wire}if`, predicate: 1 },
    ordered: true,
    ...(spec.firstSeen ? { firstSeen: true } : {}),
    bind: (args, site) => {
      const value = expectType(args, 0, COLLECTABLE, site);
      const limit = args.length > 1 ? constantNumber(args, 1, site, 'size limit', 1, 1_048_576) : spec.defaultLimit;
      return single({ name }, site, args.slice(0, 1), { args: [value], params: [Math.floor(limit)], type: 'dynamic' }, nameFor(site.name, args[0]), { reportedType: 'array' });
    },
    ...(spec.sql ? { sql: spec.sql } : {}),
    examples: spec.examples,
  };
}

function argExtreme(name: 'arg_max' | 'arg_min', summary: string, examples: AggregationDef['examples']): AggregationDef {
  return {
    name,
    syntax: `${name}(expr, returned[, returned…]) or ${name}(expr, *)`,
    summary,
    min: 2,
    max: 64,
    wire: name === 'arg_max' ? 'argmax' : 'argmin',
    ordered: true,
    bind: (args, site) => {
      const by = expectType(args, 0, ORDERED, site);
      const returned = [args[0] as BoundArg, ...args.slice(1)];
      const outputs: AggregateOutput[] = returned.map((arg, index) => ({
        call: { fn: name, args: [arg.expr, by], params: [], type: arg.expr.type },
        defaultName: arg.name ?? arg.field ?? (index === 0 ? `${name === 'arg_max' ? 'max' : 'min'}_` : `${name}_`),
        ...(arg.reportedType ? { reportedType: arg.reportedType } : {}),
        agg: { name: site.wire, fields: fieldsOf(args), args: [] },
      }));
      return { outputs };
    },
    sql: (c) => {
      // Ties go to the first row ingested; rows where the compared value is null take no part.
      const by = c.arg(1);
      const key = c.rowId ? `{'v': ${by}, 'r': ${name === 'arg_max' ? `-${c.rowId}` : c.rowId}}` : by;
      return `${name}_null(${c.arg(0)}, ${key})${c.filter([`${by} IS NOT NULL`])}`;
    },
    examples,
  };
}

/** Collections: lists, sets, the most frequent values, and the row of an extreme. */
export const COLLECTION_AGGREGATIONS: readonly AggregationDef[] = [
  collection('make_list', {
    summary: 'The non-null values of `expr` as an array, in ingest order, at most `maxSize` (1,048,576) of them.',
    wire: 'makelist',
    defaultLimit: 1_048_576,
    sql: (c) => {
      const list = `list(${element(c)}${inIngestOrder(c)})${c.filter([`${c.arg(0)} IS NOT NULL`])}`;
      return `coalesce(CAST(to_json(list_slice(${list}, 1, ${sqlInteger(c.param(0))})) AS VARCHAR), '[]')`;
    },
    examples: [
      { query: "['sample-http-logs'] | where server_datacenter == 'DCB' | summarize make_list(method)", rows: [{ make_list_method: ['PUT', 'POST'] }] },
      { query: "['sample-http-logs'] | where server_datacenter == 'DCB' | summarize make_list(_time)", rows: [{ make_list__time: ['2024-05-01T12:00:01Z', '2024-05-01T12:00:04Z'] }] },
      { query: "['sample-http-logs'] | summarize make_list_if(status, method == 'GET', 2)", rows: [{ make_list_if_status: ['200', '304'] }] },
    ],
  }),
  collection('make_set', {
    summary: 'The distinct non-null values of `expr` as an array, in the order first seen, at most `maxSize` (128) of them.',
    wire: 'makeset',
    defaultLimit: 128,
    firstSeen: true,
    sql: (c) => c.firstSeen((rank) => `coalesce(CAST(to_json(list_slice(list(${element(c)}${inIngestOrder(c)})${c.filter([`${c.arg(0)} IS NOT NULL`, `${rank} = 1`])}, 1, ${sqlInteger(c.param(0))})) AS VARCHAR), '[]')`),
    examples: [
      { query: "['sample-http-logs'] | summarize make_set(server_datacenter)", rows: [{ make_set_server_datacenter: ['DCA', 'DCB', 'DCC'] }] },
      { query: "['sample-http-logs'] | summarize make_set_if(method, is_tls)", rows: [{ make_set_if_method: ['PUT', 'DELETE', 'POST', 'GET'] }] },
    ],
  }),
  {
    name: 'topk',
    syntax: 'topk(expr, k)',
    summary: 'The k most frequent values of `expr` with their counts, as `[{key, count, error}]` (exact: error is 0), ties by value.',
    min: 2,
    max: 2,
    wire: 'topk',
    conditional: { name: 'topkif', wire: 'topkif', predicate: 2 },
    bind: (args, site) => {
      const value = expectType(args, 0, COLLECTABLE, site);
      const k = Math.floor(constantNumber(args, 1, site, 'k', 1, 10_000));
      return single({ name: 'topk' }, site, args.slice(0, 1), { args: [value], params: [k], type: 'dynamic' }, nameFor(site.name, args[0]), { reportedType: 'array', aggArgs: [k] });
    },
    sql: (c) => {
      // Counts per value, count desc then value asc, the first k as {key, count, error: 0}.
      const counted = `list_transform(map_entries(histogram(${c.arg(0)})${c.filter()}), e -> {'c': -CAST(e.value AS BIGINT), 'k': e.key})`;
      const top = `list_slice(list_sort(${counted}), 1, ${sqlInteger(c.param(0))})`;
      return `coalesce(CAST(to_json(list_transform(${top}, e -> {'key': e.k, 'count': -e.c, 'error': 0})) AS VARCHAR), '[]')`;
    },
    examples: [
      {
        query: "['sample-http-logs'] | summarize topk(method, 2)",
        rows: [{ topk_method: [{ key: 'GET', count: 3, error: 0 }, { key: 'DELETE', count: 1, error: 0 }] }],
      },
      { query: "['sample-http-logs'] | summarize topkif(server_datacenter, 1, method == 'GET')", rows: [{ topkif_server_datacenter: [{ key: 'DCA', count: 3, error: 0 }] }] },
    ],
  },
  argExtreme('arg_max', 'The `returned` expressions (or `*`, every column) of the row where `expr` is largest; ties go to the first row ingested.', [
    { query: "['sample-http-logs'] | summarize arg_max(req_duration_ms, uri)", rows: [{ req_duration_ms: 950.5, uri: '/api/v2/users/7/avatar' }] },
    {
      query: "['sample-http-logs'] | summarize arg_max(req_duration_ms, slowest = uri), arg_max(longest = strlen(uri), ['longest uri'] = uri)",
      rows: [{ req_duration_ms: 950.5, slowest: '/api/v2/users/7/avatar', longest: 39, 'longest uri': '/api/v1/users/42?expand=profile&lang=en' }],
    },
  ]),
  argExtreme('arg_min', 'The `returned` expressions (or `*`, every column) of the row where `expr` is smallest; ties go to the first row ingested.', [
    { query: "['sample-http-logs'] | summarize arg_min(resp_body_size_bytes, method, status)", rows: [{ resp_body_size_bytes: 0, method: 'GET', status: '304' }] },
  ]),
];
