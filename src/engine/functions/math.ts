import { NS_PER } from '../apl/literals.js';
import { argNode, call, constantValue, fail, isNumeric, literal } from '../check/context.js';
import type { Expr } from '../plan/types.js';
import { toText } from '../sql/convert.js';
import { sqlInteger } from '../sql/quote.js';
import { bindOnce } from '../sql/reuse.js';
import { formatDatetimeSql, formatTimespanSql } from '../sql/time.js';
import { NUMBER, anyValue, boolean, dynamic, expectArg, integer, number, oneOf, sameAs, unifyTypes } from './bind.js';
import { jsonElements, jsonText } from './lowering.js';
import type { BindSite, FunctionDef, SqlCall } from './types.js';

/** A function of one real argument with a DuckDB function of the same meaning, null outside `domain`. */
function real(
  name: string,
  summary: string,
  sql: (x: string) => string,
  examples: FunctionDef['examples'],
  domain?: (x: string) => string,
): FunctionDef {
  return {
    name,
    summary,
    params: [number('x')],
    returns: 'real',
    sql: (c) => {
      const x = c.cast(0, 'real');
      return domain ? `CASE WHEN ${domain(x)} THEN ${sql(x)} END` : sql(x);
    },
    examples,
  };
}

/** Whether a real is 0 or a negative integer, where gamma has a pole. */
const gammaPole = (x: string): string => `NOT (${x} <= 0 AND ${x} = floor(${x}))`;

/** The most elements `range` makes (the reference's system limit). */
const RANGE_LIMIT = 1_048_576n;

/** `range(start, stop, step)`: numbers, or datetimes and timespans stepping by a timespan (1h by default). */
function rangeSql(c: SqlCall): string {
  const type = c.type(0);
  const [start, stop] = [c.arg(0), c.arg(1)];
  const step = c.call.args.length > 2 ? c.arg(2) : type === 'datetime' || type === 'timespan' ? sqlInteger(NS_PER.hour) : '1';
  // Steps between start and stop (negative when the step points away), at most the limit's.
  const steps = `least(floor((${stop} - ${start}) / ${step}), ${sqlInteger(RANGE_LIMIT - 1n)})`;
  let values: string;
  if (type === 'real') {
    values = `list_transform(range(CAST(greatest(${steps} + 1, 0) AS BIGINT)), i -> ${start} + i * ${step})`;
  } else {
    values = `CASE WHEN ${steps} < 0 THEN [] ELSE generate_series(${start}, ${start} + ${step} * CAST(${steps} AS BIGINT), ${step}) END`;
    if (type === 'datetime') values = `list_transform(${values}, t -> ${formatDatetimeSql('t')})`;
    if (type === 'timespan') values = `list_transform(${values}, t -> ${formatTimespanSql('t')})`;
  }
  return `CASE WHEN ${step} <> 0 THEN ${jsonText(values)} END`;
}

/** `range`'s arguments in one type: numbers all long, or all real when any is. */
function bindRange(args: readonly Expr[], site: BindSite): Expr {
  const [start, stop, step] = args as [Expr, Expr, Expr | undefined];
  let type = unifyTypes(args, site, [0, 1]);
  const timeLike = type === 'datetime' || type === 'timespan';
  if (step) expectArg(args, 2, timeLike ? ['timespan'] : NUMBER, site);
  if (step?.type === 'real') type = 'real';
  const value = step ? constantValue(step) : undefined;
  if (value === 0n || value === 0) fail('invalid_argument', 'range() needs a step other than 0', argNode(site.node, 2));
  const inType = (arg: Expr): Expr => (arg.type === 'long' && type === 'real' ? call('todouble', [arg], 'real') : arg);
  return call('range', [inType(start), inType(stop), ...(step ? [inType(step)] : [])], 'dynamic');
}

/** One list of several: DuckDB's list_concat joins two at a time. */
function concatLists(lists: readonly string[]): string {
  return lists.reduce((all, list) => `list_concat(${all}, ${list})`);
}

/** The elements of dynamic argument `index` as JSON values, each once, in order. */
function distinctElements(list: string): string {
  return bindOnce(list, 'de', 'list_filter(de, (x, i) -> NOT list_contains(list_slice(de, 1, i - 1), x))');
}

