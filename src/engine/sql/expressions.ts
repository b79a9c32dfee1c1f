import { functionNamed } from '../functions/index.js';
import { bagValue } from '../functions/lowering.js';
import type { SqlCall } from '../functions/types.js';
import { REDACT_MARKS, isOperator, type Call, type Expr, type LiteralValue, type Operator, type ScalarType } from '../plan/types.js';
import type { Params } from './params.js';
import { quoteIdentifier, quoteString } from './quote.js';

/** SQL types of the scalar types: datetimes and timespans are int64 nanoseconds, dynamic is JSON text. */
export const SQL_TYPES: Readonly<Record<ScalarType, 'BOOLEAN' | 'BIGINT' | 'DOUBLE' | 'VARCHAR'>> = {
  bool: 'BOOLEAN',
  long: 'BIGINT',
  real: 'DOUBLE',
  string: 'VARCHAR',
  datetime: 'BIGINT',
  timespan: 'BIGINT',
  dynamic: 'VARCHAR',
};

/** The SQL name of a plan column inside generated statements. */
export function columnName(id: number): string {
  return quoteIdentifier(`c${id}`);
}

/**
 * `value`: the exact value, booleans never null where the plan says false.
 * `predicate`: only whether it is true matters (a WHERE or FILTER clause), so null may stand
 * for false and the cheaper, filter-pushable form is used.
 */
export type Mode = 'value' | 'predicate';

/** Letters and digits make terms; everything else separates them (apl.md `has`). */
const TERM_CHAR = '[\\pL\\pN]';
const NOT_TERM_CHAR = '[^\\pL\\pN]';

export class ExpressionCompiler {
  constructor(
    private readonly params: Params,
    /** Columns known never to hold a negative value (the scan's `_time` in a window after the epoch). */
    private readonly nonNegative: ReadonlySet<number> = new Set(),
    /** How a column reads: its generated name, or in the scan's own WHERE the table's column. */
    private readonly column: (id: number) => string = columnName,
  ) {}

  compile(e: Expr, mode: Mode = 'value'): string {
    switch (e.kind) {
      case 'column':
        return this.column(e.column);
      case 'literal':
        return this.literal(e.type, e.value);
      case 'call':
        return this.call(e, mode);
    }
  }

  private literal(type: ScalarType, value: LiteralValue): string {
    if (value === null) return `CAST(NULL AS ${SQL_TYPES[type]})`;
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    return this.params.bind(value, SQL_TYPES[type]);
  }

  private call(e: Call, mode: Mode): string {
    if (isOperator(e.fn)) return this.operator(e, e.fn, mode);
    const def = functionNamed(e.fn);
    if (!def?.sql) throw new Error(`The plan calls ${e.fn}, which has no SQL lowering.`);
    return def.sql(this.sqlCall(e, mode));
  }

  /** What a registry function's lowering sees of a call (functions/types.ts). */
  private sqlCall(e: Call, mode: Mode): SqlCall {
    const argument = (index: number): Expr => {
      const arg = e.args[index];
      if (!arg) throw new Error(`${e.fn} is missing argument ${index + 1}.`);
      return arg;
    };
    return {
      call: e,
      mode,
      arg: (index, argMode = 'value') => this.compile(argument(index), argMode),
      args: () => e.args.map((arg) => this.compile(arg)),
      type: (index) => argument(index).type,
      value: (index) => {
        const arg = argument(index);
        return arg.kind === 'literal' ? arg.value : undefined;
      },
      cast: (index, type = e.type) => {
        const arg = argument(index);
        const sql = this.compile(arg);
        return arg.type === type ? sql : `CAST(${sql} AS ${SQL_TYPES[type]})`;
      },
      bind: (value, type) => this.params.bind(value, SQL_TYPES[type]),
      exact: (sql) => (mode === 'predicate' ? sql : `coalesce(${sql}, false)`),
      nonNegative: (index) => {
        const arg = argument(index);
        return arg.kind === 'column' && this.nonNegative.has(arg.column);
      },
    };
  }

