import { argNode, asString, call, constantValue, fail, literal } from '../check/context.js';
import type { Expr, ScalarType } from '../plan/types.js';
import { quoteString, sqlInteger } from '../sql/quote.js';
import { bindOnce, reuse } from '../sql/reuse.js';
import { anyValue, constantInteger, dynamic, integer, number, oneOf, text, unifyTypes } from './bind.js';
import { jsonElements, jsonText, wrappedRegex } from './lowering.js';
import { captureNeverEmpty } from './regex-capture.js';
import type { BindSite, FunctionDef, SqlCall } from './types.js';

const isText = (type: ScalarType): boolean => type === 'string' || type === 'dynamic';

/** The number of capturing groups of a regular expression (RE2 syntax). */
function captureGroups(regex: string): number {
  let count = 0;
  let inClass = false;
  for (let i = 0; i < regex.length; i++) {
    const ch = regex[i];
    if (ch === '\\') {
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
      if (regex[i + 1] === '^') i++;
      if (regex[i + 1] === ']') i++;
    } else if (ch === '(' && (regex[i + 1] !== '?' || regex.startsWith('(?P<', i) || /^\(\?<[A-Za-z_]/.test(regex.slice(i, i + 4)))) {
      count++;
    }
  }
  return count;
}

/**
 * APL's rewrite (`$0` the whole match, `$1`…`$9` or `${1}` a group, `$$` a dollar sign, anything
 * else literal) as RE2's (`\0`…`\9`, a backslash doubled).
 */
function re2Rewrite(rewrite: string, site: BindSite, index: number): string {
  let out = '';
  for (let i = 0; i < rewrite.length; i++) {
    const ch = rewrite[i] as string;
    if (ch === '\\') {
      out += '\\\\';
      continue;
    }
    if (ch !== '$') {
      out += ch;
      continue;
    }
    if (rewrite[i + 1] === '$') {
      out += '$';
      i++;
      continue;
    }
    const group = /^(?:\{(\d+)\}|(\d+))/.exec(rewrite.slice(i + 1));
    if (!group) {
      if (rewrite[i + 1] === '{') fail('invalid_argument', `${site.name}() supports only numbered groups in the rewrite, such as $1 or \${1}`, argNode(site.node, index));
      out += '$';
      continue;
    }
    const n = Number(group[1] ?? group[2]);
    if (n > 9) fail('invalid_argument', `${site.name}() can refer to groups $0 to $9 in the rewrite, got $${n}`, argNode(site.node, index));
    out += `\\${n}`;
    i += group[0].length;
  }
  return out;
}

/** A regular expression's leading and/or trailing matches removed (`trim_regex` and its halves). */
function trimRegex(c: SqlCall, leading: boolean, trailing: boolean): string {
  const patterns = [...(leading ? [wrappedRegex(c, 0, '^(?:', ')+')] : []), ...(trailing ? [wrappedRegex(c, 0, '(?:', ')+$')] : [])];
  return patterns.reduce((sql, pattern) => `regexp_replace(${sql}, ${pattern}, '')`, c.arg(1));
}

/** Characters Go's `strings.TrimSpace` removes: Unicode white space. */
const SPACE = '[\\t\\n\\x{0B}\\f\\r \\x{85}\\p{Z}]';
/** ANSI escape sequences: CSI (colours, cursor), OSC (titles, links) and the two-character escapes. */
const ANSI_ESCAPE = '\\x1b\\[[0-9:;<=>?]*[ -/]*[@-~]|\\x1b\\][^\\x07\\x1b]*(?:\\x07|\\x1b\\\\)|\\x1b[@-Z\\\\-_]';
/** Go's `regexp.QuoteMeta`: the characters that have a meaning in a regular expression. */
const REGEX_META = '([\\\\.+*?()|\\[\\]{}^$])';

/** Units of data sizes: their power of the base, in upper case. */
const BYTE_UNITS: readonly (readonly [string, number])[] = [
  ['', 0],
  ['B', 0],
  ['BYTE', 0],
  ['BYTES', 0],
  ...['K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'].flatMap((prefix, i): [string, number][] => [
    [prefix, i + 1],
    [`${prefix}B`, i + 1],
    [`${prefix}IB`, i + 1],
  ]),
];

/** `base` 10 → 1000, 2 → 1024, else null; units ending in "iB" are always 1024. */
function unitFactor(unit: string, base: string): string {
  return `CASE WHEN ends_with(upper(${unit}), 'IB') THEN 1024.0 WHEN ${base} = 10 THEN 1000.0 WHEN ${base} = 2 THEN 1024.0 END`;
}

function unitPower(unit: string): string {
  return `CASE upper(${unit}) ${BYTE_UNITS.map(([name, power]) => `WHEN ${quoteString(name)} THEN ${power}`).join(' ')} END`;
}

/** `format_bytes(value, precision, units, base)`. */
function formatBytesSql(c: SqlCall): string {
  const count = c.call.args.length;
  const value = `CAST(${c.arg(0)} AS DOUBLE)`;
  const precision = count > 1 ? `greatest(least(${c.arg(1)}, 15), 0)` : '0';
  const units = count > 2 ? c.arg(2) : "''";
  const base = count > 3 ? c.arg(3) : '2';
  const size = `(CASE WHEN ${base} = 10 THEN 1000.0 WHEN ${base} = 2 THEN 1024.0 END)`;
  const autoPower = `CASE ${[8, 7, 6, 5, 4, 3, 2, 1].map((p) => `WHEN abs(${value}) >= pow(${size}, ${p}) THEN ${p}`).join(' ')} ELSE 0 END`;
  const labels = (names: readonly string[]): string => `[${names.map(quoteString).join(', ')}]`;
  const autoLabel = `(CASE WHEN ${base} = 10 THEN ${labels(['Bytes', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'])} ELSE ${labels(['Bytes', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'])} END)[${autoPower} + 1]`;
  const auto = `printf('%.*f', ${precision}, ${value} / pow(${size}, ${autoPower})) || ' ' || ${autoLabel}`;
  const fixed = `printf('%.*f', ${precision}, ${value} / pow(${unitFactor(units, base)}, ${unitPower(units)})) || ' ' || ${units}`;
  return `CASE WHEN ${units} = '' THEN ${auto} ELSE ${fixed} END`;
}

/** `parse_bytes(text, base)`: a number and a unit, in any case; 0 where it is not one. */
function parseBytesSql(c: SqlCall): string {
  const pattern = quoteString('^\\s*([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)\\s*([A-Za-z]*)\\s*$');
  const source = c.arg(0);
  const base = c.call.args.length > 1 ? c.arg(1) : '2';
  const amount = `CAST(regexp_extract(${source}, ${pattern}, 1) AS DOUBLE)`;
  const unit = `regexp_extract(${source}, ${pattern}, 2)`;
  const bytes = `TRY_CAST(floor(${amount} * pow(${unitFactor(unit, base)}, ${unitPower(unit)})) AS BIGINT)`;
  return `CASE WHEN ${source} IS NULL THEN NULL WHEN regexp_matches(${source}, ${pattern}) THEN coalesce(${bytes}, 0) ELSE 0 END`;
}

/** `key=value&…` (a leading `…?` and a trailing `#…` ignored) as an object; the first of repeated keys wins. */
function urlQueryObject(query: string): string {
  const decode = (part: string): string => `url_decode(replace(${part}, '+', ' '))`;
  const pairs = `list_transform(list_filter(string_split(${query}, '&'), p -> p <> ''), p -> {'k': ${decode("split_part(p, '=', 1)")}, 'v': ${decode("CASE WHEN contains(p, '=') THEN substr(p, strpos(p, '=') + 1) ELSE '' END")}})`;
  const first = `list_filter(qp, (e, i) -> NOT list_contains(list_slice(list_transform(qp, x -> x.k), 1, i - 1), e.k))`;
  const members = `list_transform(${first}, e -> CAST(to_json(e.k) AS VARCHAR) || ':' || CAST(to_json(e.v) AS VARCHAR))`;
  return bindOnce(pairs, 'qp', `'{' || array_to_string(${members}, ',') || '}'`);
}

/** The query part of a URL or of a bare query string: after the first `?`, before any `#`. */
function queryPart(source: string): string {
  return `split_part(CASE WHEN contains(${source}, '?') THEN substr(${source}, strpos(${source}, '?') + 1) ELSE ${source} END, '#', 1)`;
}

/** RFC 3986's pattern of a URI reference: scheme, authority, path, query, fragment. */
const URL_PARTS = '^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?://([^/?#]*))?([^?#]*)(?:\\?([^#]*))?(?:#(.*))?$';

function parseUrlSql(c: SqlCall): string {
  const url = c.arg(0);
  const part = (n: number): string => `regexp_extract(${url}, ${quoteString(URL_PARTS)}, ${n})`;
  const body = [
    `'"scheme":' || CAST(to_json(${part(1)}) AS VARCHAR)`,
    `'"host":' || CAST(to_json(regexp_replace(regexp_replace(a, '^[^@]*@', ''), ':[0-9]*$', '')) AS VARCHAR)`,
    `'"port":' || CAST(to_json(regexp_extract(regexp_replace(a, '^[^@]*@', ''), ':([0-9]*)$', 1)) AS VARCHAR)`,
    `'"path":' || CAST(to_json(url_decode(${part(3)})) AS VARCHAR)`,
    `'"username":' || CAST(to_json(url_decode(regexp_extract(a, '^([^:@]*)(?::[^@]*)?@', 1))) AS VARCHAR)`,
    `'"password":' || CAST(to_json(url_decode(regexp_extract(a, '^[^:@]*:([^@]*)@', 1))) AS VARCHAR)`,
    `'"query":' || ${urlQueryObject(part(4))}`,
    `'"fragment":' || CAST(to_json(url_decode(${part(5)})) AS VARCHAR)`,
  ];
  return `CASE WHEN ${url} IS NOT NULL THEN ${bindOnce(part(2), 'a', `'{' || ${body.join(" || ',' || ")} || '}'`)} END`;
}

/** `format_url`: Go's `url.URL.String()` of the parts in a property bag. */
function formatUrlSql(c: SqlCall): string {
  const bag = c.arg(0);
  // A part that is missing or null is left out (a JSON null is not the text "null").
  const get = (key: string): string => {
    const path = quoteString(`$.${key}`);
    return `coalesce(CASE json_type(${bag}, ${path}) WHEN 'VARCHAR' THEN json_extract_string(${bag}, ${path}) WHEN 'NULL' THEN NULL ELSE CAST(json_extract(${bag}, ${path}) AS VARCHAR) END, '')`;
  };
  const scheme = get('scheme');
  const host = get('host');
  const port = get('port');
  const user = get('user');
  const password = get('password');
  const path = get('path');
  const fragment = get('fragment');
  const queryType = `json_type(${bag}, '$.query')`;
  const queryObject = `array_to_string(list_transform(list_sort(json_keys(${bag}, '$.query')), k -> url_encode(k) || '=' || url_encode(coalesce(json_extract_string(${bag}, '$.query.' || CAST(to_json(k) AS VARCHAR)), ''))), '&')`;
  const query = `CASE ${queryType} WHEN 'OBJECT' THEN ${queryObject} WHEN 'VARCHAR' THEN ${get('query')} ELSE '' END`;
  const userinfo = `CASE WHEN ${user} = '' THEN '' WHEN ${password} = '' THEN url_encode(${user}) || '@' ELSE url_encode(${user}) || ':' || url_encode(${password}) || '@' END`;
  const authority = `CASE WHEN ${host} = '' AND ${user} = '' THEN '' ELSE '//' || ${userinfo} || ${host} || CASE WHEN ${port} = '' THEN '' ELSE ':' || ${port} END END`;
  // A path's slashes stay, as url.URL keeps them; every other reserved character is escaped.
  const escapedPath = `replace(url_encode(${path}), '%2F', '/')`;
  const slash = `CASE WHEN ${authority} <> '' AND ${path} <> '' AND NOT starts_with(${path}, '/') THEN '/' ELSE '' END`;
  return (
    `CASE WHEN json_type(${bag}) = 'OBJECT' THEN ` +
    `CASE WHEN ${scheme} = '' THEN '' ELSE ${scheme} || ':' END || ${authority} || ${slash} || ${escapedPath} || ` +
    `CASE WHEN ${query} = '' THEN '' ELSE '?' || ${query} END || CASE WHEN ${fragment} = '' THEN '' ELSE '#' || ${fragment} END END`
  );
}

/** `parse_path`: the parts of a file path, file URI or URL, as Kusto names them. */
function parsePathSql(c: SqlCall): string {
  const source = c.arg(0);
  const scheme = `regexp_extract(${source}, '^([A-Za-z][A-Za-z0-9+.-]+)://', 1)`;
  const root = `CASE WHEN ${scheme} <> '' THEN regexp_extract(${source}, '^[A-Za-z][A-Za-z0-9+.-]+://([^/\\\\]*)', 1) ELSE regexp_extract(${source}, '^([A-Za-z]:)', 1) END`;
  const lastSeparator = `greatest(strpos(reverse(${source}), '/'), strpos(reverse(${source}), '\\'))`;
  const directory = `CASE WHEN ${lastSeparator} = 0 THEN '' ELSE left(${source}, length(${source}) - ${lastSeparator}) END`;
  const file = `CASE WHEN ${lastSeparator} = 0 THEN ${source} ELSE right(${source}, ${lastSeparator} - 1) END`;
  // Inside the lambda: pp.d the directory path, pp.f the last part, with any `:stream` after the name.
  const filename = `regexp_replace(pp.f, ':.*$', '')`;
  const fields: readonly (readonly [string, string])[] = [
    ['Scheme', scheme],
    ['RootPath', root],
    ['DirectoryPath', 'pp.d'],
    ['DirectoryName', `regexp_extract(pp.d, '([^/\\\\]*)$', 1)`],
    ['Filename', filename],
    ['Extension', `regexp_extract(${filename}, '\\.([^.]*)$', 1)`],
    ['AlternateDataStream', `regexp_extract(pp.f, '^[^:]*:(.*)$', 1)`],
  ];
  const object = `'{' || ${fields.map(([key, value]) => `${quoteString(`"${key}":`)} || CAST(to_json(${value}) AS VARCHAR)`).join(" || ',' || ")} || '}'`;
  return `CASE WHEN ${source} IS NOT NULL THEN ${bindOnce(`{'d': ${directory}, 'f': ${file}}`, 'pp', object)} END`;
}

/** `extract_all`: every match's capture groups; one group gives a flat array. */
function bindExtractAll(args: readonly Expr[], site: BindSite): Expr {
  const [regex, second, third] = args;
  if (!regex || !second) throw new Error('extract_all needs its arguments.');
  const textArg = third ?? asString(second);
  let groups: number[] = [];
  if (third && second) {
    const value = constantValue(second);
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : undefined;
    if (!Array.isArray(parsed) || !parsed.every((group) => Number.isInteger(group) && group >= 0 && group <= 99)) {
      fail('invalid_argument', 'extract_all() needs a constant array of capture group numbers as argument 2, such as dynamic([1, 2])', argNode(site.node, 1));
    }
    groups = parsed as number[];
  }
  if (groups.length === 0) {
    const pattern = constantValue(regex);
    if (typeof pattern !== 'string') fail('invalid_argument', 'extract_all() needs a constant regular expression to take all of its capture groups; or list them, such as dynamic([1])', argNode(site.node, 0));
    const count = captureGroups(pattern);
    if (count === 0) fail('invalid_argument', 'extract_all() needs a regular expression with capture groups, such as "([0-9]+)"', argNode(site.node, 0));
    groups = Array.from({ length: count }, (_, i) => i + 1);
  }
  return call('extract_all', [regex, textArg, ...groups.map((group) => literal('long', BigInt(group)))], 'dynamic');
}

function extractAllSql(c: SqlCall): string {
  const groups = c.call.args.slice(2).map((_, i) => sqlInteger(c.value(i + 2) as bigint));
  const lists = groups.map((group) => `regexp_extract_all(${c.arg(1)}, ${c.arg(0)}, ${group})`);
  if (lists.length === 1) return jsonText(lists[0] as string);
  // Each list holds one entry per match, the same matches: zipped, they are the matches' groups.
  const zipped = bindOnce(`[${lists.join(', ')}]`, 'g', `list_transform(range(len(g[1])), i -> list_transform(g, l -> l[i + 1]))`);
  return jsonText(zipped);
}

/** `indexof` with a length or an occurrence: the nth (overlapping) occurrence within the examined span. */
function indexOfSql(c: SqlCall): string {
  const count = c.call.args.length;
  const source = c.arg(0);
  const lookup = c.arg(1);
  if (count < 3) return `(instr(${source}, ${lookup}) - 1)`;
  const start = `greatest(${c.arg(2)}, 0)`;
  if (count === 3) {
    const found = `instr(substring(${source}, ${start} + 1), ${lookup})`;
    return `CASE WHEN ${found} = 0 THEN -1 ELSE ${found} + ${start} - 1 END`;
  }
  const length = c.arg(3);
  const occurrence = count > 4 ? c.arg(4) : '1';
  const span = `CASE WHEN ${length} = -1 THEN substring(${source}, ${start} + 1) ELSE substring(${source}, ${start} + 1, ${length}) END`;
  const positions = `list_filter(range(length(w) - length(${lookup}) + 1), i -> substring(w, i + 1, length(${lookup})) = ${lookup})`;
  const nth = bindOnce(span, 'w', `coalesce(${positions}[${occurrence}] + ${start}, -1)`);
  return `CASE WHEN ${length} < -1 OR ${occurrence} < 1 THEN NULL ELSE ${nth} END`;
}

/** `indexof_regex(text, regex, start, occurrence, length)`: where the nth match starts, or -1. */
function indexOfRegexSql(c: SqlCall): string {
  const count = c.call.args.length;
  const source = c.arg(0);
  const regex = c.arg(1);
  const start = count > 2 ? c.arg(2) : '0';
  const occurrence = count > 3 ? c.arg(3) : '1';
  const length = count > 4 ? c.arg(4) : '-1';
  const span = `CASE WHEN ${length} = -1 THEN substring(${source}, ${start} + 1) ELSE substring(${source}, ${start} + 1, ${length}) END`;
  // The pieces between matches and the matches alternate: the nth match starts after n pieces and n - 1 matches.
  const position = `CASE WHEN len(x.m) < ${occurrence} THEN -1 ELSE ${start} + list_sum(list_transform(range(${occurrence}), i -> length(x.p[i + 1]) + CASE WHEN i + 1 < ${occurrence} THEN length(x.m[i + 1]) ELSE 0 END)) END`;
  const found = bindOnce(bindOnce(span, 'w', `{'p': regexp_split_to_array(w, ${regex}), 'm': regexp_extract_all(w, ${regex})}`), 'x', position);
  return `CASE WHEN ${start} < 0 OR ${occurrence} < 1 OR ${length} < -1 THEN NULL ELSE ${found} END`;
}

/** String functions (scalar-functions/string-functions). */
export const STRING_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'base64_decode_toarray',
    summary: 'The bytes a Base64 string (RFC 4648, with padding) encodes, as an array of numbers; an empty array where it is not Base64.',
    params: [text('base64_input')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) =>
      `CASE WHEN ${c.arg(0)} IS NOT NULL THEN coalesce(${jsonText(`list_transform(regexp_extract_all(hex(try(from_base64(${c.arg(0)}))), '..'), h -> CAST('0x' || h AS INTEGER))`)}, '[]') END`,
    examples: [
      { apl: "base64_decode_toarray('aGVsbG8gd29ybGQ=')", result: [104, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100], type: 'array' },
      { apl: "base64_decode_toarray('wKgAAQ==')", result: [192, 168, 0, 1] },
      { apl: "base64_decode_toarray('not base64!')", result: [] },
    ],
  },
  {
    name: 'base64_decode_tostring',
    summary: 'The UTF-8 text a Base64 string encodes; null where it is not Base64 or not UTF-8.',
    params: [text('value')],
    returns: 'string',
    sql: (c) => `try(decode(from_base64(${c.arg(0)})))`,
    examples: [
      { apl: "base64_decode_tostring('VGhpcyBpcyBhIHRlc3QgbWVzc2FnZQ==')", result: 'This is a test message', type: 'string' },
      { apl: "base64_decode_tostring('Y2hlY2tvdXQ=')", result: 'checkout' },
      { apl: "base64_decode_tostring('/w==')", result: null },
    ],
  },
  {
    name: 'base64_encode_fromarray',
    summary: 'The Base64 string of an array of bytes (numbers from 0 to 255); the empty string where the array holds anything else.',
    params: [dynamic('array')],
    returns: 'string',
    sql: (c) => {
      const elements = jsonElements(c.arg(0));
      const valid = `list_bool_and(list_transform(e, x -> json_type(x) IN ('UBIGINT', 'BIGINT') AND CAST(x AS BIGINT) BETWEEN 0 AND 255))`;
      const encoded = `to_base64(from_hex(array_to_string(list_transform(e, x -> printf('%02x', CAST(x AS BIGINT))), '')))`;
      return `CASE WHEN ${c.arg(0)} IS NOT NULL THEN ${bindOnce(elements, 'e', `CASE WHEN e IS NULL THEN '' WHEN len(e) = 0 THEN '' WHEN ${valid} THEN ${encoded} ELSE '' END`)} END`;
    },
    examples: [
      { apl: 'base64_encode_fromarray(dynamic([192, 168, 0, 1]))', result: 'wKgAAQ==', type: 'string' },
      { apl: 'base64_encode_fromarray(dynamic([104, 105]))', result: 'aGk=' },
      { apl: 'base64_encode_fromarray(dynamic([256]))', result: '' },
      { apl: 'base64_encode_fromarray(dynamic({"a": 1}))', result: '' },
    ],
  },
  {
    name: 'base64_encode_tostring',
    summary: 'The Base64 string of a text’s UTF-8 bytes.',
    params: [text('value')],
    returns: 'string',
    sql: (c) => `to_base64(encode(${c.arg(0)}))`,
    examples: [
      { apl: "base64_encode_tostring('checkout')", result: 'Y2hlY2tvdXQ=', type: 'string' },
      { apl: 'base64_encode_tostring(content_type)', result: 'YXBwbGljYXRpb24vanNvbg==' },
      { apl: "base64_encode_tostring('')", result: '' },
    ],
  },
  {
    name: 'coalesce',
    summary: 'The first argument that is not null; among strings, the first that is not empty either.',
    params: [anyValue('expr')],
    variadic: 64,
    returns: { of: (args, site) => unifyTypes(args, site, args.map((_, i) => i)), doc: 'the type of the arguments' },
    sql: (c) => {
      const values = c.call.args.map((_, i) => c.cast(i));
      if (c.call.type !== 'string') return `coalesce(${values.join(', ')})`;
      // Empty strings are passed over; when nothing else is left, the result is "" rather than null.
      return `coalesce(${values.map((value) => `nullif(${value}, '')`).join(', ')}, CASE WHEN coalesce(${values.join(', ')}) IS NOT NULL THEN '' END)`;
    },
    examples: [
      { apl: 'coalesce(string(null), "fallback")', result: 'fallback', type: 'string' },
      { apl: 'coalesce("", message, "x")', result: '  user login OK  ' },
      { apl: 'coalesce("", string(null))', result: '' },
      { apl: 'coalesce(int(null), 2, 3.5)', result: 2, type: 'float' },
      { apl: 'coalesce(long(null))', result: null },
      {
        query: "['sample-http-logs'] | extend text = coalesce(message, 'none') | summarize count() by text | where count_ > 1 or text == 'none'",
        rows: [{ text: 'none', count_: 2 }],
      },
    ],
  },
  {
    name: 'countof',
    summary: 'How many times `search` occurs in `text`, overlapping occurrences included.',
    params: [text('search'), text('text')],
    returns: 'long',
    sql: (c) => {
      const search = c.arg(0);
      const source = c.arg(1);
      const matches = `len(list_filter(range(length(${source}) - length(${search}) + 1), i -> substring(${source}, i + 1, length(${search})) = ${search}))`;
      return `CASE WHEN ${search} = '' THEN 0 ELSE ${matches} END`;
    },
    examples: [
      { apl: "countof('/', uri)", result: 4, type: 'integer' },
      { apl: "countof('aa', 'aaaa')", result: 3 },
      { apl: "countof('x', 'abc')", result: 0 },
      {
        query: "['sample-http-logs'] | extend depth = countof('/', uri) | summarize max(depth) by method",
        rows: [
          { method: 'PUT', max_depth: 5 },
          { method: 'DELETE', max_depth: 4 },
          { method: 'GET', max_depth: 4 },
          { method: 'POST', max_depth: 3 },
        ],
      },
    ],
  },
  {
    name: 'countof_regex',
    summary: 'How many non-overlapping matches of a regular expression (RE2) `text` holds.',
    params: [text('regex'), text('text')],
    returns: 'long',
    sql: (c) => `len(regexp_extract_all(${c.arg(1)}, ${c.arg(0)}))`,
    examples: [
      { apl: "countof_regex('[0-9]+', uri)", result: 2, type: 'integer' },
      { apl: "countof_regex('aa', 'aaaa')", result: 2 },
      { apl: "countof_regex('c.n', 'content_type')", result: 1 },
    ],
  },
  {
    name: 'extract',
    summary: 'The text a capture group (0 the whole match) of a regular expression (RE2) matched in its first match, or null.',
    params: [text('regex'), integer('captureGroup'), text('text')],
    returns: 'string',
    bind: (args, site) => {
      const group = constantInteger(args, 1, site, 'capture group');
      if (group < 0n || group > 99n) fail('invalid_argument', `extract() capture group ${group} is out of range 0–99`, argNode(site.node, 1));
      return call('extract', [args[0] as Expr, literal('long', group), args[2] as Expr], 'string');
    },
    sql: (c) => {
      const value = c.value(1);
      const group = typeof value === 'bigint' ? value : 0n;
      const pattern = c.value(0);
      const extracted = `regexp_extract(${c.arg(2)}, ${c.arg(0)}, ${sqlInteger(group)})`;
      // A group that captures a character whenever the pattern matches: '' can only mean no match.
      if (typeof pattern === 'string' && captureNeverEmpty(pattern, Number(group))) return `nullif(${extracted}, '')`;
      // Else a non-empty capture proves a match, and only an empty one takes a second pass, to tell
      // an empty capture ('') from no match (null).
      return `coalesce(nullif(${extracted}, ''), CASE WHEN regexp_matches(${c.arg(2)}, ${c.arg(0)}) THEN '' END)`;
    },
    examples: [
      { apl: 'extract("x=([0-9.]+)", 1, "axiom x=65.6|po")', result: '65.6', type: 'string' },
      { apl: 'extract("users/([0-9]+)", 1, uri)', result: '42' },
      { apl: 'extract("^.{2,2}(.{4,4})", 1, content_type)', result: 'plic' },
      { apl: 'extract("z", 0, "abc")', result: null },
      { apl: 'extract("b(x*)", 1, "abc")', result: '' },
      { apl: 'extract("^([A-Za-z]+)", 1, "42 apples")', result: null },
      { apl: 'extract("(?i)^([a-z]+)", 1, "ABC1")', result: 'ABC' },
      { apl: 'extract("(a+)|b", 1, "b")', result: '' },
      { apl: 'extract("x(y?)", 1, "x")', result: '' },
      { apl: 'extract("(a)", 100, "a")', error: 'extract() capture group 100 is out of range 0–99' },
      { apl: 'extract("(a)", strlen(uri), "a")', error: 'extract() needs a constant integer capture group as argument 2' },
    ],
  },
  {
    name: 'extract_all',
    summary:
      'Every match of a regular expression (RE2) in `text`: with one capture group, an array of what it matched; with several, an array of arrays. Without `captureGroups`, all of a constant expression’s groups.',
    // With two arguments, the second is the text: the signature takes either there.
    params: [text('regex'), oneOf('captureGroups', ['dynamic', 'string']), text('text', { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    bind: bindExtractAll,
    sql: extractAllSql,
    examples: [
      { apl: "extract_all('([0-9]+)', dynamic([1]), uri)", result: ['1', '42'], type: 'array' },
      { apl: 'extract_all(@"(\\w)(\\w+)(\\w)", dynamic([1, 3]), "text/csv")', result: [['t', 't'], ['c', 'v']] },
      { apl: 'extract_all(@"(\\w)(\\w+)(\\w)", "text/csv")', result: [['t', 'ex', 't'], ['c', 's', 'v']] },
      { apl: "extract_all('(z)', dynamic([1]), 'abc')", result: [] },
      { apl: "extract_all('[0-9]+', uri)", error: 'extract_all() needs a regular expression with capture groups, such as "([0-9]+)"' },
      { apl: "extract_all('(a)', dynamic(['x']), 'a')", error: 'extract_all() needs a constant array of capture group numbers as argument 2, such as dynamic([1, 2])' },
    ],
  },
  {
    name: 'format_bytes',
    summary:
      'A number of bytes as text with a unit: `precision` decimals (0), the `units` given or the largest that fits, base 2 (1024, labels KB, MB…) or 10 (1000, labels kB, MB…).',
    params: [number('value'), integer('precision', { optional: true }), text('units', { optional: true }), integer('base', { optional: true })],
    returns: 'string',
    sql: formatBytesSql,
    examples: [
      { apl: 'format_bytes(1024)', result: '1 KB', type: 'string' },
      { apl: 'format_bytes(564)', result: '564 Bytes' },
      { apl: 'format_bytes(10332, 1)', result: '10.1 KB' },
      { apl: "format_bytes(8000000, 2, 'MB', 10)", result: '8.00 MB' },
      { apl: 'format_bytes(20010332, 2)', result: '19.08 MB' },
      { apl: "format_bytes(1000000, 0, 'kB', 10)", result: '1000 kB' },
      { apl: 'format_bytes(resp_body_size_bytes, 1)', result: '2.0 KB' },
    ],
  },
  {
    name: 'format_url',
    summary: 'A URL made of the parts in a property bag: scheme, host, port, path, user, password, query (text or a bag of parameters), fragment.',
    params: [dynamic('url_parts')],
    returns: 'string',
    sql: formatUrlSql,
    examples: [
      { apl: "format_url(dynamic({'scheme': 'https', 'host': 'api.example.com', 'path': '/api/users'}))", result: 'https://api.example.com/api/users', type: 'string' },
      { apl: "format_url(dynamic({'scheme': 'http', 'host': 'localhost', 'port': 8080, 'path': '/frontend'}))", result: 'http://localhost:8080/frontend' },
      { apl: "format_url(dynamic({'scheme': 'https', 'host': 'api.example.com', 'port': 8443, 'path': strcat('/status/', status)}))", result: 'https://api.example.com:8443/status/200' },
      {
        apl: 'format_url(dynamic({"scheme": "https", "host": "github.com", "path": "/axiomhq/next-axiom", "port": 443, "fragment": "axiom", "user": "axiom", "password": "apl"}))',
        result: 'https://axiom:apl@github.com:443/axiomhq/next-axiom#axiom',
      },
      { apl: "format_url(dynamic({'scheme': 'https', 'host': 'x.io', 'query': {'b': '2 3', 'a': 1}}))", result: 'https://x.io?a=1&b=2%203' },
      { apl: "format_url(bag_pack('scheme', 'https', 'host', 'h.io', 'port', 8080, 'user', dynamic(null), 'fragment', dynamic(null)))", result: 'https://h.io:8080' },
    ],
  },
  {
    name: 'gettype',
    summary: 'The type of a value: string, long, real, bool, datetime, timespan; for dynamic values array, dictionary, string, long, real, bool or null.',
    params: [anyValue('expression')],
    returns: 'string',
    sql: (c) => {
      const type = c.type(0);
      // The plan's type names are the ones gettype reports; a dynamic value's own type is looked at.
      if (type !== 'dynamic') return c.bind(type, 'string');
      return `CASE json_type(${c.arg(0)}) WHEN 'ARRAY' THEN 'array' WHEN 'OBJECT' THEN 'dictionary' WHEN 'VARCHAR' THEN 'string' WHEN 'BIGINT' THEN 'long' WHEN 'UBIGINT' THEN 'long' WHEN 'DOUBLE' THEN 'real' WHEN 'BOOLEAN' THEN 'bool' ELSE 'null' END`;
    },
    examples: [
      { apl: 'gettype("lima")', result: 'string', type: 'string' },
      { apl: 'gettype(req_duration_ms)', result: 'real' },
      { apl: 'gettype(resp_body_size_bytes)', result: 'long' },
      { apl: 'gettype(5 == 5)', result: 'bool' },
      { apl: 'gettype(now())', result: 'datetime' },
      { apl: 'gettype(1h)', result: 'timespan' },
      { apl: "gettype(parse_json('67'))", result: 'long' },
      { apl: 'gettype(parse_json(\'{"axiom": 1234}\'))', result: 'dictionary' },
      { apl: "gettype(parse_json('[6, 7, 8]'))", result: 'array' },
      { apl: "gettype(parse_json(''))", result: 'null' },
    ],
  },
  {
    name: 'indexof',
    summary:
      'The zero-based position of the nth (`occurrence`, 1) occurrence of `lookup` within `length` characters (-1: all) from `start_index` (0), or -1; null for an occurrence below 1 or a length below -1.',
    params: [text('source'), text('lookup'), integer('start_index', { optional: true }), integer('length', { optional: true }), integer('occurrence', { optional: true })],
    returns: 'long',
    sql: indexOfSql,
    examples: [
      { apl: "indexof(uri, '/api/')", result: 0, type: 'integer' },
      { apl: "indexof(uri, '/v', 1)", result: 4 },
      { apl: 'indexof("alpha beta", "zeta")', result: -1 },
      { apl: 'indexof("abcabc", "b", 2)', result: 4 },
      { apl: 'indexof("abcabcabc", "bc", 0, -1, 3)', result: 7 },
      { apl: 'indexof("abcabc", "c", 0, 2)', result: -1 },
      { apl: 'indexof("aaa", "aa", 0, -1, 2)', result: 1 },
      { apl: 'indexof("abc", "b", 0, -1, 0)', result: null },
    ],
  },
  {
    name: 'indexof_regex',
    summary:
      'The zero-based position where the nth (`occurrence`, 1) match of a regular expression (RE2) starts, searching `length` characters (-1: all) from `start` (0); -1 without one; null for a negative start, an occurrence below 1 or a length below -1.',
    params: [text('string'), text('match'), integer('start', { optional: true }), integer('occurrence', { optional: true }), integer('length', { optional: true })],
    returns: 'long',
    sql: indexOfRegexSql,
    examples: [
      { apl: "indexof_regex('/api/user-12345/settings', 'user-[0-9]+')", result: 5, type: 'integer' },
      { apl: "indexof_regex(uri, '[0-9]+')", result: 6 },
      { apl: "indexof_regex(uri, '[0-9]+', 0, 2)", result: 14 },
      { apl: "indexof_regex(uri, '[0-9]+', 7)", result: 14 },
      { apl: "indexof_regex('abc', 'z')", result: -1 },
      { apl: "indexof_regex('abcabc', 'c', 0, 2, 4)", result: -1 },
      { apl: "indexof_regex('abc', 'b', -1)", result: null },
    ],
  },
  {
    name: 'isascii',
    summary: 'Whether every character of a string is ASCII.',
    params: [text('value')],
    returns: 'bool',
    sql: (c) => `NOT regexp_matches(${c.arg(0)}, '[^\\x00-\\x7F]')`,
    examples: [
      { apl: 'isascii(uri)', result: true, type: 'boolean' },
      { apl: "isascii('São Paulo')", result: false },
      { query: "['sample-http-logs'] | summarize count() by ascii = isascii(['geo.city'])", rows: [{ ascii: true, count_: 5 }, { ascii: false, count_: 1 }] },
    ],
  },
  {
    name: 'isempty',
    summary: 'Whether the value is null or the empty string.',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => (isText(c.type(0)) ? `(${c.arg(0)} IS NULL OR ${c.arg(0)} = '')` : `(${c.arg(0)} IS NULL)`),
    examples: [
      { apl: 'isempty("")', result: true, type: 'boolean' },
      { apl: 'isempty(0)', result: false },
      { query: "['sample-http-logs'] | where isempty(message) | count", rows: [{ count: 2 }] },
    ],
  },
  {
    name: 'isnotempty',
    aliases: ['notempty'],
    summary: 'Whether the value is neither null nor the empty string.',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => (isText(c.type(0)) ? `(${c.arg(0)} IS NOT NULL AND ${c.arg(0)} <> '')` : `(${c.arg(0)} IS NOT NULL)`),
    examples: [
      { apl: 'isnotempty(" ")', result: true, type: 'boolean' },
      { apl: 'notempty(string(null))', result: false },
      { query: "['sample-http-logs'] | where isnotempty(message) | count", rows: [{ count: 4 }] },
    ],
  },
  {
    name: 'isnotnull',
    aliases: ['notnull'],
    summary: 'Whether the value is not null (an empty string is not null).',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => `(NOT ${isNullSql(c.arg(0), c.type(0))})`,
    examples: [
      { apl: 'isnotnull("")', result: true, type: 'boolean' },
      { apl: 'isnotnull(dynamic([1, null])[1])', result: false },
      { apl: 'isnotnull(dynamic([1, null])[0])', result: true },
      { apl: 'notnull(real(null))', result: false },
      { query: "['sample-http-logs'] | where isnotnull(message) | count", rows: [{ count: 5 }] },
    ],
  },
  {
    name: 'isnull',
    summary: 'Whether the value is null (an empty string is not).',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => isNullSql(c.arg(0), c.type(0)),
    examples: [
      { apl: 'isnull(int(null))', result: true, type: 'boolean' },
      { apl: 'isnull(dynamic([1, null])[1])', result: true },
      { apl: 'isnull(parse_json("null"))', result: true },
      { apl: 'isnull(dynamic([]))', result: false },
      { apl: 'isnull("")', result: false },
      { apl: "isnull(['geo.city'])", result: false },
    ],
  },
  {
    name: 'parse_bytes',
    summary: 'The number of bytes a size such as "512 KB" states (units in any case; KiB, MiB… always 1024), base 2 (1024) or 10 (1000); 0 where it is not a size.',
    params: [text('bytes_string'), integer('base', { optional: true })],
    returns: 'long',
    sql: parseBytesSql,
    examples: [
      { apl: "parse_bytes('1 KB')", result: 1024, type: 'integer' },
      { apl: "parse_bytes('1 KB', 10)", result: 1000 },
      { apl: "parse_bytes('128 Bytes')", result: 128 },
      { apl: "parse_bytes('512 KB')", result: 524288 },
      { apl: "parse_bytes('1.5 MiB', 10)", result: 1572864 },
      { apl: "parse_bytes('bad data')", result: 0 },
    ],
  },
  {
    name: 'parse_csv',
    summary: 'The fields of one CSV record as an array of strings: commas separate, double quotes enclose, "" is a quote.',
    params: [text('csv_text')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => {
      // One match per field: group 1 the inside of a quoted field, group 2 an unquoted one (the other is null).
      const field = quoteString('(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))');
      const unquoted = `regexp_extract_all(${c.arg(0)}, ${field}, 2)`;
      return jsonText(bindOnce(unquoted, 'u', `list_transform(regexp_extract_all(${c.arg(0)}, ${field}, 1), (q, i) -> coalesce(replace(q, '""', '"'), '') || coalesce(u[i], ''))`));
    },
    examples: [
      { apl: "parse_csv('axiom,logging,observability')", result: ['axiom', 'logging', 'observability'], type: 'array' },
      { apl: 'parse_csv(\'a,"b,c",,"say ""hi"""\')', result: ['a', 'b,c', '', 'say "hi"'] },
      { apl: "parse_csv('')", result: [''] },
      { apl: "parse_csv('x, y')", result: ['x', ' y'] },
    ],
  },
  {
    name: 'parse_json',
    summary: 'The JSON value a string holds, as dynamic; a string that is not JSON stays that string, and an empty one is null.',
    params: [text('json_string')],
    returns: 'dynamic',
    sql: (c) => `CASE WHEN trim(${c.arg(0)}) = '' THEN NULL WHEN json_valid(${c.arg(0)}) THEN CAST(json(${c.arg(0)}) AS VARCHAR) ELSE ${jsonText(c.arg(0))} END`,
    examples: [
      { apl: 'parse_json(\'{"response_time": 145, "cache_hit": true}\')', result: { response_time: 145, cache_hit: true }, type: 'object' },
      { apl: 'toint(parse_json(\'{"response_time": 145}\').response_time)', result: 145 },
      { apl: "tostring(parse_json('{\"http.method\": \"GET\"}')['http.method'])", result: 'GET' },
      { apl: "parse_json('not json')", result: 'not json' },
      { apl: "parse_json('[1, 2]')", result: [1, 2] },
    ],
  },
  {
    name: 'parse_path',
    summary: 'The parts of a path, file URI or URL: Scheme, RootPath, DirectoryPath, DirectoryName, Filename, Extension, AlternateDataStream.',
    params: [text('source')],
    returns: 'dynamic',
    reported: 'object',
    sql: parsePathSql,
    examples: [
      {
        apl: "parse_path('/api/v1/messages/users')",
        result: { Scheme: '', RootPath: '', DirectoryPath: '/api/v1/messages', DirectoryName: 'messages', Filename: 'users', Extension: '', AlternateDataStream: '' },
        type: 'object',
      },
      {
        apl: "parse_path('https://storage.example.net/container/file.txt')",
        result: {
          Scheme: 'https',
          RootPath: 'storage.example.net',
          DirectoryPath: 'https://storage.example.net/container',
          DirectoryName: 'container',
          Filename: 'file.txt',
          Extension: 'txt',
          AlternateDataStream: '',
        },
      },
      {
        apl: "parse_path(@'C:\\temp\\report.final.pdf:meta')",
        result: { Scheme: '', RootPath: 'C:', DirectoryPath: 'C:\\temp', DirectoryName: 'temp', Filename: 'report.final.pdf', Extension: 'pdf', AlternateDataStream: 'meta' },
      },
      { apl: 'tostring(parse_path(uri).DirectoryName)', result: 'users' },
    ],
  },
  {
    name: 'parse_url',
    summary: 'The parts of a URL as a property bag: scheme, host, port, path, username, password, query (a bag of its parameters), fragment; "" for a missing part.',
    params: [text('url')],
    returns: 'dynamic',
    reported: 'object',
    sql: parseUrlSql,
    examples: [
      {
        apl: "parse_url('https://www.example.com/path/to/page?query=example')",
        result: { scheme: 'https', host: 'www.example.com', port: '', path: '/path/to/page', username: '', password: '', query: { query: 'example' }, fragment: '' },
        type: 'object',
      },
      {
        apl: "parse_url('http://user:pa%20ss@frontend:8080/api/endpoint?a=1&b=x+y&a=2#top')",
        result: { scheme: 'http', host: 'frontend', port: '8080', path: '/api/endpoint', username: 'user', password: 'pa ss', query: { a: '1', b: 'x y' }, fragment: 'top' },
      },
      { apl: "tostring(parse_url(strcat('https://api.example.com', uri)).path)", result: '/api/v1/users/42' },
      { apl: "toint(parse_url('http://frontend:8080/').port)", result: 8080 },
    ],
  },
  {
    name: 'parse_urlquery',
    summary: 'The parameters of a URL query (with or without what precedes its "?") as a property bag; "+" and %XX decoded, the first of repeated keys kept.',
    params: [text('query_string')],
    returns: 'dynamic',
    reported: 'object',
    sql: (c) => `CASE WHEN ${c.arg(0)} IS NOT NULL THEN ${urlQueryObject(queryPart(c.arg(0)))} END`,
    examples: [
      { apl: "parse_urlquery('page=1&limitation=50&sort=date')", result: { page: '1', limitation: '50', sort: 'date' }, type: 'object' },
      { apl: "parse_urlquery('?user_id=12345&action=checkout')", result: { user_id: '12345', action: 'checkout' } },
      { apl: "parse_urlquery('search=%3Cscript%3E&id=1+OR+1%3D1')", result: { search: '<script>', id: '1 OR 1=1' } },
      { apl: 'toint(parse_urlquery(uri).expand == "profile")', result: 1 },
      { apl: "parse_urlquery('')", result: {} },
    ],
  },
  {
    name: 'quote',
    summary: 'A string in double quotes, with quotes, backslashes and control characters escaped (JSON’s escapes).',
    params: [text('value')],
    returns: 'string',
    sql: (c) => jsonText(c.arg(0)),
    examples: [
      { apl: 'quote(uri)', result: '"/api/v1/users/42?expand=profile&lang=en"', type: 'string' },
      { apl: 'quote(\'say "hi"\\n\')', result: '"say \\"hi\\"\\n"' },
    ],
  },
  {
    name: 'regex_quote',
    summary: 'A string with every regular-expression metacharacter (\\ . + * ? ( ) | [ ] { } ^ $) escaped, to match it literally.',
    params: [text('value')],
    returns: 'string',
    sql: (c) => `regexp_replace(${c.arg(0)}, ${quoteString(REGEX_META)}, '\\\\\\1', 'g')`,
    examples: [
      { apl: "regex_quote('/api/v1/users[1]')", result: '/api/v1/users\\[1\\]', type: 'string' },
      { apl: "regex_quote('hello.*world')", result: 'hello\\.\\*world' },
      { apl: "'a.b*c' matches regex regex_quote('a.b*c')", result: true },
    ],
  },
  {
    name: 'replace_regex',
    aliases: ['replace'],
    summary: 'The text with every match of a regular expression (RE2) replaced by `rewrite`, where $0 is the whole match, $1…$9 (or ${1}) a group and $$ a dollar sign.',
    params: [text('regex'), text('rewrite'), text('text')],
    returns: 'string',
    bind: (args, site) => {
      const rewrite = constantValue(args[1] as Expr);
      if (typeof rewrite !== 'string') fail('invalid_argument', `${site.name}() needs a constant string rewrite as argument 2`, argNode(site.node, 1));
      return call('replace_regex', [args[0] as Expr, literal('string', re2Rewrite(rewrite, site, 1)), args[2] as Expr], 'string');
    },
    sql: (c) => `regexp_replace(${c.arg(2)}, ${c.arg(0)}, ${c.arg(1)}, 'g')`,
    examples: [
      { apl: "replace_regex(@'^logging', 'axiom', 'logging-data')", result: 'axiom-data', type: 'string' },
      { apl: "replace_regex(@'observability=(.+)', 'axiom=$1', 'observability=apl')", result: 'axiom=apl' },
      { apl: "replace(@'/([0-9]+)', '/{id:$1}', uri)", result: '/api/v1/users/{id:42}?expand=profile&lang=en' },
      { apl: "replace_regex('[aeiou]', '', 'education')", result: 'dctn' },
      { apl: "replace_regex('(a)', '$$1 ${1}\\\\', 'xa')", result: 'x$1 a\\' },
      { apl: "replace_regex('a', method, 'a')", error: 'replace_regex() needs a constant string rewrite as argument 2' },
      { apl: "replace_regex('(a)', '$10', 'a')", error: 'replace_regex() can refer to groups $0 to $9 in the rewrite, got $10' },
    ],
  },
  {
    name: 'replace_string',
    summary: 'The text with every occurrence of `lookup` replaced by `rewrite` (plain text, not a pattern).',
    params: [text('lookup'), text('rewrite'), text('text')],
    returns: 'string',
    // APL's order is (lookup, rewrite, text); Kusto's is (text, lookup, rewrite).
    sql: (c) => `replace(${c.arg(2)}, ${c.arg(0)}, ${c.arg(1)})`,
    examples: [
      { apl: "replace_string('.100', '.XXX', '192.168.1.100')", result: '192.168.1.XXX', type: 'string' },
      { apl: "replace_string('GET', 'Retrieve', method)", result: 'Retrieve' },
      { apl: "replace_string('a', '', 'banana')", result: 'bnn' },
      {
        query: "['sample-http-logs'] | extend verb = replace_string('GET', 'Retrieve', method) | summarize count() by verb",
        rows: [
          { verb: 'Retrieve', count_: 3 },
          { verb: 'DELETE', count_: 1 },
          { verb: 'POST', count_: 1 },
          { verb: 'PUT', count_: 1 },
        ],
      },
    ],
  },
  {
    name: 'reverse',
    summary: 'A string with its characters in reverse order.',
    params: [text('value')],
    returns: 'string',
    sql: (c) => `reverse(${c.arg(0)})`,
    examples: [
      { apl: 'reverse("axiom")', result: 'moixa', type: 'string' },
      { apl: "reverse(['geo.city'])", result: 'nobsiL' },
    ],
  },
  {
    name: 'split',
    summary: 'The parts of a string between occurrences of a delimiter, as an array; with an index, that one part.',
    params: [text('source'), text('delimiter'), integer('requestedIndex', { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    bind: (args) => {
      const parts = call('split', [args[0] as Expr, args[1] as Expr], 'dynamic');
      return args[2] ? call('dynamic_get', [parts, args[2]], 'dynamic') : parts;
    },
    sql: (c) => jsonText(`string_split(${c.arg(0)}, ${c.arg(1)})`),
    examples: [
      { apl: 'split("axiom_observability_monitoring", "_")', result: ['axiom', 'observability', 'monitoring'], type: 'array' },
      { apl: 'split("a_b_c", "_", 1)', result: 'b' },
      { apl: 'split(uri, "/")', result: ['', 'api', 'v1', 'users', '42?expand=profile&lang=en'] },
      { apl: 'tostring(split(uri, "/")[1])', result: 'api' },
    ],
  },
  {
    name: 'strcat',
    summary: 'The arguments, converted to strings, joined end to end (1 to 64 of them).',
    params: [anyValue('arg')],
    variadic: 64,
    returns: 'string',
    bind: (args) => call('strcat', args.map(asString), 'string'),
    sql: (c) => `concat(${c.args().join(', ')})`,
    examples: [
      { apl: "strcat('axiom', 3249)", result: 'axiom3249', type: 'string' },
      { apl: 'strcat(method, " ", uri)', result: 'GET /api/v1/users/42?expand=profile&lang=en' },
      { apl: 'strcat("x", string(null), "y")', result: 'xy' },
    ],
  },
  {
    name: 'strcat_delim',
    summary: 'The arguments after the delimiter (2 to 64), converted to strings, joined with the delimiter between them.',
    params: [text('delimiter'), anyValue('arg'), anyValue('arg')],
    variadic: 65,
    returns: 'string',
    bind: (args) => call('strcat_delim', [args[0] as Expr, ...args.slice(1).map(asString)], 'string'),
    // A null argument is an empty part, as tostring() makes it: concat_ws would leave it out.
    sql: (c) => `concat_ws(${c.arg(0)}, ${c.args().slice(1).map((arg) => `coalesce(${arg}, '')`).join(', ')})`,
    examples: [
      { apl: "strcat_delim(':', 'axiom', 'monitoring')", result: 'axiom:monitoring', type: 'string' },
      { apl: "strcat_delim(',', method, status, uri, req_duration_ms, ['geo.country'])", result: 'GET,200,/api/v1/users/42?expand=profile&lang=en,12.5,Portugal' },
      { apl: "strcat_delim('-', 'a', string(null), 'b')", result: 'a--b' },
      { apl: "strcat_delim('-', 'a')", error: 'strcat_delim() expects at least 3 arguments, got 2' },
    ],
  },
  {
    name: 'strcmp',
    summary: 'The order of two strings, character by character: -1 when the first comes before the second, 0 when equal, 1 after.',
    params: [text('string1'), text('string2')],
    returns: 'long',
    sql: (c) => `CASE WHEN ${c.arg(0)} < ${c.arg(1)} THEN -1 WHEN ${c.arg(0)} > ${c.arg(1)} THEN 1 WHEN ${c.arg(0)} = ${c.arg(1)} THEN 0 END`,
    examples: [
      { apl: "strcmp('axiom', 'observability')", result: -1, type: 'integer' },
      { apl: "strcmp('b', 'a')", result: 1 },
      { apl: 'strcmp(method, "GET")', result: 0 },
    ],
  },
  {
    name: 'string_size',
    summary: 'The size of a string in bytes (UTF-8).',
    params: [text('source')],
    returns: 'long',
    sql: (c) => `strlen(${c.arg(0)})`,
    examples: [
      { apl: "string_size('axiom')", result: 5, type: 'integer' },
      { apl: "string_size('São')", result: 4 },
      { apl: "string_size('')", result: 0 },
    ],
  },
  {
    name: 'strip_ansi_escapes',
    summary: 'A string without its ANSI escape sequences (colours, cursor movements, terminal titles).',
    params: [text('text')],
    returns: 'string',
    sql: (c) => `regexp_replace(${c.arg(0)}, ${quoteString(ANSI_ESCAPE)}, '', 'g')`,
    examples: [
      { apl: "strip_ansi_escapes(strcat(unicode_codepoints_to_string(dynamic([27])), '[31mError', unicode_codepoints_to_string(dynamic([27])), '[0m: disk full'))", result: 'Error: disk full', type: 'string' },
      { apl: 'strip_ansi_escapes(uri)', result: '/api/v1/users/42?expand=profile&lang=en' },
    ],
  },
  {
    name: 'strlen',
    summary: 'The length of a string in characters (Unicode code points).',
    params: [text('source')],
    returns: 'long',
    sql: (c) => `length(${c.arg(0)})`,
    examples: [
      { apl: 'strlen("axiom")', result: 5, type: 'integer' },
      { apl: "strlen(['geo.city'])", result: 6 },
      { apl: 'strlen("São Paulo")', result: 9 },
      { apl: 'strlen(string(null))', result: null },
      { apl: 'strlen(5)', error: 'strlen() expects one of string, dynamic as argument 1, got long; convert it with tostring()' },
    ],
  },
  {
    name: 'strrep',
    summary: 'A value, converted to a string, repeated `multiplier` times (at most 1024), with an optional delimiter between the repetitions.',
    params: [anyValue('value'), integer('multiplier'), anyValue('delimiter', { optional: true })],
    returns: 'string',
    bind: (args) => call('strrep', [asString(args[0] as Expr), args[1] as Expr, ...(args[2] ? [asString(args[2])] : [])], 'string'),
    sql: (c) => {
      const value = c.arg(0);
      const delimiter = c.call.args.length > 2 ? `coalesce(${c.arg(2)}, '')` : "''";
      return `CASE WHEN ${c.arg(1)} < 1 THEN '' ELSE repeat(${value} || ${delimiter}, least(${c.arg(1)}, 1024) - 1) || ${value} END`;
    },
    examples: [
      { apl: "strrep('axiom', 3, '::')", result: 'axiom::axiom::axiom', type: 'string' },
      { apl: 'strrep(7, 3)', result: '777' },
      { apl: "strlen(strrep('ab', 5000))", result: 2048 },
      { apl: "strrep('x', 0)", result: '' },
    ],
  },
  {
    name: 'substring',
    summary: 'Part of a string: `length` characters (or the rest) from the zero-based start; "" past the end.',
    params: [text('source'), integer('startingIndex'), integer('length', { optional: true })],
    returns: 'string',
    sql: (c) => {
      const start = `(greatest(${c.arg(1)}, 0) + 1)`;
      return c.call.args.length > 2 ? `substring(${c.arg(0)}, ${start}, greatest(${c.arg(2)}, 0))` : `substring(${c.arg(0)}, ${start})`;
    },
    examples: [
      { apl: 'substring("axiom", 4, 5)', result: 'm', type: 'string' },
      { apl: 'substring("axiom", 1, 3)', result: 'xio' },
      { apl: 'substring("axiom", 10)', result: '' },
      { apl: 'substring(uri, 0, 7)', result: '/api/v1' },
    ],
  },
  {
    name: 'tolower',
    summary: 'The string in lower case.',
    params: [text('value')],
    returns: 'string',
    sql: (c) => `lower(${c.arg(0)})`,
    examples: [
      { apl: 'tolower("AXIOM")', result: 'axiom', type: 'string' },
      { apl: 'tolower(method)', result: 'get' },
    ],
  },
  {
    name: 'totitle',
    summary: 'The string with its first character in upper case.',
    params: [text('value')],
    returns: 'string',
    sql: (c) => `upper(left(${c.arg(0)}, 1)) || substring(${c.arg(0)}, 2)`,
    examples: [
      { apl: 'totitle("axiom")', result: 'Axiom', type: 'string' },
      { apl: 'totitle(tolower(method))', result: 'Get' },
      { apl: "totitle('élan vital')", result: 'Élan vital' },
    ],
  },
  {
    name: 'toupper',
    summary: 'The string in upper case.',
    params: [text('value')],
    returns: 'string',
    sql: (c) => `upper(${c.arg(0)})`,
    examples: [
      { apl: 'toupper("axiom")', result: 'AXIOM', type: 'string' },
      { apl: 'toupper(server_datacenter)', result: 'DCA' },
    ],
  },
  {
    name: 'translate',
    summary:
      'The source with each character of `searchList` replaced by the character at the same position in `replacementList`; a shorter replacement list repeats its last character, an empty one removes the characters.',
    params: [text('searchList'), text('replacementList'), text('source')],
    returns: 'string',
    sql: (c) => {
      const [search, replacement, source] = [c.arg(0), c.arg(1), c.arg(2)];
      const padded = `CASE WHEN length(${replacement}) = 0 THEN '' ELSE rpad(${replacement}, CAST(greatest(length(${search}), length(${replacement})) AS INTEGER), right(${replacement}, 1)) END`;
      return `translate(${source}, ${search}, ${padded})`;
    },
    examples: [
      { apl: "translate('abc', 'x', 'abcabc')", result: 'xxxxxx', type: 'string' },
      { apl: "translate('lo', '01', 'hello')", result: 'he001' },
      { apl: "translate('/', '', uri)", result: 'apiv1users42?expand=profile&lang=en' },
    ],
  },
  {
    name: 'trim',
    summary: 'A string without the leading and trailing characters that are in `cutset` (a set of characters, not a pattern).',
    params: [text('cutset'), text('source')],
    returns: 'string',
    sql: (c) => `trim(${c.arg(1)}, ${c.arg(0)})`,
    examples: [
      { apl: "trim('/', '/api/login/')", result: 'api/login', type: 'string' },
      { apl: "trim('-_', '--_frontend_-')", result: 'frontend' },
      { apl: "trim('--', '--https://axiom.co--')", result: 'https://axiom.co' },
      { apl: "trim('.*', '.*x*.')", result: 'x' },
    ],
  },
  {
    name: 'trim_end',
    summary: 'A string without the trailing characters that are in `cutset`.',
    params: [text('cutset'), text('text')],
    returns: 'string',
    sql: (c) => `rtrim(${c.arg(1)}, ${c.arg(0)})`,
    examples: [
      { apl: "trim_end('/?&', '/api/users/?&')", result: '/api/users', type: 'string' },
      { apl: "trim_end('.,;!?', 'admin!!')", result: 'admin' },
    ],
  },
  {
    name: 'trim_end_regex',
    summary: 'A string without the matches of a regular expression (RE2) at its end.',
    params: [text('regex'), text('text')],
    returns: 'string',
    sql: (c) => trimRegex(c, false, true),
    examples: [
      { apl: "trim_end_regex('[0-9]+', 'build-2024')", result: 'build-', type: 'string' },
      { apl: "trim_end_regex('ab', 'xabab')", result: 'x' },
      { apl: "trim_end_regex('^github', 'axiomhq')", result: 'axiomhq' },
    ],
  },
  {
    name: 'trim_regex',
    summary: 'A string without the matches of a regular expression (RE2) at its start and at its end.',
    params: [text('regex'), text('text')],
    returns: 'string',
    sql: (c) => trimRegex(c, true, true),
    examples: [
      { apl: "trim_regex('[/]+', '/api/users/')", result: 'api/users', type: 'string' },
      { apl: "trim_regex('(^(dev|prod|staging)-)|(-v[0-9.]+$)', 'prod-checkout-v1.2')", result: 'checkout' },
      { apl: "trim_regex('^github', 'githubclosed')", result: 'closed' },
      { apl: "trim_regex('[^a-zA-Z0-9_]+', id)", result: 'u-101' },
    ],
  },
  {
    name: 'trim_space',
    summary: 'A string without its leading and trailing white space (Unicode spaces, tabs, line breaks).',
    params: [text('value')],
    returns: 'string',
    sql: (c) => `regexp_replace(${c.arg(0)}, ${quoteString(`^${SPACE}+|${SPACE}+$`)}, '', 'g')`,
    examples: [
      { apl: 'trim_space(message)', result: 'user login OK', type: 'string' },
      { apl: 'trim_space("\\t a b \\n")', result: 'a b' },
    ],
  },
  {
    name: 'trim_start',
    summary: 'A string without the leading characters that are in `cutset`.',
    params: [text('cutset'), text('text')],
    returns: 'string',
    sql: (c) => `ltrim(${c.arg(1)}, ${c.arg(0)})`,
    examples: [
      { apl: "trim_start('/', uri)", result: 'api/v1/users/42?expand=profile&lang=en', type: 'string' },
      { apl: "trim_start('./', './../../etc/passwd')", result: 'etc/passwd' },
    ],
  },
  {
    name: 'trim_start_regex',
    summary: 'A string without the matches of a regular expression (RE2) at its start.',
    params: [text('regex'), text('text')],
    returns: 'string',
    sql: (c) => trimRegex(c, true, false),
    examples: [
      { apl: "trim_start_regex('github', 'github/axiomhq/next-axiom')", result: '/axiomhq/next-axiom', type: 'string' },
      { apl: "trim_start_regex('/api/v[0-9]+', uri)", result: '/users/42?expand=profile&lang=en' },
    ],
  },
  {
    name: 'unicode_codepoints_from_string',
    summary: 'The Unicode code points of a string’s characters, as an array of numbers.',
    params: [text('source')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => jsonText(`list_transform(regexp_extract_all(${c.arg(0)}, '(?s).'), ch -> unicode(ch))`),
    examples: [
      { apl: "unicode_codepoints_from_string('HTTP')", result: [72, 84, 84, 80], type: 'array' },
      { apl: "unicode_codepoints_from_string('£é')", result: [163, 233] },
      { apl: "unicode_codepoints_from_string('')", result: [] },
    ],
  },
  {
    name: 'unicode_codepoints_to_string',
    summary: 'The string of an array of Unicode code points; null where an element is not one.',
    params: [dynamic('array')],
    returns: 'string',
    sql: (c) => {
      const points = `try_cast(${jsonElements(c.arg(0))} AS BIGINT[])`;
      const chars = `list_transform(cp, x -> try(chr(CAST(x AS INTEGER))))`;
      return bindOnce(points, 'cp', `CASE WHEN list_bool_and(list_transform(${chars}, ch -> ch IS NOT NULL)) OR len(cp) = 0 THEN array_to_string(${chars}, '') END`);
    },
    examples: [
      { apl: 'unicode_codepoints_to_string(dynamic([72, 84, 84, 80]))', result: 'HTTP', type: 'string' },
      { apl: 'unicode_codepoints_to_string(dynamic([67, 72, 69, 67, 75]))', result: 'CHECK' },
      { apl: 'unicode_codepoints_to_string(dynamic([-1]))', result: null },
      { apl: 'unicode_codepoints_to_string(dynamic([]))', result: '' },
    ],
  },
  {
    name: 'url_decode',
    summary: 'A URL-encoded string decoded (%XX sequences; a "+" stays a "+").',
    params: [text('encoded_url')],
    returns: 'string',
    sql: (c) => `url_decode(${c.arg(0)})`,
    examples: [
      { apl: "url_decode('/search?q=hello%20world')", result: '/search?q=hello world', type: 'string' },
      { apl: "url_decode('service%3Dfrontend%26version%3D1.0')", result: 'service=frontend&version=1.0' },
      { apl: "url_decode('https://www.axiom.co/')", result: 'https://www.axiom.co/' },
    ],
  },
  {
    name: 'url_encode',
    summary: 'A string URL-encoded: every byte but letters, digits and - . _ ~ as %XX.',
    params: [text('url')],
    returns: 'string',
    sql: (c) => `url_encode(${c.arg(0)})`,
    examples: [
      { apl: "url_encode('hello world & special chars')", result: 'hello%20world%20%26%20special%20chars', type: 'string' },
      { apl: "url_encode('https://www.axiom.co/')", result: 'https%3A%2F%2Fwww.axiom.co%2F' },
      { apl: "url_encode('frontend: server')", result: 'frontend%3A%20server' },
    ],
  },
];

/** Whether a value is null; a dynamic value also when it holds JSON's null (an array's null element, parse_json("null")). */
function isNullSql(sql: string, type: ScalarType): string {
  return type === 'dynamic' ? reuse(sql, 'nv', (x) => `(${x} IS NULL OR json_type(${x}) = 'NULL')`) : `(${sql} IS NULL)`;
}
