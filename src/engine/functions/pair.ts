import { reuse } from '../sql/reuse.js';
import { dynamic, text } from './bind.js';
import { jsonElements } from './lowering.js';
import type { FunctionDef, SqlCall } from './types.js';

/** The separator argument at `index`, `:` when it is not given. */
const separator = (c: SqlCall, index: number): string => (c.call.args.length > index ? c.arg(index) : "':'");

/** The pair object `{key, separator, value}` as JSON text. */
const pairJson = (key: string, sep: string, value: string): string => `CAST(json_object('key', ${key}, 'separator', ${sep}, 'value', ${value}) AS VARCHAR)`;

/** A pair's text split at the first separator: the whole text is the value when there is none. */
function splitPair(pairText: string, sep: string): string {
  return reuse(pairText, 'pt', (t) =>
    reuse(sep, 'ps', (s) => {
      const at = `CASE WHEN ${s} = '' THEN 0 ELSE strpos(${t}, ${s}) END`;
      return `CASE WHEN ${t} IS NULL OR ${s} IS NULL THEN NULL WHEN ${at} = 0 THEN ${pairJson("''", s, t)} ELSE ${pairJson(`left(${t}, ${at} - 1)`, s, `substr(${t}, ${at} + length(${s}))`)} END`;
    }),
  );
}

/** A `*` wildcard pattern as a LIKE pattern (with `\` escaping LIKE's own `%` and `_`). */
function likePattern(pattern: string): string {
  return `replace(replace(replace(replace(${pattern}, '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%')`;
}

/** Pair functions (scalar-functions/pair-functions). */
export const PAIR_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'find_pair',
    summary: 'The first `key:value` string of an array whose key and value match wildcard patterns (`*` any text), as a pair object `{key, separator, value}`; null when none does.',
    params: [dynamic('array'), text('key_pattern'), text('value_pattern'), text('separator', { optional: true })],
    returns: 'dynamic',
    reported: 'object',
    sql: (c) => {
      const sep = separator(c, 3);
      const keyLike = likePattern(c.arg(1));
      const valueLike = likePattern(c.arg(2));
      const strings = `list_filter(list_transform(${jsonElements(c.arg(0))}, e -> CASE WHEN json_type(e) = 'VARCHAR' THEN json_extract_string(e, '$') END), s -> s IS NOT NULL AND contains(s, ${sep}))`;
      const matching = `list_filter(${strings}, s -> split_part(s, ${sep}, 1) LIKE ${keyLike} ESCAPE '\\' AND substr(s, strpos(s, ${sep}) + length(${sep})) LIKE ${valueLike} ESCAPE '\\')`;
      return `CASE WHEN ${sep} <> '' THEN ${splitPair(`${matching}[1]`, sep)} END`;
    },
    examples: [
      { apl: "find_pair(dynamic(['server:web01', 'env:production', 'region:us-west']), 'server', '*')", result: { key: 'server', separator: ':', value: 'web01' }, type: 'object' },
      { apl: "find_pair(dynamic(['env:staging', 'env:production']), 'e*', '*prod*')", result: { key: 'env', separator: ':', value: 'production' } },
      { apl: "find_pair(dynamic(['a=1', 'b=2']), 'b', '2', '=')", result: { key: 'b', separator: '=', value: '2' } },
      { apl: "find_pair(dynamic(['a:1']), 'b', '*')", result: null },
      { apl: "find_pair(dynamic(['100%:x']), '100%', '*')", result: { key: '100%', separator: ':', value: 'x' } },
    ],
  },
  {
    name: 'pair',
    summary: 'A pair object `{key, separator, value}` of a key, a value and a separator (`:` by default).',
    params: [text('key'), text('value'), text('separator', { optional: true })],
    returns: 'dynamic',
    reported: 'object',
    sql: (c) => pairJson(c.arg(0), separator(c, 2), c.arg(1)),
    examples: [
      { apl: "pair('method', method)", result: { key: 'method', separator: ':', value: 'GET' }, type: 'object' },
      { apl: "pair('env', 'prod', '=')", result: { key: 'env', separator: '=', value: 'prod' } },
      { apl: "pair('method', method).value", result: 'GET' },
    ],
  },
  {
    name: 'parse_pair',
    summary: 'A `key:value` string (split at the first separator, `:` by default) as a pair object `{key, separator, value}`; without the separator, the whole text is the value and the key is empty.',
    params: [text('pair_string'), text('separator', { optional: true })],
    returns: 'dynamic',
    reported: 'object',
    sql: (c) => splitPair(c.arg(0), separator(c, 1)),
    examples: [
      { apl: "parse_pair(strcat('method:', method))", result: { key: 'method', separator: ':', value: 'GET' }, type: 'object' },
      { apl: "parse_pair('url:http://x', ':')", result: { key: 'url', separator: ':', value: 'http://x' } },
      { apl: "parse_pair('k == v', ' == ')", result: { key: 'k', separator: ' == ', value: 'v' } },
      { apl: "parse_pair('no separator')", result: { key: '', separator: ':', value: 'no separator' } },
    ],
  },
];
