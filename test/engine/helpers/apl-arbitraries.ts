import fc from 'fast-check';
import { AGGREGATE_NAMES } from '../../../src/engine/aggregations/index.js';
import { JOIN_KINDS } from '../../../src/engine/apl/ast.js';
import { FUNCTION_NAMES } from '../../../src/engine/functions/index.js';

/** Arbitraries of APL text for property tests: token soups, and queries built from the grammar. */

const TOKENS = [
  'logs', '|', 'where', 'summarize', 'by', 'count()', '(', ')', '[', ']', "'x'", '"y"', '==', '!=', '=~', '!~', '<', '>=', 'and', 'or',
  'not', 'contains', '!has', 'has_cs', 'in', 'in~', '!in', 'between', '..', ',', '=', '1', '2.5', '-3', '1h', '100ms', 'datetime(2024-01-01)',
  'timespan(1.02:03)', 'dynamic([1, "a"])', 'dynamic({"k": null})', 'bin(_time, 1h)', 'bin_auto(_time)', 'status', 'bytes', 'duration',
  '_time', 'geo.city', "['geo.city']", 'tags', 'take', '10', 'sort', 'order', 'asc', 'desc', 'nulls', 'first', 'project', 'extend',
  'project-away', 'project-rename', 'distinct', 'top', 'count', 'search', '*', 'let', ';', '\n', '//c\n', 'percentile', 'topk', 'make_set',
  'arg_max', '-', '+', '/', '%', 'null', 'int(null)', '@"x\\y"', 'matches', 'regex', 'iff', 'case', 'strcat', 'tostring', 'ago', 'now()',
  '9223372036854775807', '1e308', "'\\u{1F600}'", '"\\0"', '$1', '?', '"\'; --"', 'parse', 'parse-where', 'parse-kv', 'with', 'kind=regex',
  'kind=relaxed', ':long', 'extend-valid', 'sample', '0.5', 'redact', 'replaceToken="x"', 'redactGroups=true', 'on', 'project-reorder',
  'granny-asc', "['geo.']*", 'set', 'stricttypes', '"*a*"', 'method:"GET"', 'as', 'pair_delimiter', '"(a)"', '"[x"',
];

export function aplTokenSoup(): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((tokens) => tokens.join(' '));
}

const BINARY = ['==', '!=', '<', '<=', '>', '>=', '=~', '!~', '+', '-', '*', '/', '%', 'and', 'or', 'contains', '!contains', 'has', '!has_cs', 'startswith', 'endswith_cs', 'hasprefix', 'matches regex'];
/** Every registry name (so each new function is fuzzed too), and one that is none. */
const FUNCTIONS = [...FUNCTION_NAMES, 'nosuchfunction'];
const AGGREGATES = AGGREGATE_NAMES;

function literal(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.integer({ min: -1000, max: 1000 }).map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((value) => (Number.isInteger(value) ? `${value}.0` : String(value))),
    fc.string({ maxLength: 8 }).map((text) => JSON.stringify(text)),
    fc.constantFrom('true', 'false', '1h', '30s', '100ms', 'datetime(2024-01-01T06:00:00Z)', 'int(null)', 'string(null)', 'dynamic(["a", 1])', '9223372036854775807'),
    fc.constantFrom('dynamic([1h, -2s, null])', 'dynamic([[1, 2], {"": 3, "a.b": [4]}])', 'dynamic({})', 'dynamic([])', 'dynamic([1.5, null, -3])'),
  );
}