  private operator(e: Call, fn: Operator, mode: Mode): string {
    const a = (index: number, argMode: Mode = 'value'): string => {
      const arg = e.args[index];
      if (!arg) throw new Error(`${e.fn} is missing argument ${index + 1}.`);
      return this.compile(arg, argMode);
    };
    const exact = (sql: string): string => (mode === 'predicate' ? sql : `coalesce(${sql}, false)`);
    const ci = e.caseSensitive === false;
    const fold = (sql: string): string => (ci ? `lower(${sql})` : sql);
    switch (fn) {
      case 'and':
      case 'or':
        return `(${a(0, mode)} ${fn.toUpperCase()} ${a(1, mode)})`;
      case 'not':
        return `(NOT ${a(0)})`;
      case 'eq':
        return this.equality(e, mode, false);
      case 'ne':
        return this.equality(e, mode, true);
      case 'lt':
        return `(${a(0)} < ${a(1)})`;
      case 'lte':
        return `(${a(0)} <= ${a(1)})`;
      case 'gt':
        return `(${a(0)} > ${a(1)})`;
      case 'gte':
        return `(${a(0)} >= ${a(1)})`;
      case 'in':
        return this.membership(e, mode);
      case 'between':
        return exact(`(${a(0)} BETWEEN ${a(1)} AND ${a(2)})`);
      case 'add':
        return `(${a(0)} + ${a(1)})`;
      case 'sub':
        return `(${a(0)} - ${a(1)})`;
      case 'mul':
        return e.type === 'timespan' ? `CAST(round(${a(0)} * ${a(1)}) AS BIGINT)` : `(${a(0)} * ${a(1)})`;
      case 'div':
        if (e.type === 'long') return `(${a(0)} // ${a(1)})`;
        if (e.type === 'timespan') return `CAST(trunc(${a(0)} / ${a(1)}) AS BIGINT)`;
        return `(CAST(${a(0)} AS DOUBLE) / ${a(1)})`;
      case 'mod':
        return e.type === 'real' ? `fmod(${a(0)}, ${a(1)})` : `(${a(0)} % ${a(1)})`;
      case 'neg':
        return `(-${a(0)})`;
      case 'contains':
        return exact(`contains(${fold(a(0))}, ${fold(a(1))})`);
      case 'startswith':
        return exact(`starts_with(${fold(a(0))}, ${fold(a(1))})`);
      case 'endswith':
        return exact(`ends_with(${fold(a(0))}, ${fold(a(1))})`);
      case 'has':
      case 'hasprefix':
      case 'hassuffix':
        return exact(this.termMatch(e));
      case 'regex':
        return exact(`regexp_matches(${a(0)}, ${a(1)})`);
      case 'dynamic_get':
        return this.dynamicGet(e);
      case 'redact':
        return this.redact(e);
    }
  }

  /** `==` is true for two nulls and false for one; `!=` the opposite (apl.md). */
  private equality(e: Call, mode: Mode, negated: boolean): string {
    const [left, right] = e.args;
    if (!left || !right) throw new Error(`${e.fn} needs two arguments.`);
    const fold = (sql: string): string => (e.caseSensitive === false ? `lower(${sql})` : sql);
    const l = fold(this.compile(left));
    const r = fold(this.compile(right));
    const literalSide = [left, right].some((arg) => arg.kind === 'literal' && arg.value !== null);
    if (literalSide && mode === 'predicate') {
      // With a non-null constant, SQL's null (dropped) is the same as false, and `=` can be pushed into the scan.
      return negated ? `(${l} <> ${r} OR ${l} IS NULL OR ${r} IS NULL)` : `(${l} = ${r})`;
    }
    return `(${l} IS ${negated ? '' : 'NOT '}DISTINCT FROM ${r})`;
  }

  private membership(e: Call, mode: Mode): string {
    const [subject, ...items] = e.args;
    if (!subject) throw new Error('in needs a subject.');
    const fold = (sql: string): string => (e.caseSensitive === false ? `lower(${sql})` : sql);
    const value = fold(this.compile(subject));
    const present = items.filter((item) => !(item.kind === 'literal' && item.value === null));
    const parts: string[] = [];
    if (present.length > 0) parts.push(`${value} IN (${present.map((item) => fold(this.compile(item))).join(', ')})`);
    if (present.length < items.length) parts.push(`${value} IS NULL`);
    if (parts.length === 0) return 'false';
    const test = parts.length === 1 ? `(${parts[0]})` : `(${parts.join(' OR ')})`;
    return mode === 'predicate' ? test : `coalesce(${test}, false)`;
  }