/** `set_has_element`: whether an array holds a value, numbers compared as numbers. */
function hasElementSql(c: SqlCall): string {
  const type = c.type(1);
  const value = c.arg(1);
  let test: string;
  if (isNumeric(type)) test = `json_type(e) IN ('BIGINT', 'UBIGINT', 'DOUBLE') AND CAST(e AS DOUBLE) = ${value}`;
  else if (type === 'bool') test = `json_type(e) = 'BOOLEAN' AND CAST(e AS BOOLEAN) = ${value}`;
  else test = `json_type(e) = 'VARCHAR' AND json_extract_string(e, '$') = ${toText(value, type)}`;
  return `list_bool_or(list_transform(${jsonElements(c.arg(0))}, e -> ${test}))`;
}

/** Mathematical functions (scalar-functions/mathematical-functions). */
export const MATH_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'abs',
    summary: 'The absolute value of a number or a timespan.',
    params: [oneOf('x', ['long', 'real', 'timespan'])],
    returns: sameAs(0),
    sql: (c) => `abs(${c.arg(0)})`,
    examples: [
      { apl: 'abs(-5)', result: 5, type: 'integer' },
      { apl: 'abs(-2.5)', result: 2.5, type: 'float' },
      { apl: 'abs(-90m)', result: '01:30:00', type: 'timespan' },
      { apl: 'abs(req_duration_ms - 200)', result: 187.5 },
    ],
  },
  real('acos', 'The arc cosine in radians, in [0, π]; null outside [-1, 1].', (x) => `acos(${x})`, [
    { apl: 'acos(0.5)', result: 1.0471975511965979, type: 'float' },
    { apl: 'acos(2)', result: null },
  ], (x) => `${x} BETWEEN -1 AND 1`),
  real('asin', 'The arc sine in radians, in [-π/2, π/2]; null outside [-1, 1].', (x) => `asin(${x})`, [
    { apl: 'asin(0.5)', result: 0.5235987755982989, type: 'float' },
    { apl: 'asin(-1.5)', result: null },
  ], (x) => `${x} BETWEEN -1 AND 1`),
  real('atan', 'The arc tangent in radians, in (-π/2, π/2).', (x) => `atan(${x})`, [{ apl: 'atan(1)', result: 0.7853981633974483, type: 'float' }]),
  {
    name: 'atan2',
    summary: 'The angle in radians between the positive x-axis and the point (x, y), in (-π, π].',
    params: [number('y'), number('x')],
    returns: 'real',
    sql: (c) => `atan2(${c.cast(0, 'real')}, ${c.cast(1, 'real')})`,
    examples: [
      { apl: 'atan2(1, 1)', result: 0.7853981633974483, type: 'float' },
      { apl: 'atan2(0, -1)', result: 3.141592653589793 },
    ],
  },
  real('cos', 'The cosine of an angle in radians.', (x) => `cos(${x})`, [{ apl: 'cos(pi())', result: -1, type: 'float' }]),
  real('cot', 'The cotangent of an angle in radians; null where its sine is 0.', (x) => `cot(${x})`, [
    { apl: 'cot(pi() / 4)', result: 1, type: 'float' },
    { apl: 'cot(0)', result: null },
  ], (x) => `sin(${x}) <> 0`),
  real('degrees', 'An angle in radians, in degrees.', (x) => `degrees(${x})`, [{ apl: 'degrees(pi())', result: 180, type: 'float' }]),
  real('exp', 'e to the power x.', (x) => `exp(${x})`, [
    { apl: 'exp(1)', result: Math.E, type: 'float' },
    { apl: 'exp(0)', result: 1 },
  ]),
  real('exp10', '10 to the power x.', (x) => `pow(10, ${x})`, [{ apl: 'exp10(3)', result: 1000, type: 'float' }]),
  real('exp2', '2 to the power x.', (x) => `pow(2, ${x})`, [{ apl: 'exp2(10)', result: 1024, type: 'float' }]),
  real('gamma', 'The gamma function; null at 0 and the negative integers.', (x) => `gamma(${x})`, [
    { apl: 'gamma(5)', result: 24, type: 'float' },
    { apl: 'gamma(0.5)', result: Math.sqrt(Math.PI) },
    { apl: 'gamma(-2)', result: null },
  ], gammaPole),
  {
    name: 'isfinite',
    summary: 'Whether a number is neither infinite nor NaN.',
    params: [number('x')],
    returns: 'bool',
    sql: (c) => `isfinite(${c.cast(0, 'real')})`,
    examples: [
      { apl: 'isfinite(1.5)', result: true, type: 'boolean' },
      { apl: 'isfinite(exp(1000))', result: false },
      { apl: 'isfinite(sqrt(-1))', result: false },
    ],
  },
  {
    name: 'isinf',
    summary: 'Whether a number is positive or negative infinity.',
    params: [number('x')],
    returns: 'bool',
    sql: (c) => `isinf(${c.cast(0, 'real')})`,
    examples: [
      { apl: 'isinf(exp(1000))', result: true, type: 'boolean' },
      { apl: 'isinf(-exp(1000))', result: true },
      { apl: 'isinf(sqrt(-1))', result: false },
    ],
  },
  {
    name: 'isint',
    summary: 'Whether a number is an integer: a long, or a real without a fractional part (not NaN or infinity).',
    params: [number('expression')],
    returns: 'bool',
    sql: (c) => (c.type(0) === 'long' ? `(${c.arg(0)} IS NOT NULL)` : `(isfinite(${c.arg(0)}) AND ${c.arg(0)} = trunc(${c.arg(0)}))`),
    examples: [
      { apl: 'isint(42)', result: true, type: 'boolean' },
      { apl: 'isint(4.2)', result: false },
      { apl: 'isint(4.0)', result: true },
    ],
  },
  {
    name: 'isnan',
    summary: 'Whether a number is NaN (not a number).',
    params: [number('x')],
    returns: 'bool',
    sql: (c) => `isnan(${c.cast(0, 'real')})`,
    examples: [
      { apl: 'isnan(sqrt(-1))', result: true, type: 'boolean' },
      { apl: 'isnan(1.5)', result: false },
    ],
  },
  real('log', 'The natural logarithm; null for 0 and below.', (x) => `ln(${x})`, [
    { apl: 'log(exp(2))', result: 2, type: 'float' },
    { apl: 'log(0)', result: null },
    { apl: 'log(-1)', result: null },
  ], (x) => `${x} > 0`),
  real('log10', 'The base-10 logarithm; null for 0 and below.', (x) => `log10(${x})`, [
    { apl: 'log10(1000)', result: 3, type: 'float' },
    { apl: 'log10(0)', result: null },
  ], (x) => `${x} > 0`),
  real('log2', 'The base-2 logarithm; null for 0 and below.', (x) => `log2(${x})`, [
    { apl: 'log2(1024)', result: 10, type: 'float' },
    { apl: 'log2(-3)', result: null },
  ], (x) => `${x} > 0`),
  real('loggamma', 'The natural logarithm of the absolute value of the gamma function; null at 0 and the negative integers.', (x) => `lgamma(${x})`, [
    { apl: 'loggamma(5)', result: Math.log(24), type: 'float' },
    { apl: 'loggamma(0)', result: null },
  ], gammaPole),
  {
    name: 'max_of',
    summary: 'The largest of the arguments (of one type; numbers mix as real), nulls left out.',
    params: [anyValue('expr')],
    variadic: 64,
    returns: { of: (args, site) => unifyTypes(args, site, args.map((_, i) => i)), doc: 'the type of the arguments' },
    sql: (c) => `greatest(${c.call.args.map((_, i) => c.cast(i)).join(', ')})`,
    examples: [
      { apl: 'max_of(resp_header_size_bytes, resp_body_size_bytes)', result: 2048, type: 'integer' },
      { apl: 'max_of(1, 2.5, int(null))', result: 2.5, type: 'float' },
      { apl: "max_of('b', 'a')", result: 'b' },
      {
        query: "['sample-http-logs'] | extend m = max_of(resp_header_size_bytes, resp_body_size_bytes) | summarize sum(m)",
        rows: [{ sum_m: 4096 + 220 + 200 + 180 + 512 + 2048 }],
      },
    ],
  },
  {
    name: 'min_of',
    summary: 'The smallest of the arguments (of one type; numbers mix as real), nulls left out.',
    params: [anyValue('expr')],
    variadic: 64,
    returns: { of: (args, site) => unifyTypes(args, site, args.map((_, i) => i)), doc: 'the type of the arguments' },
    sql: (c) => `least(${c.call.args.map((_, i) => c.cast(i)).join(', ')})`,
    examples: [
      { apl: 'min_of(resp_header_size_bytes, resp_body_size_bytes)', result: 310, type: 'integer' },
      { apl: 'min_of(datetime(2024-01-02), datetime(2024-01-01))', result: '2024-01-01T00:00:00Z', type: 'datetime' },
      { apl: "min_of(1, 'a')", error: 'min_of() needs arguments of one type, got long and string (argument 2)' },
    ],
  },
  {
    name: 'not',
    summary: 'The negation of a bool.',
    params: [boolean('expr')],
    returns: 'bool',
    bind: (args) => call('not', args as Expr[], 'bool'),
    examples: [
      { apl: 'not(true)', result: false, type: 'boolean' },
      { apl: 'not(status == "500")', result: true },
      { apl: 'not(bool(null))', result: null },
      { query: "['sample-http-logs'] | where not(method == 'GET' or method == 'HEAD') | count", rows: [{ count: 3 }] },
    ],
  },
  {
    name: 'pi',
    summary: 'The constant π.',
    params: [],
    returns: 'real',
    bind: () => literal('real', Math.PI),
    examples: [{ apl: 'pi()', result: Math.PI, type: 'float' }],
  },
  {
    name: 'pow',
    summary: 'A base raised to a power.',
    params: [number('base'), number('exponent')],
    returns: 'real',
    sql: (c) => `pow(${c.cast(0, 'real')}, ${c.cast(1, 'real')})`,
    examples: [
      { apl: 'pow(2, 10)', result: 1024, type: 'float' },
      { apl: 'pow(req_duration_ms - 200.0, 2)', result: 35156.25 },
      { apl: 'pow(4, 0.5)', result: 2 },
    ],
  },
  real('radians', 'An angle in degrees, in radians.', (x) => `radians(${x})`, [{ apl: 'radians(180)', result: Math.PI, type: 'float' }]),
  {
    name: 'rand',
    summary: 'A pseudo-random real in [0, 1); with a range, a pseudo-random integer in [0, range).',
    params: [integer('range', { optional: true })],
    returns: { of: (args) => (args.length > 0 ? 'long' : 'real'), doc: 'real, or long with a range' },
    sql: (c) => (c.call.args.length > 0 ? `CASE WHEN ${c.arg(0)} > 0 THEN CAST(floor(random() * ${c.arg(0)}) AS BIGINT) END` : 'random()'),
    examples: [
      { apl: 'rand() >= 0 and rand() < 1', result: true },
      { apl: 'rand(10) between (0 .. 9)', result: true },
      { apl: 'gettype(rand(10))', result: 'long' },
    ],
  },
  {
    name: 'range',
    summary:
      'An array of values from `start` to `stop` (included when a step lands on it) by `step`: numbers (step 1), or datetimes and timespans (step 1h); at most 1,048,576 of them.',
    params: [oneOf('start', ['long', 'real', 'datetime', 'timespan']), oneOf('stop', ['long', 'real', 'datetime', 'timespan']), oneOf('step', ['long', 'real', 'timespan'], { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    bind: bindRange,
    sql: rangeSql,
    examples: [
      { apl: 'range(1, 10, 3)', result: [1, 4, 7, 10], type: 'array' },
      { apl: 'range(10, 1, -3)', result: [10, 7, 4, 1] },
      { apl: 'range(1, 2, 0.25)', result: [1, 1.25, 1.5, 1.75, 2] },
      { apl: 'range(5, 1)', result: [] },
      { apl: 'range(datetime(2024-01-01), datetime(2024-01-01T02:00:00Z))', result: ['2024-01-01T00:00:00Z', '2024-01-01T01:00:00Z', '2024-01-01T02:00:00Z'] },
      { apl: 'range(1h, 3h, 90m)', result: ['01:00:00', '02:30:00'] },
      { apl: 'strlen(tostring(range(1, 10000000)))', result: 7_277_505 },
      { apl: 'range(1, 3, 0)', error: 'range() needs a step other than 0' },
    ],
  },
  {
    name: 'round',
    summary: 'A number rounded half away from zero, to `precision` decimal places (0 by default).',
    params: [oneOf('number', ['long', 'real']), integer('precision', { optional: true })],
    returns: sameAs(0),
    sql: (c) => (c.call.args.length > 1 ? `round(${c.arg(0)}, CAST(${c.arg(1)} AS INTEGER))` : `round(${c.arg(0)})`),
    examples: [
      { apl: 'round(2.5)', result: 3, type: 'float' },
      { apl: 'round(-2.5)', result: -3 },
      { apl: 'round(1.2345, 2)', result: 1.23 },
      { apl: 'round(req_duration_ms)', result: 13 },
      { query: "['sample-http-logs'] | summarize a = avg(req_duration_ms) | extend r = round(a, 2)", rows: [{ a: 1053.5 / 6, r: 175.58 }] },
    ],
  },
  {
    name: 'set_difference',
    summary: 'The distinct elements of the first array that are in none of the others, in the first array’s order.',
    params: [dynamic('array1'), dynamic('array2')],
    variadic: 64,
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => {
      const others = c.call.args.slice(1).map((_, i) => `coalesce(${jsonElements(c.arg(i + 1))}, [])`);
      return jsonText(`list_filter(${distinctElements(jsonElements(c.arg(0)))}, x -> NOT list_contains(${concatLists(others)}, x))`);
    },
    examples: [
      { apl: 'set_difference(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))', result: [1], type: 'array' },
      { apl: 'set_difference(dynamic([1, 1, 2, 3]), dynamic([2]), dynamic([3]))', result: [1] },
      { apl: "set_difference(dynamic(['a', 'b']), dynamic([]))", result: ['a', 'b'] },
    ],
  },
  {
    name: 'set_has_element',
    summary: 'Whether an array holds a value (numbers compared as numbers).',
    params: [dynamic('set'), oneOf('value', ['long', 'real', 'datetime', 'timespan', 'string', 'bool'])],
    returns: 'bool',
    sql: (c) => c.exact(hasElementSql(c)),
    examples: [
      { apl: 'set_has_element(dynamic([1, 2, 3]), 2)', result: true, type: 'boolean' },
      { apl: 'set_has_element(dynamic([1, 2, 3]), 2.0)', result: true },
      { apl: "set_has_element(dynamic(['GET', 'PUT']), method)", result: true },
      { apl: "set_has_element(dynamic(['1']), 1)", result: false },
      { apl: 'set_has_element(dynamic({"a": 1}), 1)', result: false },
    ],
  },
  {
    name: 'set_intersect',
    summary: 'The distinct elements of the first array that are in every other one, in the first array’s order.',
    params: [dynamic('array1'), dynamic('array2')],
    variadic: 64,
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => {
      const tests = c.call.args.slice(1).map((_, i) => `list_contains(coalesce(${jsonElements(c.arg(i + 1))}, []), x)`);
      return jsonText(`list_filter(${distinctElements(jsonElements(c.arg(0)))}, x -> ${tests.join(' AND ')})`);
    },
    examples: [
      { apl: 'set_intersect(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))', result: [2, 3], type: 'array' },
      { apl: "set_intersect(dynamic(['b', 'a', 'b']), dynamic(['a', 'b', 'c']), dynamic(['b']))", result: ['b'] },
    ],
  },
  {
    name: 'set_union',
    summary: 'The distinct elements of all the arrays, in the order they first appear.',
    params: [dynamic('array1'), dynamic('array2')],
    variadic: 64,
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => jsonText(distinctElements(concatLists(c.call.args.map((_, i) => `coalesce(${jsonElements(c.arg(i))}, [])`)))),
    examples: [
      { apl: 'set_union(dynamic([1, 2, 3]), dynamic([2, 3, 4, 5]))', result: [1, 2, 3, 4, 5], type: 'array' },
      { apl: "set_union(dynamic(['a']), dynamic([{'k': 1}, 'a']))", result: ['a', { k: 1 }] },
    ],
  },
  {
    name: 'sign',
    summary: 'The sign of a number: -1, 0 or 1.',
    params: [number('x')],
    returns: sameAs(0),
    sql: (c) => `CAST(sign(${c.arg(0)}) AS ${c.type(0) === 'long' ? 'BIGINT' : 'DOUBLE'})`,
    examples: [
      { apl: 'sign(req_duration_ms - 200.0)', result: -1, type: 'float' },
      { apl: 'sign(0)', result: 0, type: 'integer' },
      { apl: 'sign(42)', result: 1 },
    ],
  },
  real('sin', 'The sine of an angle in radians.', (x) => `sin(${x})`, [{ apl: 'sin(pi() / 2)', result: 1, type: 'float' }]),
  {
    name: 'sqrt',
    summary: 'The square root; NaN (null in results, true for isnan) below 0.',
    params: [number('x')],
    returns: 'real',
    sql: (c) => `CASE WHEN ${c.cast(0, 'real')} < 0 THEN CAST('NaN' AS DOUBLE) ELSE sqrt(${c.cast(0, 'real')}) END`,
    examples: [
      { apl: 'sqrt(1600)', result: 40, type: 'float' },
      { apl: 'sqrt(-1)', result: null },
      { apl: 'isnan(sqrt(req_duration_ms - 500))', result: true },
    ],
  },
  real('tan', 'The tangent of an angle in radians.', (x) => `tan(${x})`, [{ apl: 'tan(pi() / 4)', result: 1, type: 'float' }]),
];
