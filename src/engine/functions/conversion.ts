import { argNode, call, constantValue, fail, literal } from '../check/context.js';
import type { Expr, ScalarType } from '../plan/types.js';
import { toBool, toLong, toReal, toText } from '../sql/convert.js';
import { bindOnce } from '../sql/reuse.js';
import { formatDatetimeSql, parseDatetimeSql, parseTimespanSql } from '../sql/time.js';
import { anyValue, constantString, integer, oneOf, text, typeName } from './bind.js';
import { jsonText } from './lowering.js';
import type { FunctionDef } from './types.js';

/** The conversion function giving each plan type, for `ensure_field`. */
const CONVERTERS: Readonly<Record<Exclude<ScalarType, 'dynamic'>, string>> = {
  string: 'tostring',
  long: 'toint',
  real: 'todouble',
  bool: 'tobool',
  datetime: 'todatetime',
  timespan: 'totimespan',
};

/**
 * How deep `dynamic_to_json` sorts property bags' keys; deeper values are written as they are.
 * DuckDB binds nested lambdas again for each level: binding one call took 71 ms at depth 2,
 * 245 ms at 3 and 815 ms at 4 (DuckDB 1.5, measured alone on this machine).
 */
const CANONICAL_DEPTH = 2;

/**
 * `dynamic_to_json`'s canonical JSON of a JSON value: property bags with their keys sorted, at
 * every level down to `depth`. SQL has no recursion, so each level is written out.
 */
function canonicalJson(json: string, depth: number): string {
  if (depth === 0) return `CAST(json(${json}) AS VARCHAR)`;
  const entry = `e${depth}`;
  const element = `a${depth}`;
  // A JSON null member becomes an SQL null in the map: it is written back as null.
  const members = `list_transform(list_sort(map_entries(TRY_CAST(${json} AS MAP(VARCHAR, JSON)))), ${entry} -> CAST(to_json(${entry}.key) AS VARCHAR) || ':' || coalesce(${canonicalJson(`${entry}.value`, depth - 1)}, 'null'))`;
  const elements = `list_transform(CAST(${json} AS JSON[]), ${element} -> coalesce(${canonicalJson(element, depth - 1)}, 'null'))`;
  return `CASE json_type(${json}) WHEN 'OBJECT' THEN '{' || array_to_string(${members}, ',') || '}' WHEN 'ARRAY' THEN '[' || array_to_string(${elements}, ',') || ']' ELSE CAST(json(${json}) AS VARCHAR) END`;
}

