import { argNode, call, fail } from '../check/context.js';
import type { ScalarType } from '../plan/types.js';
import { toText } from '../sql/convert.js';
import { reuse } from '../sql/reuse.js';
import { ANY, anyValue, boolean, constantString, dynamic, integer, oneOf, text } from './bind.js';
import { bagValue, jsonElements, jsonText, jsonValue } from './lowering.js';
import type { FunctionDef, SqlCall } from './types.js';

/**
 * Array and property bag functions (scalar-functions/array-functions). A dynamic value is JSON
 * text; an array is taken apart as a DuckDB list of JSON values (`jsonElements`), worked on with
 * list functions and lambdas, and put back together as JSON text (`jsonText`). A dynamic
 * argument that is not an array makes the result null unless the reference says otherwise.
 */

const NUMERIC_JSON = "('BIGINT', 'UBIGINT', 'DOUBLE')";

/** `body` given the elements of argument `index` (a JSON[] list, null when it is not an array), computed once per row. */
function withElements(c: SqlCall, index: number, name: string, body: (elements: string) => string): string {
  return reuse(jsonElements(c.arg(index)), name, body);
}

/**
 * Whether a JSON element equals a value of a plan type: numbers as numbers, text as text,
 * dynamic values as JSON text. DuckDB evaluates both sides of an AND, so the casts are TRY_CASTs.
 */
function elementEquals(element: string, value: string, type: ScalarType): string {
  switch (type) {
    case 'long':
    case 'real':
      return `(json_type(${element}) IN ${NUMERIC_JSON} AND TRY_CAST(${element} AS DOUBLE) = ${value})`;
    case 'bool':
      return `(json_type(${element}) = 'BOOLEAN' AND TRY_CAST(${element} AS BOOLEAN) = ${value})`;
    case 'dynamic':
      return `(CAST(${element} AS VARCHAR) = ${value})`;
    default:
      return `(json_type(${element}) = 'VARCHAR' AND json_extract_string(${element}, '$') = ${toText(value, type)})`;
  }
}

/** A JSON element as text: a string its content, null as empty, anything else its JSON. */
function elementText(element: string): string {
  return `CASE json_type(${element}) WHEN 'VARCHAR' THEN json_extract_string(${element}, '$') WHEN 'NULL' THEN '' ELSE CAST(${element} AS VARCHAR) END`;
}

/** A list of JSON values as a dynamic array; null stays null. */
const asArray = jsonText;

/** The elements rotated left by `shift` (right when negative), as a list. */
function rotated(elements: string, shift: string): string {
  const length = `len(${elements})`;
  const k = `((${shift} % greatest(${length}, 1)) + greatest(${length}, 1)) % greatest(${length}, 1)`;
  return `list_concat(list_slice(${elements}, ${k} + 1, ${length}), list_slice(${elements}, 1, ${k}))`;
}

/** The elements shifted left by `shift` (right when negative), the emptied places holding `fill`. */
function shifted(elements: string, shift: string, fill: string): string {
  const length = `len(${elements})`;
  const n = `least(abs(${shift}), ${length})`;
  const fills = `list_transform(range(${n}), _ -> ${fill})`;
  return `CASE WHEN ${shift} >= 0 THEN list_concat(list_slice(${elements}, ${n} + 1, ${length}), ${fills}) ELSE list_concat(${fills}, list_slice(${elements}, 1, ${length} - ${n})) END`;
}

/** An index counted from the end when negative, clamped to [0, length]. */
function clampIndex(index: string, length: string): string {
  return `least(greatest(CASE WHEN ${index} < 0 THEN ${length} + ${index} ELSE ${index} END, 0), ${length})`;
}

/**
 * The sort key of a JSON element: numbers (and bools) first, then strings, then arrays and
 * objects by their text, nulls last (first when `nullsFirst`); a desc sort reverses the groups
 * but keeps nulls where they were asked.
 */