/** Queries over `fields` built from the grammar: well-formed, though often not well-typed. */
export function aplQueries(fields: readonly string[]): fc.Arbitrary<string> {
  const name = fc.constantFrom(...fields, 'nosuchfield').map((field) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(field) ? field : `[${JSON.stringify(field)}]`));
  const { expr } = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      name,
      literal(),
      fc.tuple(tie('expr'), fc.constantFrom(...BINARY), tie('expr')).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(fc.constantFrom(...FUNCTIONS), fc.array(tie('expr'), { maxLength: 3 })).map(([fn, args]) => `${fn}(${args.join(', ')})`),
      fc.tuple(tie('expr'), fc.array(literal(), { minLength: 1, maxLength: 3 }), fc.constantFrom('in', '!in', 'in~')).map(([a, items, op]) => `${a} ${op} (${items.join(', ')})`),
      fc.tuple(tie('expr'), literal(), literal()).map(([a, low, high]) => `${a} between (${low} .. ${high})`),
      tie('expr').map((a) => `-${a}`),
      fc.tuple(tie('expr'), fc.constantFrom('[0]', '[-1]', "['a.b']", "['']", '.a', '[1][0]')).map(([a, index]) => `${a}${index}`),
    ),
  }));
  const aggregate = fc.oneof(
    fc.tuple(fc.constantFrom(...AGGREGATES), fc.array(fc.oneof(name, literal(), expr), { maxLength: 3 })).map(([fn, args]) => `${fn}(${args.join(', ')})`),
    // Named outputs: allowed in arg_max/arg_min, refused elsewhere.
    fc.tuple(fc.constantFrom('arg_max', 'arg_min', 'make_list', 'spotlight'), expr, fc.constantFrom('n', "['n.m']", 'status'), expr).map(([fn, a, n, b]) => `${fn}(${a}, ${n} = ${b})`),
  );
  const operator = fc.oneof(
    expr.map((e) => `where ${e}`),
    fc.tuple(fc.constantFrom('a', 'b', 'status'), expr).map(([n, e]) => `extend ${n} = ${e}`),
    fc.array(name, { minLength: 1, maxLength: 3 }).map((names) => `project ${names.join(', ')}`),
    fc.tuple(fc.array(aggregate, { minLength: 1, maxLength: 2 }), fc.array(fc.oneof(name, expr), { maxLength: 2 })).map(
      ([aggs, keys]) => `summarize ${aggs.join(', ')}${keys.length > 0 ? ` by ${keys.join(', ')}` : ''}`,
    ),
    fc.constantFrom('summarize count() by bin(_time, 1h)', 'summarize count() by bin_auto(_time), method'),
    fc.tuple(expr, fc.constantFrom('', ' asc', ' desc', ' asc nulls last')).map(([e, d]) => `sort by ${e}${d}`),
    fc.integer({ min: 0, max: 50 }).map((n) => `take ${n}`),
    fc.tuple(fc.integer({ min: 0, max: 5 }), expr).map(([n, e]) => `top ${n} by ${e}`),
    fc.constant('count'),
    name.map((n) => `distinct ${n}`),
    name.map((n) => `project-away ${n}`),
    fc.string({ maxLength: 6 }).map((term) => `search ${JSON.stringify(term)}`),
    fc.constant('getschema'),
    fc.tuple(fc.constantFrom('', 'withsource=src '), fc.constantFrom('logs', '(logs | take 3)', "(datatable(a:long) [1, 2])", 'l*')).map(([option, table]) => `union ${option}${table}`),
    fc.tuple(fc.constantFrom(...JOIN_KINDS), fc.oneof(name, expr)).map(([kind, key]) => `join kind=${kind} (logs | take 5) on ${key}`),
    fc.tuple(fc.constantFrom('leftouter', 'inner'), name).map(([kind, key]) => `lookup kind=${kind} (logs | take 5) on ${key}`),
    fc.tuple(aggregate, fc.constantFrom('', ' from ago(1h) to now()', ' from now() to ago(1h)'), fc.constantFrom('1m', '1h', '0s', '1'), fc.array(name, { maxLength: 1 })).map(
      ([agg, range, step, keys]) => `make-series ${agg} on _time${range} step ${step}${keys.length > 0 ? ` by ${keys.join(', ')}` : ''}`,
    ),
    fc.tuple(fc.constantFrom('', 'kind=bag ', 'with_itemindex=i '), fc.oneof(name, expr), fc.constantFrom('', ' to typeof(long)', ' to typeof(string)'), fc.constantFrom('', ' limit 2')).map(
      ([option, value, type, limit]) => `mv-expand ${option}v = ${value}${type}${limit}`,
    ),
    fc.tuple(fc.string({ maxLength: 6 }), name, fc.string({ maxLength: 6 })).map(([a, n, b]) => `search ${JSON.stringify(a)} or not ${n}:${JSON.stringify(b)}`),
    fc.tuple(fc.constantFrom('has', 'contains', 'matches regex'), fc.string({ maxLength: 6 })).map(([op, term]) => `where * ${op} ${JSON.stringify(term)}`),
    fc.tuple(name, fc.constantFrom('asc', 'desc', 'granny-asc', '')).map(([n, order]) => `project-reorder ${n}, * ${order}`),
    fc.tuple(fc.constantFrom('parse', 'parse-where', 'parse kind=relaxed', 'parse kind=regex'), name, fc.string({ maxLength: 4 }), fc.constantFrom('', ':long', ':real', ':datetime')).map(
      ([op, n, text, type]) => `${op} ${n} with * ${JSON.stringify(text)} a${type} ${JSON.stringify(text)} *`,
    ),
    fc.tuple(name, fc.string({ minLength: 1, maxLength: 2 })).map(([n, delimiter]) => `parse-kv ${n} as (a, b:long) with (pair_delimiter=${JSON.stringify(delimiter)}, kv_delimiter='=', quote='"')`),
    fc.tuple(fc.constantFrom('a', 'status'), expr).map(([n, e]) => `extend-valid ${n} = ${e}`),
    fc.double({ min: -1, max: 2, noNaN: true }).map((p) => `sample ${p}`),
    fc.tuple(fc.constantFrom('', 'replaceToken="#" ', 'replaceHash=true ', 'redactGroups=true '), fc.string({ maxLength: 5 }), name).map(
      ([options, pattern, n]) => `redact ${options}${JSON.stringify(pattern)} on ${n}`,
    ),
  );
  return fc.array(operator, { maxLength: 4 }).map((operators) => ['logs', ...operators].join('\n| '));
}