  /**
   * `has`: the needle must start and end at term boundaries where its own first and last
   * characters are term characters. A constant needle becomes one bound regular expression,
   * with a substring test first that discards most rows cheaply.
   */
  private termMatch(e: Call): string {
    const [haystackExpr, needleExpr] = e.args;
    if (!haystackExpr || !needleExpr) throw new Error(`${e.fn} needs two arguments.`);
    const haystack = this.compile(haystackExpr);
    const flags = e.caseSensitive ? '' : '(?i)';
    const before = e.fn === 'hassuffix' ? '' : `(?:^|${NOT_TERM_CHAR})`;
    const after = e.fn === 'hasprefix' ? '' : `(?:$|${NOT_TERM_CHAR})`;
    if (needleExpr.kind === 'literal' && typeof needleExpr.value === 'string') {
      const needle = needleExpr.value;
      const chars = [...needle];
      const termStart = chars.length > 0 && /^[\p{L}\p{N}]$/u.test(chars[0] ?? '');
      const termEnd = chars.length > 0 && /^[\p{L}\p{N}]$/u.test(chars[chars.length - 1] ?? '');
      if (needle === '') return `(${haystack} IS NOT NULL)`;
      const pattern = `${flags}${termStart ? before : ''}${escapeRegex(needle)}${termEnd ? after : ''}`;
      const regex = `regexp_matches(${haystack}, ${this.params.bind(pattern, 'VARCHAR')})`;
      const prefilter = e.caseSensitive
        ? `contains(${haystack}, ${this.params.bind(needle, 'VARCHAR')})`
        : `contains(lower(${haystack}), lower(${this.params.bind(needle, 'VARCHAR')}))`;
      return `(${prefilter} AND ${regex})`;
    }
    const needle = this.compile(needleExpr);
    const leading = `CASE WHEN regexp_matches(${needle}, ${quoteString(`^${TERM_CHAR}`)}) THEN ${quoteString(before)} ELSE '' END`;
    const trailing = `CASE WHEN regexp_matches(${needle}, ${quoteString(`${TERM_CHAR}$`)}) THEN ${quoteString(after)} ELSE '' END`;
    return `regexp_matches(${haystack}, concat(${quoteString(flags)}, ${leading}, regexp_escape(${needle}), ${trailing}))`;
  }

  /**
   * The matches are marked with a global regexp_replace, then the text split at the marks: the
   * pieces at even places (1-based) are what matched, rewritten; replacing with a computed
   * length or hash needs the match itself, which a rewrite string cannot give.
   */
  private redact(e: Call): string {
    const [text, pattern, replacement, token, mode] = e.args;
    if (!text || !pattern || !replacement || !token || mode?.kind !== 'literal') throw new Error('redact needs five arguments.');
    const marked = `regexp_replace(${this.compile(text)}, ${this.compile(pattern)}, ${this.compile(replacement)}, 'g')`;
    const pieces = `string_split_regex(${marked}, ${quoteString(`[${REDACT_MARKS.open}${REDACT_MARKS.close}]`)})`;
    const piece = 'redact_piece';
    const rewritten =
      mode.value === 'hash'
        ? `left(to_base64(unhex(sha256(${piece}))), 8)`
        : mode.value === 'chars'
          ? `repeat(${this.compile(token)}, length(${piece}))`
          : this.compile(token);
    return `array_to_string(list_transform(${pieces}, (${piece}, redact_index) -> CASE WHEN redact_index % 2 = 0 AND ${piece} <> '' THEN ${rewritten} ELSE ${piece} END), '')`;
  }

  private dynamicGet(e: Call): string {
    const [objectExpr, keyExpr] = e.args;
    if (!objectExpr || !keyExpr) throw new Error('dynamic_get needs two arguments.');
    const object = this.compile(objectExpr);
    let path: string;
    if (keyExpr.kind === 'literal' && keyExpr.value === '') {
      // A JSON path cannot spell the empty key.
      return `CAST(${bagValue(object, this.compile(keyExpr))} AS VARCHAR)`;
    }
    if (keyExpr.kind === 'literal' && keyExpr.value !== null) {
      const key = keyExpr.value;
      path = this.params.bind(typeof key === 'bigint' ? `$[${key < 0n ? `#${key}` : key}]` : `$."${String(key).replace(/["\\]/g, '\\$&')}"`, 'VARCHAR');
    } else if (keyExpr.type === 'long') {
      path = `concat('$[', ${this.compile(keyExpr)}, ']')`;
    } else {
      path = `concat('$."', replace(replace(${this.compile(keyExpr)}, '\\', '\\\\'), '"', '\\"'), '"')`;
    }
    return `CAST(json_extract(${object}, ${path}) AS VARCHAR)`;
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