function sortKey(element: string, desc: boolean, nullsLast: string): string {
  const nullGroup = `CASE WHEN ${nullsLast} THEN ${desc ? -1 : 9} ELSE ${desc ? 9 : -1} END`;
  const group = `CASE WHEN ${element} IS NULL OR json_type(${element}) = 'NULL' THEN ${nullGroup} WHEN json_type(${element}) IN ${NUMERIC_JSON} THEN 0 WHEN json_type(${element}) = 'BOOLEAN' THEN 1 WHEN json_type(${element}) = 'VARCHAR' THEN 2 ELSE 3 END`;
  const number = `CASE WHEN json_type(${element}) IN ${NUMERIC_JSON} THEN TRY_CAST(${element} AS DOUBLE) WHEN json_type(${element}) = 'BOOLEAN' THEN CAST(TRY_CAST(${element} AS BOOLEAN) AS DOUBLE) END`;
  const string = `CASE WHEN json_type(${element}) = 'VARCHAR' THEN json_extract_string(${element}, '$') ELSE CAST(${element} AS VARCHAR) END`;
  return `{'g': ${group}, 'n': ${number}, 's': ${string}, 'e': ${element}}`;
}

function sortArray(c: SqlCall, desc: boolean): string {
  const nullsLast = c.call.args.length > 1 ? `coalesce(${c.arg(1)}, true)` : 'true';
  return withElements(c, 0, 'se', (elements) => {
    const sorted = `list_sort(list_transform(${elements}, e -> ${sortKey('e', desc, nullsLast)}), '${desc ? 'DESC' : 'ASC'}')`;
    return `coalesce(${asArray(`list_transform(${sorted}, k -> k.e)`)}, '[]')`;
  });
}

/** A value as an element of `array_iff`'s result: argument `index`'s element `i` when it is an array, else the value itself. */
function choice(c: SqlCall, index: number, i: string): string {
  if (c.type(index) !== 'dynamic') return jsonValue(c.arg(index), c.type(index));
  const value = c.arg(index);
  return `CASE WHEN json_type(${value}) = 'ARRAY' THEN CAST(${value} AS JSON[])[${i} + 1] ELSE CAST(${value} AS JSON) END`;
}

/** A property bag from a list of distinct keys and the JSON value of each (first occurrence of a key wins). */
function objectOf(keys: string, value: (index: string) => string): string {
  const distinct = `list_filter(range(len(${keys})), i -> list_position(${keys}, ${keys}[i + 1]) = i + 1)`;
  return `CAST(to_json(map_from_entries(list_transform(${distinct}, i -> {'k': ${keys}[i + 1], 'v': ${value('i')}}))) AS VARCHAR)`;
}

/** A dynamic argument that must be a property bag, as a MAP of its keys to JSON values. */
function bagMap(bag: string): string {
  return `CASE WHEN json_type(${bag}) = 'OBJECT' THEN CAST(CAST(${bag} AS JSON) AS MAP(VARCHAR, JSON)) END`;
}

/** `bag_pack`'s arguments are pairs: the keys (even positions) must be strings. */
function bindPairs(site: Parameters<NonNullable<FunctionDef['bind']>>[1], args: Parameters<NonNullable<FunctionDef['bind']>>[0]): void {
  if (args.length % 2 !== 0) fail('wrong_arity', `${site.name}() expects key and value pairs, got ${args.length} arguments`, site.node.name);
  args.forEach((arg, index) => {
    if (index % 2 === 0 && arg.type !== 'string') fail('type_mismatch', `${site.name}() expects a string key as argument ${index + 1}, got ${arg.type}`, argNode(site.node, index));
  });
}

const bagPack: Pick<FunctionDef, 'params' | 'variadic' | 'returns' | 'reported' | 'bind' | 'sql'> = {
  params: [oneOf('key', ANY, { optional: true }), anyValue('value', { optional: true })],
  variadic: 128,
  returns: 'dynamic',
  reported: 'object',
  bind: (args, site) => {
    bindPairs(site, args);
    return call('bag_pack', args, 'dynamic');
  },
  sql: (c) => {
    const parts = c.args().map((sql, index) => (index % 2 === 0 ? `coalesce(${sql}, '')` : jsonValue(sql, c.type(index))));
    return `CAST(json_object(${parts.join(', ')}) AS VARCHAR)`;
  },
};