/** Conversion functions (scalar-functions/conversion-functions). */
export const CONVERSION_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'dynamic_to_json',
    summary: 'A dynamic value as canonical JSON text (property bags with their keys sorted, two levels deep); any other value as tostring() gives it.',
    params: [anyValue('value')],
    returns: 'string',
    bind: (args) => {
      const value = args[0] as Expr;
      return value.type === 'dynamic' ? call('dynamic_to_json', [value], 'string') : call('tostring', [value], 'string');
    },
    sql: (c) => bindOnce(`CAST(${c.arg(0)} AS JSON)`, 'cj', canonicalJson('cj', CANONICAL_DEPTH)),
    examples: [
      { apl: 'dynamic_to_json(dynamic({"status": "200", "method": "GET", "duration": 150}))', result: '{"duration":150,"method":"GET","status":"200"}', type: 'string' },
      { apl: 'dynamic_to_json(dynamic([{"b": 1, "a": null}, "x"]))', result: '[{"a":null,"b":1},"x"]' },
      { apl: 'dynamic_to_json(dynamic({"z": {"y": 1, "x": 2}}))', result: '{"z":{"x":2,"y":1}}' },
      { apl: 'dynamic_to_json(42)', result: '42' },
      { apl: 'dynamic_to_json(dynamic(null))', result: null },
    ],
  },
  {
    name: 'ensure_field',
    summary: "The field of that name, converted to the type given (typeof(string)…), where it exists; otherwise a null of that type, so a query runs whether or not a dataset has the field.",
    params: [text('field_name'), typeName('field_type')],
    returns: 'dynamic',
    bind: (args, site) => {
      const name = constantString(args, 0, site, 'field name');
      const type = String(constantValue(args[1] as Expr)) as ScalarType;
      const column = [...site.scope.columns].reverse().find((candidate) => !candidate.hidden && candidate.name === name);
      if (!column) return literal(type, null);
      const ref: Expr = { kind: 'column', column: column.id, type: column.type };
      if (column.type === type) return ref;
      if (type === 'dynamic') fail('type_mismatch', `ensure_field() finds '${name}', a ${column.type}, which cannot be made dynamic; ask for typeof(${column.type})`, argNode(site.node, 1));
      return call(CONVERTERS[type], [ref], type);
    },
    examples: [
      { apl: "ensure_field('user_agent', typeof(string))", result: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0', type: 'string' },
      { apl: "ensure_field('referer', typeof(string))", result: null, type: 'string' },
      { apl: "ensure_field('status', typeof(int))", result: 200, type: 'integer' },
      { apl: "ensure_field('geo.city', typeof(string))", result: 'Lisbon' },
      { apl: "ensure_field('status', 'string')", error: 'ensure_field() expects a type as argument 2, such as typeof(string), typeof(long) or typeof(datetime)' },
      {
        query: "['sample-http-logs'] | extend referer = ensure_field('referer', typeof(string)) | where isnull(referer) | count",
        rows: [{ count: 6 }],
      },
    ],
  },
  {
    name: 'isbool',
    summary: 'Whether the value is a bool (a dynamic value holding true or false included).',
    params: [anyValue('expression')],
    returns: 'bool',
    sql: (c) => (c.type(0) === 'bool' ? `(${c.arg(0)} IS NOT NULL)` : c.type(0) === 'dynamic' ? `coalesce(json_type(${c.arg(0)}) = 'BOOLEAN', false)` : 'false'),
    examples: [
      { apl: 'isbool(is_tls)', result: true, type: 'boolean' },
      { apl: 'isbool(parse_json("true"))', result: true },
      { apl: 'isbool("true")', result: false },
      { apl: 'isbool(1)', result: false },
    ],
  },
  {
    name: 'toarray',
    summary: 'An array: an array as it is, a property bag’s values, any other value as the array of that one value; an empty array for null.',
    params: [anyValue('value')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => {
      const value = c.arg(0);
      const type = c.type(0);
      if (type !== 'dynamic') {
        const element = type === 'datetime' ? formatDatetimeSql(value) : type === 'timespan' ? toText(value, type) : value;
        return `CASE WHEN ${value} IS NULL THEN '[]' ELSE ${jsonText(`[${element}]`)} END`;
      }
      return `CASE json_type(${value}) WHEN 'ARRAY' THEN ${value} WHEN 'OBJECT' THEN ${jsonText(`json_extract(${value}, '$.*')`)} WHEN 'NULL' THEN '[]' ELSE coalesce('[' || ${value} || ']', '[]') END`;
    },
    examples: [
      { apl: "toarray('123')", result: ['123'], type: 'array' },
      { apl: 'toarray(dynamic([1, 2]))', result: [1, 2] },
      { apl: 'toarray(dynamic({"a": 1, "b": "x"}))', result: [1, 'x'] },
      { apl: 'toarray(resp_body_size_bytes)', result: [2048] },
      { apl: 'toarray(dynamic(null))', result: [] },
    ],
  },
  {
    name: 'tobool',
    aliases: ['toboolean'],
    summary: 'The value as a bool: numbers, timespans and datetimes are true unless 0 (the epoch); text 1, t, T, TRUE, true, True or 0, f, F, FALSE, false, False; anything else null.',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => toBool(c.arg(0), c.type(0)),
    examples: [
      { apl: 'tobool("TRUE")', result: true, type: 'boolean' },
      { apl: 'tobool("1")', result: true },
      { apl: 'tobool("f")', result: false },
      { apl: 'tobool("yes")', result: null },
      { apl: 'tobool("tRuE")', result: null },
      { apl: 'tobool(0)', result: false },
      { apl: 'tobool(2.5)', result: true },
      { apl: 'tobool(1s)', result: true },
      { apl: 'tobool(datetime(1970-01-01))', result: false },
      { apl: 'toboolean(parse_json("[1]")[0])', result: true },
    ],
  },
  {
    name: 'todatetime',
    summary:
      'The value as a datetime: numbers are nanoseconds since the epoch; text in ISO 8601 / RFC 3339 (any offset), epoch digits (10 seconds, 13 ms, 16 µs, 19 ns) or a common date format such as 2024/06/24 or Jun 24, 2024; else null.',
    params: [oneOf('value', ['string', 'datetime', 'dynamic', 'long', 'real'])],
    returns: 'datetime',
    sql: (c) => {
      const type = c.type(0);
      if (type === 'datetime' || type === 'long') return c.arg(0);
      if (type === 'real') return `TRY_CAST(${c.arg(0)} AS BIGINT)`;
      if (type === 'string') return parseDatetimeSql(c.arg(0));
      const value = c.arg(0);
      return `CASE WHEN json_type(${value}) IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN TRY_CAST(CAST(${value} AS DOUBLE) AS BIGINT) ELSE ${parseDatetimeSql(toText(value, 'dynamic'))} END`;
    },
    examples: [
      { apl: "todatetime('2024-06-24')", result: '2024-06-24T00:00:00Z', type: 'datetime' },
      { apl: 'todatetime("2024-05-01T10:00:00+02:00")', result: '2024-05-01T08:00:00Z' },
      { apl: 'todatetime("2024-05-01 10:11:12.123456789Z")', result: '2024-05-01T10:11:12.123456789Z' },
      { apl: "todatetime('1332151919')", result: '2012-03-19T10:11:59Z' },
      { apl: "todatetime('2014/04/08 22:05:00')", result: '2014-04-08T22:05:00Z' },
      { apl: "todatetime('May 8, 2009 5:57:51 PM')", result: '2009-05-08T17:57:51Z' },
      { apl: "todatetime('Mon, 02 Jan 2006 15:04:05 MST')", result: '2006-01-02T22:04:05Z' },
      { apl: 'todatetime(1000000000)', result: '1970-01-01T00:00:01Z' },
      { apl: 'todatetime("not a date")', result: null },
    ],
  },
  {
    name: 'todouble',
    aliases: ['toreal'],
    summary: 'The value as a real: text as a floating-point number (1e3 included), true as 1, datetimes and timespans as nanoseconds; else null.',
    params: [anyValue('value')],
    returns: 'real',
    sql: (c) => toReal(c.arg(0), c.type(0)),
    examples: [
      { apl: 'todouble("2.5")', result: 2.5, type: 'float' },
      { apl: 'todouble("1e3")', result: 1000 },
      { apl: 'todouble(3)', result: 3 },
      { apl: 'toreal("abc")', result: null },
      { apl: 'todouble(true)', result: 1 },
      { apl: 'todouble(1ms)', result: 1000000 },
      { apl: 'todouble(dynamic(1.25))', result: 1.25 },
    ],
  },
  {
    name: 'todynamic',
    summary: 'The JSON value a string holds, as dynamic; null where it is not JSON.',
    params: [text('value')],
    returns: 'dynamic',
    sql: (c) => `CASE WHEN json_valid(${c.arg(0)}) THEN CAST(json(${c.arg(0)}) AS VARCHAR) END`,
    examples: [
      { apl: 'todynamic(\'{"uri": "/api/v1/customer/services", "status": "200"}\')', result: { uri: '/api/v1/customer/services', status: '200' }, type: 'object' },
      { apl: "todynamic('[1, 2]')", result: [1, 2] },
      { apl: "todynamic('not json')", result: null },
      {
        query: "['sample-http-logs'] | extend criteria = todynamic('{\"method\": \"GET\", \"status\": \"200\"}') | where method == criteria.method and status == criteria.status | count",
        rows: [{ count: 2 }],
      },
    ],
  },
  {
    name: 'tohex',
    summary: 'An integer in lower-case hexadecimal (a negative one in 64-bit two’s complement), padded with zeros to `minLength`.',
    params: [integer('value'), integer('minLength', { optional: true })],
    returns: 'string',
    sql: (c) => {
      const hex = `lower(to_hex(${c.arg(0)}))`;
      return c.call.args.length > 1 ? `lpad(${hex}, CAST(greatest(${c.arg(1)}, length(${hex})) AS INTEGER), '0')` : hex;
    },
    examples: [
      { apl: 'tohex(12345, 8)', result: '00003039', type: 'string' },
      { apl: 'tohex(256)', result: '100' },
      { apl: 'tohex(-546)', result: 'fffffffffffffdde' },
      { apl: 'tohex(resp_body_size_bytes, 2)', result: '800' },
    ],
  },
  {
    name: 'toint',
    aliases: ['tolong'],
    summary: 'The value as a 64-bit integer: reals truncate toward zero, bools are 1 or 0, datetimes and timespans nanoseconds, text must be an integer exactly; otherwise null.',
    params: [anyValue('value')],
    returns: 'long',
    sql: (c) => toLong(c.arg(0), c.type(0)),
    examples: [
      { apl: 'toint("123")', result: 123, type: 'integer' },
      { apl: 'toint("+7")', result: 7 },
      { apl: 'toint(2.9)', result: 2 },
      { apl: 'toint(-2.9)', result: -2 },
      { apl: 'toint("12a")', result: null },
      { apl: 'toint(" 12")', result: null },
      { apl: 'toint("0x1F")', result: null },
      { apl: 'tolong(true)', result: 1 },
      { apl: 'toint(1s)', result: 1000000000 },
      { query: "['sample-http-logs'] | where toint(status) >= 400 | count", rows: [{ count: 2 }] },
    ],
  },
  {
    name: 'tostring',
    summary: 'The value as a string: reals in their shortest form, datetimes RFC 3339, timespans as Go writes durations (1h30m0s); null becomes the empty string.',
    params: [anyValue('value')],
    returns: 'string',
    sql: (c) => `coalesce(${toText(c.arg(0), c.type(0))}, '')`,
    examples: [
      { apl: 'tostring(123)', result: '123', type: 'string' },
      { apl: 'tostring(12.5)', result: '12.5' },
      { apl: 'tostring(100.0)', result: '100' },
      { apl: 'tostring(int(null))', result: '' },
      { apl: 'tostring(is_tls)', result: 'true' },
      { apl: 'tostring(datetime(2024-01-02T03:04:05.5Z))', result: '2024-01-02T03:04:05.5Z' },
      { apl: 'tostring(80s)', result: '1m20s' },
      { apl: 'tostring(90m)', result: '1h30m0s' },
      { apl: 'tostring(1.5ms)', result: '1.5ms' },
      { apl: 'tostring(-2d)', result: '-48h0m0s' },
      { apl: 'tostring(0s)', result: '0s' },
      { apl: 'tostring(dynamic({"a": [1, 2]}))', result: '{"a":[1,2]}' },
      { apl: 'tostring(dynamic(["x", 1.5, true]))', result: '["x",1.5,true]' },
      { apl: 'tostring(dynamic(["x", 1.5, true])[0])', result: 'x' },
      { apl: 'tostring(dynamic(["x", 1.5, true])[1])', result: '1.5' },
      // A JSON null inside a dynamic value is null: it converts to "", not to the text "null".
      { apl: 'tostring(dynamic([1, null])[1])', result: '' },
      { apl: 'tostring(parse_json("null"))', result: '' },
    ],
  },
  {
    name: 'totimespan',
    summary:
      'The value as a timespan: numbers are nanoseconds; text a Go duration (300ms, -1.5h, 2h45m; units ns, us, µs, ms, s, m, h), APL’s units (2d, 10min) or [d.]hh:mm[:ss[.f]]; else null.',
    params: [oneOf('value', ['string', 'timespan', 'dynamic', 'long', 'real'])],
    returns: 'timespan',
    sql: (c) => {
      const type = c.type(0);
      if (type === 'timespan' || type === 'long') return c.arg(0);
      if (type === 'real') return `TRY_CAST(round(${c.arg(0)}) AS BIGINT)`;
      if (type === 'string') return parseTimespanSql(c.arg(0));
      const value = c.arg(0);
      return `CASE WHEN json_type(${value}) IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN TRY_CAST(round(CAST(${value} AS DOUBLE)) AS BIGINT) ELSE ${parseTimespanSql(toText(value, 'dynamic'))} END`;
    },
    examples: [
      { apl: "totimespan('300ms')", result: '00:00:00.3', type: 'timespan' },
      { apl: "totimespan('-1.5h')", result: '-01:30:00' },
      { apl: "totimespan('2h45m')", result: '02:45:00' },
      { apl: "totimespan('1.02:03:04.5')", result: '1.02:03:04.5' },
      { apl: "totimespan('10min')", result: '00:10:00' },
      { apl: "totimespan('1us')", result: '00:00:00.000001' },
      { apl: 'totimespan(1000000000)', result: '00:00:01' },
      { apl: 'totimespan(req_duration_ms * 1000000)', result: '00:00:00.0125' },
      { apl: "totimespan('soon')", result: null },
      { apl: "totimespan(tostring(90m)) == 90m", result: true },
    ],
  },
];
