import type * as Ast from '../apl/ast.js';
import type { Expr, ScalarType } from '../plan/types.js';
import { TYPE_NAMES, asString, call, fail, literal } from './context.js';

/**
 * `parse`, `parse-where` and `parse-kv` as regular expressions (RE2) over the text: each
 * extracted column is `extract(regex, group, text)` converted to its type. Patterns and the
 * user's text in them are values — they reach SQL as bound parameters (sql/expressions.ts).
 */

export interface Extracted {
  readonly name: Ast.Identifier;
  readonly value: Expr;
}

export interface ParseResult {
  readonly columns: readonly Extracted[];
  /** True where the pattern matched and every typed column converted: what parse-where keeps. */
  readonly matched: Expr;
}

/**
 * What a typed column matches in the simple and regex kinds: a number only where a number is
 * (so that `code:long` skips to the digits, as Kusto's parse does); other types take any text
 * and convert it. The relaxed kind takes any text for every type and leaves what does not
 * convert null.
 */
const TYPED_CAPTURES: Partial<Record<ScalarType, string>> = {
  long: '(-?\\d+)',
  real: '(-?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?)',
  bool: '((?i:true|false))',
};
const ANY_CAPTURE = '(.*?)';

const CONVERSIONS: Readonly<Record<ScalarType, string | undefined>> = {
  string: undefined,
  long: 'toint',
  real: 'todouble',
  bool: 'tobool',
  datetime: 'todatetime',
  timespan: 'totimespan',
  dynamic: 'todynamic',
};

const REGEX_FLAGS = /^[imsU]*$/;

export function bindParse(operator: Ast.ParseOperator, source: Expr): ParseResult {
  if (source.type !== 'string' && source.type !== 'dynamic') {
    fail('type_mismatch', `parse reads text, got ${source.type}; convert it with tostring()`, operator.source);
  }
  const text = asString(source);
  const flags = operator.flags?.value ?? '';
  if (operator.flags && operator.mode !== 'regex') fail('invalid_argument', 'flags=… applies only to kind=regex', operator.flags);
  if (!REGEX_FLAGS.test(flags)) fail('invalid_argument', `unknown regular expression flags '${flags}'; expected any of i, m, s and U`, operator.flags ?? operator);
  let regex = '';
  let groups = 0;
  const captures: { capture: Ast.ParseCapture; group: number; type: ScalarType }[] = [];
  let previous: Ast.ParseItem | undefined;
  for (const item of operator.pattern) {
    if (item.kind === 'ParseWildcard') {
      regex += '.*?';
    } else if (item.kind === 'String') {
      if (operator.mode === 'regex') {
        regex += `(?:${item.value})`;
        groups += captureGroups(item.value);
      } else {
        regex += escapeRegex(item.value);
      }
    } else {
      if (previous?.kind === 'ParseCapture') {
        fail('invalid_argument', `columns '${previous.name.name}' and '${item.name.name}' follow one another with no text between them to tell where one ends`, item);
      }
      const type = captureType(item);
      groups += 1;
      captures.push({ capture: item, group: groups, type });
      regex += operator.mode === 'relaxed' ? ANY_CAPTURE : (TYPED_CAPTURES[type] ?? ANY_CAPTURE);
    }
    previous = item;
  }
  const prefix = operator.mode === 'regex' ? (flags === '' ? '' : `(?${flags})`) : '(?s)';
  const pattern = literal('string', `${prefix}^(?:${regex})$`);
  const columns = captures.map(({ capture, group, type }) => ({
    name: capture.name,
    value: convert(call('extract', [pattern, literal('long', BigInt(group)), text], 'string'), type),
  }));
  const converted = columns.filter((_, index) => operator.mode !== 'relaxed' && captures[index]?.type !== 'string');
  const matched = converted.reduce<Expr>(
    (all, column) => call('and', [all, call('isnotnull', [column.value], 'bool')], 'bool'),
    call('regex', [text, pattern], 'bool', true),
  );
  return { columns, matched };
}

const KV_OPTIONS = ['pair_delimiter', 'kv_delimiter', 'quote'] as const;

/**
 * parse-kv: each key's value is the text after `key` and the key/value delimiter, where the
 * key starts the text or follows a pair delimiter, up to the next pair delimiter (or inside
 * one of the `quote` characters); spaces around keys and values are left out. A key that is
 * not there is null.
 */
export function bindParseKv(operator: Ast.ParseKvOperator, source: Expr): Extracted[] {
  if (source.type !== 'string' && source.type !== 'dynamic') {
    fail('type_mismatch', `parse-kv reads text, got ${source.type}; convert it with tostring()`, operator.source);
  }
  const text = asString(source);
  const options = new Map<string, string>();
  for (const option of operator.options) {
    const name = option.name.name;
    if (!(KV_OPTIONS as readonly string[]).includes(name)) {
      fail('invalid_argument', `unknown parse-kv option '${name}'; expected ${KV_OPTIONS.join(', ')}`, option.name);
    }
    if (options.has(name)) fail('invalid_argument', `parse-kv option '${name}' is given twice`, option.name);
    const value = option.value.kind === 'String' ? option.value.value : undefined;
    if (value === undefined || value === '') fail('invalid_argument', `parse-kv option '${name}' takes a non-empty string, such as ${name}=';'`, option.value);
    options.set(name, value);
  }
  const pairs = escapeRegex(options.get('pair_delimiter') ?? ' ');
  const kv = escapeRegex(options.get('kv_delimiter') ?? '=');
  const quotes = [...(options.get('quote') ?? '')];
  return operator.keys.map((key) => {
    const type = captureType(key);
    const start = `(?s)(?:^|${pairs})[ \\t]*${escapeRegex(key.name.name)}[ \\t]*${kv}[ \\t]*`;
    const patterns = [...quotes.map((quote) => `${start}${escapeRegex(quote)}(.*?)${escapeRegex(quote)}`), `${start}(.*?)[ \\t]*(?:${pairs}|$)`];
    const extracts = patterns.map((pattern) => call('extract', [literal('string', pattern), literal('long', 1n), text], 'string'));
    const value = extracts.length === 1 ? (extracts[0] as Expr) : call('coalesce', extracts, 'string');
    return { name: key.name, value: convert(value, type) };
  });
}

function captureType(capture: Ast.ParseCapture): ScalarType {
  if (!capture.type) return 'string';
  const type = TYPE_NAMES[capture.type.name];
  if (!type) fail('invalid_argument', `unknown type '${capture.type.name}'; expected one of ${Object.keys(TYPE_NAMES).join(', ')}`, capture.type);
  return type;
}

function convert(text: Expr, type: ScalarType): Expr {
  const fn = CONVERSIONS[type];
  return fn ? call(fn, [text], type) : text;
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** The capturing groups of a regular expression, so that the columns' own groups are numbered after them. */
export function captureGroups(regex: string): number {
  let count = 0;
  let inClass = false;
  for (let i = 0; i < regex.length; i++) {
    const char = regex[i];
    if (char === '\\') {
      i++;
    } else if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
      if (regex[i + 1] === '^') i++;
      if (regex[i + 1] === ']') i++;
    } else if (char === '(') {
      const named = regex.startsWith('?P<', i + 1) || (regex.startsWith('?<', i + 1) && regex[i + 3] !== '=' && regex[i + 3] !== '!');
      if (regex[i + 1] !== '?' || named) count++;
    }
  }
  return count;
}