/** Array and property bag functions (scalar-functions/array-functions). */
export const ARRAY_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'array_concat',
    summary: 'The arrays joined into one, in order; null when any argument is not an array.',
    params: [dynamic('array')],
    variadic: 64,
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => {
      const arrays = c.args();
      const all = arrays.map((sql) => `json_type(${sql}) = 'ARRAY'`).join(' AND ');
      return `CASE WHEN ${all} THEN ${asArray(`flatten([${arrays.map((sql) => `CAST(${sql} AS JSON[])`).join(', ')}])`)} END`;
    },
    examples: [
      { apl: 'array_concat(dynamic([1, 2]), dynamic(["a"]), dynamic([]))', result: [1, 2, 'a'], type: 'array' },
      { apl: 'array_concat(pack_array(uri), pack_array(method))', result: ['/api/v1/users/42?expand=profile&lang=en', 'GET'] },
      { apl: 'array_concat(dynamic([1]), dynamic({"a": 1}))', result: null },
      { apl: 'array_concat(dynamic([1]), uri)', error: 'array_concat() expects a dynamic as argument 2, got string' },
    ],
  },
  {
    name: 'array_extract',
    summary: 'The values a JSON path (`$[*].name`, `$.a[0]`) selects in a dynamic value, always as an array.',
    params: [dynamic('sourceArray'), text('jsonPath')],
    returns: 'dynamic',
    reported: 'array',
    bind: (args, site) => {
      const path = constantString(args, 1, site, 'JSON path');
      if (!path.startsWith('$')) fail('invalid_argument', `${site.name}() expects a JSON path starting with $ as argument 2, got ${JSON.stringify(path)}`, argNode(site.node, 1));
      return call('array_extract', args, 'dynamic');
    },
    sql: (c) => {
      const path = String(c.value(1));
      // A path with a wildcard selects a list; any other path one value, or nothing.
      if (path.includes('*')) return `coalesce(${asArray(`json_extract(${c.arg(0)}, ${c.bind(path, 'string')})`)}, '[]')`;
      return reuse(`json_extract(${c.arg(0)}, ${c.bind(path, 'string')})`, 'ex', (found) => `CASE WHEN ${found} IS NULL THEN '[]' ELSE CAST(json_array(${found}) AS VARCHAR) END`);
    },
    examples: [
      { apl: "array_extract(dynamic([{'id': 1, 'value': true}, {'id': 2, 'value': false}]), @'$[*].value')", result: [true, false], type: 'array' },
      { apl: "array_extract(dynamic([{'id': 1}, {'id': 2}]), '$[1].id')", result: [2] },
      { apl: "array_extract(dynamic([{'id': 1}]), '$[*].name')", result: [] },
      { query: "['sample-http-logs'] | where server_datacenter == 'DCB' | summarize events = make_list(pack('uri', uri, 'status', status)) | project codes = array_extract(events, @'$[*].status')", rows: [{ codes: ['500', '201'] }] },
      { apl: "array_extract(dynamic([1]), 'id')", error: 'array_extract() expects a JSON path starting with $ as argument 2, got "id"' },
    ],
  },
  {
    name: 'array_iff',
    aliases: ['array_iif'],
    summary: 'For each element of `condition_array`: the element of `array1` where it is true, of `array2` where false, null where it is not a bool; a scalar stands for every element.',
    params: [dynamic('condition_array'), anyValue('array1'), anyValue('array2')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) =>
      withElements(c, 0, 'ce', (conditions) => {
        const element = `CASE WHEN json_type(${conditions}[i + 1]) <> 'BOOLEAN' THEN NULL WHEN TRY_CAST(${conditions}[i + 1] AS BOOLEAN) THEN ${choice(c, 1, 'i')} ELSE ${choice(c, 2, 'i')} END`;
        return asArray(`list_transform(range(len(${conditions})), i -> ${element})`);
      }),
    examples: [
      { apl: 'array_iff(dynamic([true, false, true]), dynamic([1, 2, 3]), dynamic([4, 5, 6]))', result: [1, 5, 3], type: 'array' },
      { apl: 'array_iff(dynamic([true, false, 1]), dynamic([1, 2, 3]), 0)', result: [1, 0, null] },
      { apl: "array_iif(dynamic([false, true]), dynamic(['a']), 'b')", result: ['b', null] },
      {
        query: "['sample-http-logs'] | where server_datacenter == 'DCA' | summarize ok = make_list(status == '200'), duration = make_list(req_duration_ms) | project ok_duration = array_iff(ok, duration, 0)",
        rows: [{ ok_duration: [0.5, 0, 12.5] }],
      },
    ],
  },
  {
    name: 'array_index_of',
    summary:
      'The zero-based position of `lookup_value` in the array (its `occurrence`-th, 1 by default, searching `length` elements from `start`, negative from the end), -1 when absent; null for anything but an array.',
    params: [dynamic('array'), oneOf('lookup_value', ANY), integer('start', { optional: true }), integer('length', { optional: true }), integer('occurrence', { optional: true })],
    returns: 'long',
    sql: (c) => {
      const count = c.call.args.length;
      const start = count > 2 ? c.arg(2) : '0';
      const length = count > 3 ? c.arg(3) : '-1';
      const occurrence = count > 4 ? c.arg(4) : '1';
      return withElements(c, 0, 'ie', (elements) => {
        const from = clampIndex(start, `len(${elements})`);
        const to = `CASE WHEN ${length} < 0 THEN len(${elements}) ELSE least(${from} + ${length}, len(${elements})) END`;
        const found = `list_filter(range(${from}, ${to}), i -> ${elementEquals(`${elements}[i + 1]`, c.arg(1), c.type(1))})`;
        return `CASE WHEN ${elements} IS NULL OR ${occurrence} < 1 THEN NULL ELSE coalesce(${found}[${occurrence}], -1) END`;
      });
    },
    examples: [
      { apl: "array_index_of(dynamic(['200', '404', '500']), '500')", result: 2, type: 'integer' },
      { apl: 'array_index_of(dynamic([1, 2, 3, 2]), 2, 2)', result: 3 },
      { apl: 'array_index_of(dynamic([1, 2, 3, 2]), 2, 0, -1, 2)', result: 3 },
      { apl: 'array_index_of(dynamic([1, 2, 3, 2]), 2, -1)', result: 3 },
      { apl: 'array_index_of(dynamic([1, 2, 3]), 2.0)', result: 1 },
      { apl: "array_index_of(dynamic(['a']), 'b')", result: -1 },
      { apl: "array_index_of(dynamic({'a': 1}), 1)", result: null },
      { query: "['sample-http-logs'] | summarize statuses = make_list(status) | project at = array_index_of(statuses, '404')", rows: [{ at: 2 }] },
    ],
  },
  {
    name: 'array_length',
    summary: 'The number of elements of an array; null for anything else.',
    params: [dynamic('array')],
    returns: 'long',
    sql: (c) => reuse(c.arg(0), 'al', (value) => `CASE WHEN json_type(${value}) = 'ARRAY' THEN CAST(json_array_length(${value}) AS BIGINT) END`),
    examples: [
      { apl: 'array_length(dynamic([1, 2, 3]))', result: 3, type: 'integer' },
      { apl: 'array_length(dynamic([]))', result: 0 },
      { apl: "array_length(dynamic({'a': 1}))", result: null },
      { apl: 'array_length(parse_json(uri))', result: null },
      { query: "['sample-http-logs'] | summarize methods = make_set(method) | project n = array_length(methods)", rows: [{ n: 4 }] },
      { apl: 'array_length(uri)', error: 'array_length() expects a dynamic as argument 1, got string' },
    ],
  },
  {
    name: 'array_reverse',
    summary: 'The array with its elements in reverse order.',
    params: [dynamic('array')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => asArray(`list_reverse(${jsonElements(c.arg(0))})`),
    examples: [
      { apl: "array_reverse(dynamic(['/', '/cart', '/home']))", result: ['/home', '/cart', '/'], type: 'array' },
      { apl: 'array_reverse(dynamic([]))', result: [] },
      { apl: "array_reverse(dynamic({'a': 1}))", result: null },
    ],
  },
  {
    name: 'array_rotate_left',
    summary: 'The array rotated `positions` places to the left (right when negative): elements leaving the start come back at the end.',
    params: [dynamic('array'), integer('positions')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => withElements(c, 0, 're', (elements) => asArray(rotated(elements, c.arg(1)))),
    examples: [
      { apl: 'array_rotate_left(dynamic([1, 2, 3, 4, 5]), 2)', result: [3, 4, 5, 1, 2], type: 'array' },
      { apl: 'array_rotate_left(dynamic([1, 2, 3, 4, 5]), -1)', result: [5, 1, 2, 3, 4] },
      { apl: 'array_rotate_left(dynamic([1, 2, 3]), 7)', result: [2, 3, 1] },
      { apl: 'array_rotate_left(dynamic([]), 1)', result: [] },
    ],
  },
  {
    name: 'array_rotate_right',
    summary: 'The array rotated `positions` places to the right (left when negative): elements leaving the end come back at the start.',
    params: [dynamic('array'), integer('positions')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => withElements(c, 0, 're', (elements) => asArray(rotated(elements, `-(${c.arg(1)})`))),
    examples: [
      { apl: 'array_rotate_right(dynamic([1, 2, 3, 4, 5]), 2)', result: [4, 5, 1, 2, 3], type: 'array' },
      { apl: 'array_rotate_right(dynamic([1, 2, 3, 4, 5]), -2)', result: [3, 4, 5, 1, 2] },
    ],
  },
  {
    name: 'array_select_dict',
    summary: 'The first property bag of the array whose `key` equals `value`; elements that are not property bags are skipped; null when none matches.',
    params: [dynamic('array'), text('key'), oneOf('value', ANY)],
    returns: 'dynamic',
    reported: 'object',
    sql: (c) =>
      withElements(c, 0, 'de', (elements) => {
        const matches = `list_filter(${elements}, e -> coalesce(${elementEquals(bagValue('e', c.arg(1)), c.arg(2), c.type(2))}, false))`;
        return `CAST(${matches}[1] AS VARCHAR)`;
      }),
    examples: [
      {
        apl: 'array_select_dict(dynamic([{"service.name": "frontend", "status_code": "200"}, {"service.name": "backend", "status_code": "500"}]), "service.name", "backend")',
        result: { 'service.name': 'backend', status_code: '500' },
        type: 'object',
      },
      { apl: "array_select_dict(dynamic([1, {'a': 2}, {'a': 3}]), 'a', 3)", result: { a: 3 } },
      { apl: "array_select_dict(dynamic([{'a': 2}]), 'a', 5)", result: null },
    ],
  },
  {
    name: 'array_shift_left',
    summary: 'The array shifted `shift_amount` places to the left (right when negative); the emptied places hold `fill_value`, null by default.',
    params: [dynamic('array'), integer('shift_amount'), anyValue('fill_value', { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => withElements(c, 0, 'sh', (elements) => asArray(shifted(elements, c.arg(1), c.call.args.length > 2 ? jsonValue(c.arg(2), c.type(2)) : 'CAST(NULL AS JSON)'))),
    examples: [
      { apl: 'array_shift_left(dynamic([1, 2, 3, 4, 5]), 2)', result: [3, 4, 5, null, null], type: 'array' },
      { apl: 'array_shift_left(dynamic([1, 2, 3, 4, 5]), -2, -1)', result: [-1, -1, 1, 2, 3] },
      { apl: 'array_shift_left(dynamic([1, 2]), 5)', result: [null, null] },
    ],
  },
  {
    name: 'array_shift_right',
    summary: 'The array shifted `shift_amount` places to the right (left when negative); the emptied places hold `fill_value`, null by default.',
    params: [dynamic('array'), integer('shift_amount'), anyValue('fill_value', { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => withElements(c, 0, 'sh', (elements) => asArray(shifted(elements, `-(${c.arg(1)})`, c.call.args.length > 2 ? jsonValue(c.arg(2), c.type(2)) : 'CAST(NULL AS JSON)'))),
    examples: [
      { apl: 'array_shift_right(dynamic([1, 2, 3, 4, 5]), 1)', result: [null, 1, 2, 3, 4], type: 'array' },
      { apl: "array_shift_right(dynamic([1, 2, 3, 4, 5]), -1, 'x')", result: [2, 3, 4, 5, 'x'] },
    ],
  },
  {
    name: 'array_slice',
    summary: 'The elements from `start` (included) to `end` (excluded), either counted from the end when negative; indexes out of range are clamped.',
    params: [dynamic('array'), integer('start'), integer('end')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) =>
      withElements(c, 0, 'sl', (elements) => {
        const length = `len(${elements})`;
        return asArray(`list_slice(${elements}, ${clampIndex(c.arg(1), length)} + 1, ${clampIndex(c.arg(2), length)})`);
      }),
    examples: [
      { apl: 'array_slice(dynamic([1, 2, 3, 4, 5]), 1, 3)', result: [2, 3], type: 'array' },
      { apl: 'array_slice(dynamic([1, 2, 3, 4, 5]), -3, -1)', result: [3, 4] },
      { apl: 'array_slice(dynamic([1, 2, 3]), 1, 10)', result: [2, 3] },
      { apl: 'array_slice(dynamic([1, 2, 3]), 2, 1)', result: [] },
    ],
  },
  {
    name: 'array_sort_asc',
    summary: 'The array sorted ascending: numbers, then bools, strings and other values, nulls last (first when `nulls_last` is false); an empty array for anything but an array.',
    params: [dynamic('array'), boolean('nulls_last', { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => sortArray(c, false),
    examples: [
      { apl: "array_sort_asc(dynamic(['x', 'a', 'm', 'o', 'i']))", result: ['a', 'i', 'm', 'o', 'x'], type: 'array' },
      { apl: 'array_sort_asc(dynamic([10, 9, null, 1.5]))', result: [1.5, 9, 10, null] },
      { apl: 'array_sort_asc(dynamic([10, null, 9]), false)', result: [null, 9, 10] },
      { apl: "array_sort_asc(dynamic({'a': 1}))", result: [] },
    ],
  },
  {
    name: 'array_sort_desc',
    summary: 'The array sorted descending: strings, then bools and numbers, nulls last (first when `nulls_last` is false); an empty array for anything but an array.',
    params: [dynamic('array'), boolean('nulls_last', { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => sortArray(c, true),
    examples: [
      { apl: "array_sort_desc(dynamic(['x', 'a', 'm', 'o', 'i']))", result: ['x', 'o', 'm', 'i', 'a'], type: 'array' },
      { apl: 'array_sort_desc(dynamic([10, null, 9, 100]))', result: [100, 10, 9, null] },
    ],
  },
  {
    name: 'array_split',
    summary: 'The array cut before each index (one, or an array of them; negative from the end) into N+1 arrays.',
    params: [dynamic('array'), oneOf('indices', ['long', 'dynamic'])],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) =>
      withElements(c, 0, 'sp', (elements) => {
        const length = `len(${elements})`;
        const indices = c.type(1) === 'long' ? `[${c.arg(1)}]` : `list_transform(${jsonElements(c.arg(1))}, e -> TRY_CAST(e AS BIGINT))`;
        const cuts = `list_concat([0], list_transform(${indices}, x -> ${clampIndex('x', length)}), [${length}])`;
        return reuse(cuts, 'cu', (bounds) => `CASE WHEN ${elements} IS NOT NULL THEN ${asArray(`list_transform(range(len(${bounds}) - 1), i -> list_slice(${elements}, ${bounds}[i + 1] + 1, ${bounds}[i + 2]))`)} END`);
      }),
    examples: [
      { apl: 'array_split(dynamic([1, 2, 3, 4, 5]), 2)', result: [[1, 2], [3, 4, 5]], type: 'array' },
      { apl: 'array_split(dynamic([1, 2, 3]), dynamic([1, 2]))', result: [[1], [2], [3]] },
      { apl: 'array_split(dynamic([1, 2, 3, 4]), -1)', result: [[1, 2, 3], [4]] },
    ],
  },
  {
    name: 'array_sum',
    summary: 'The sum of the numeric elements of an array, as a real; null when it has none.',
    params: [dynamic('array')],
    returns: 'real',
    sql: (c) => `list_sum(list_transform(list_filter(${jsonElements(c.arg(0))}, e -> json_type(e) IN ${NUMERIC_JSON}), e -> TRY_CAST(e AS DOUBLE)))`,
    examples: [
      { apl: 'array_sum(dynamic([1, 2.5, "x", 3]))', result: 6.5, type: 'float' },
      { apl: 'array_sum(dynamic([]))', result: null },
      { query: "['sample-http-logs'] | summarize sizes = make_list(resp_body_size_bytes) by server_datacenter | project server_datacenter, total = array_sum(sizes) | sort by server_datacenter asc", rows: [
        { server_datacenter: 'DCA', total: 6144 },
        { server_datacenter: 'DCB', total: 576 },
        { server_datacenter: 'DCC', total: 128 },
      ] },
    ],
  },
  {
    name: 'bag_has_key',
    summary: 'Whether a property bag has a key (a top-level key, dots and all).',
    params: [dynamic('bag'), text('key')],
    returns: 'bool',
    sql: (c) => reuse(c.arg(0), 'hk', (bag) => c.exact(`(json_type(${bag}) = 'OBJECT' AND list_contains(json_keys(${bag}), ${c.arg(1)}))`)),
    examples: [
      { apl: "bag_has_key(bag_pack('source', 'cdn', 'env', 'prod'), 'env')", result: true, type: 'boolean' },
      { apl: "bag_has_key(dynamic({'a.b': 1}), 'a.b')", result: true },
      { apl: "bag_has_key(dynamic({'a': 1}), 'b')", result: false },
      { apl: "bag_has_key(dynamic(['a']), 'a')", result: false },
    ],
  },
  {
    name: 'bag_keys',
    summary: 'The keys of a property bag as an array of strings; null for anything else.',
    params: [dynamic('bag')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => reuse(c.arg(0), 'bk', (bag) => `CASE WHEN json_type(${bag}) = 'OBJECT' THEN ${asArray(`json_keys(${bag})`)} END`),
    examples: [
      { apl: "bag_keys(dynamic({ 'os': 'Windows', 'browser': 'Firefox', 'device': 'Desktop' }))", result: ['os', 'browser', 'device'], type: 'array' },
      { apl: 'bag_keys(dynamic({}))', result: [] },
      { apl: 'bag_keys(dynamic([1]))', result: null },
    ],
  },
  {
    name: 'bag_pack',
    aliases: ['pack'],
    summary: 'A property bag of key and value pairs (`bag_pack(key1, value1, key2, value2, …)`); datetimes and timespans are kept as their text.',
    ...bagPack,
    examples: [
      { apl: "bag_pack('uri', uri, 'method', method, 'duration_ms', req_duration_ms)", result: { uri: '/api/v1/users/42?expand=profile&lang=en', method: 'GET', duration_ms: 12.5 }, type: 'object' },
      { apl: "pack('city', ['geo.city'], 'tls', is_tls, 'at', _time)", result: { city: 'Lisbon', tls: true, at: '2024-05-01T12:00:05Z' } },
      { apl: "bag_pack('a', dynamic([1, 2]), 'b', dynamic(null))", result: { a: [1, 2], b: null } },
      { apl: "bag_pack('a')", error: 'bag_pack() expects key and value pairs, got 1 arguments' },
      { apl: "bag_pack(1, 'a')", error: 'bag_pack() expects a string key as argument 1, got long' },
    ],
  },
  {
    name: 'bag_remove_keys',
    summary: 'The property bag without the top-level keys an array lists; null for anything but a property bag.',
    params: [dynamic('bag'), dynamic('keys')],
    returns: 'dynamic',
    reported: 'object',
    sql: (c) => {
      const keys = `list_transform(${jsonElements(c.arg(1))}, e -> json_extract_string(e, '$'))`;
      const map = bagMap(c.arg(0));
      return `CAST(to_json(map_from_entries(list_filter(map_entries(${map}), e -> NOT coalesce(list_contains(${keys}, e.key), false)))) AS VARCHAR)`;
    },
    examples: [
      { apl: "bag_remove_keys(dynamic({'a': 1, 'b': 2, 'c': 3}), dynamic(['a', 'c']))", result: { b: 2 }, type: 'object' },
      { apl: "bag_remove_keys(dynamic({'a': 1}), dynamic([]))", result: { a: 1 } },
      { apl: "bag_remove_keys(dynamic([1]), dynamic(['a']))", result: null },
    ],
  },
  {
    name: 'bag_zip',
    summary: 'A property bag of the keys of one array and the values of another, in order: keys that are not strings are skipped, a key without a value gets null, a repeated key keeps its first value.',
    params: [dynamic('keys'), dynamic('values')],
    returns: 'dynamic',
    reported: 'object',
    sql: (c) =>
      withElements(c, 0, 'zk', (keys) =>
        withElements(c, 1, 'zv', (values) => {
          const names = `list_transform(list_filter(list_zip(${keys}, range(len(${keys}))), p -> json_type(p[1]) = 'VARCHAR'), p -> {'k': json_extract_string(p[1], '$'), 'i': p[2]})`;
          return reuse(names, 'zn', (pairs) => {
            const object = objectOf(`list_transform(${pairs}, p -> p.k)`, (i) => `${values}[${pairs}[${i} + 1].i + 1]`);
            return `CASE WHEN ${keys} IS NOT NULL AND ${values} IS NOT NULL THEN ${object} END`;
          });
        }),
      ),
    examples: [
      { apl: "bag_zip(dynamic(['status_code', 'request_method']), pack_array(status, method))", result: { status_code: '200', request_method: 'GET' }, type: 'object' },
      { apl: "bag_zip(dynamic(['a', 1, 'b', 'c', 'a']), dynamic([1, 2, 3]))", result: { a: 1, b: 3, c: null } },
      { apl: "bag_zip(dynamic({'a': 1}), dynamic([1]))", result: null },
    ],
  },
  {
    name: 'isarray',
    summary: 'Whether the value is a dynamic array.',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => (c.type(0) === 'dynamic' ? `coalesce(json_type(${c.arg(0)}) = 'ARRAY', false)` : 'false'),
    examples: [
      { apl: 'isarray(dynamic([1, 2]))', result: true, type: 'boolean' },
      { apl: "isarray(dynamic({'a': 1}))", result: false },
      { apl: 'isarray(uri)', result: false },
      { query: "['sample-http-logs'] | summarize methods = make_list(method) | project is_array = isarray(methods)", rows: [{ is_array: true }] },
    ],
  },
  {
    name: 'len',
    summary: 'The number of characters of a string or of elements of an array; null for null and for other dynamic values.',
    params: [oneOf('value', ['string', 'dynamic'])],
    returns: 'long',
    sql: (c) => {
      if (c.type(0) === 'string') return `CAST(length(${c.arg(0)}) AS BIGINT)`;
      return reuse(c.arg(0), 'ln', (value) => `CASE json_type(${value}) WHEN 'ARRAY' THEN CAST(json_array_length(${value}) AS BIGINT) WHEN 'VARCHAR' THEN CAST(length(json_extract_string(${value}, '$')) AS BIGINT) END`);
    },
    examples: [
      { apl: "len('Axiom')", result: 5, type: 'integer' },
      { apl: 'len(uri)', result: 39 },
      { apl: 'len(dynamic([1, 2, 3]))', result: 3 },
      { apl: 'len(string(null))', result: null },
      { apl: 'len(5)', error: 'len() expects one of string, dynamic as argument 1, got long' },
    ],
  },
  {
    name: 'pack_array',
    summary: 'An array of the arguments; datetimes and timespans are kept as their text.',
    params: [anyValue('value')],
    variadic: 64,
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => `CAST(json_array(${c.args().map((sql, index) => jsonValue(sql, c.type(index))).join(', ')}) AS VARCHAR)`,
    examples: [
      { apl: "pack_array(method, resp_body_size_bytes, is_tls, req_duration_ms, dynamic({'a': 1}))", result: ['GET', 2048, true, 12.5, { a: 1 }], type: 'array' },
      { apl: 'pack_array(string(null), 1h)', result: [null, '1h0m0s'] },
      { query: "['sample-http-logs'] | where server_datacenter == 'DCB' | project ids = pack_array(id, ['geo.city'])", rows: [{ ids: ['u-102', 'São Paulo'] }, { ids: ['u-105', 'Toronto'] }] },
    ],
  },
  {
    name: 'pack_dictionary',
    summary: 'A property bag of key and value pairs, as `bag_pack`.',
    ...bagPack,
    bind: (args, site) => {
      bindPairs(site, args);
      return call('pack_dictionary', args, 'dynamic');
    },
    examples: [
      { apl: "pack_dictionary('method', method, 'status', status, 'size', resp_body_size_bytes)", result: { method: 'GET', status: '200', size: 2048 }, type: 'object' },
      { apl: "pack_dictionary('geo', pack_dictionary('city', ['geo.city']))", result: { geo: { city: 'Lisbon' } } },
    ],
  },
  {
    name: 'strcat_array',
    summary: 'The elements of an array as text joined by `delimiter` (empty by default); strings without quotes, nulls as empty text; empty for anything but an array.',
    params: [dynamic('array'), text('delimiter', { optional: true })],
    returns: 'string',
    sql: (c) => {
      const delimiter = c.call.args.length > 1 ? c.arg(1) : "''";
      return `coalesce(array_to_string(list_transform(${jsonElements(c.arg(0))}, e -> ${elementText('e')}), ${delimiter}), '')`;
    },
    examples: [
      { apl: "strcat_array(dynamic(['GET /index', 'POST /submit']), ', ')", result: 'GET /index, POST /submit', type: 'string' },
      { apl: "strcat_array(dynamic([1, 'a', null, [2]]), '-')", result: '1-a--[2]' },
      { apl: 'strcat_array(dynamic([1, 2]))', result: '12' },
      { query: "['sample-http-logs'] | where server_datacenter == 'DCB' | summarize requests = make_list(strcat_delim(' ', method, uri)) | project paths = strcat_array(requests, ', ')", rows: [{ paths: 'PUT /api/v2/users/7/avatar, POST /api/v1/orders' }] },
    ],
  },
];
