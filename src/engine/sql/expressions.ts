import { NS_PER } from '../apl/literals.js';
import type { Call, Expr, LiteralValue, ScalarType } from '../plan/types.js';
import type { Params } from './params.js';
import { quoteIdentifier, sqlInteger, quoteString } from './quote.js';

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

const DAY = sqlInteger(NS_PER.day);
const WEEK = sqlInteger(7n * NS_PER.day);
/** 1970-01-04, the first Sunday after the epoch: weeks start on Sunday. */
const FIRST_SUNDAY = sqlInteger(3n * NS_PER.day);
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
    const a = (index: number, argMode: Mode = 'value'): string => {
      const arg = e.args[index];
      if (!arg) throw new Error(`${e.fn} is missing argument ${index + 1}.`);
      return this.compile(arg, argMode);
    };
    const type = (index: number): ScalarType => e.args[index]?.type ?? 'string';
    const exact = (sql: string): string => (mode === 'predicate' ? sql : `coalesce(${sql}, false)`);
    const ci = e.caseSensitive === false;
    const fold = (sql: string): string => (ci ? `lower(${sql})` : sql);
    switch (e.fn) {
      case 'and':
      case 'or':
        return `(${a(0, mode)} ${e.fn.toUpperCase()} ${a(1, mode)})`;
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
      case 'tolower':
        return `lower(${a(0)})`;
      case 'toupper':
        return `upper(${a(0)})`;
      case 'strlen':
        return `length(${a(0)})`;
      case 'substring': {
        const start = `(greatest(${a(1)}, 0) + 1)`;
        return e.args.length > 2 ? `substring(${a(0)}, ${start}, greatest(${a(2)}, 0))` : `substring(${a(0)}, ${start})`;
      }
      case 'strcat':
        return `concat(${e.args.map((_, i) => a(i)).join(', ')})`;
      case 'split':
        return `CAST(to_json(string_split(${a(0)}, ${a(1)})) AS VARCHAR)`;
      case 'replace_string':
        return `replace(${a(0)}, ${a(1)}, ${a(2)})`;
      case 'indexof': {
        if (e.args.length < 3) return `(instr(${a(0)}, ${a(1)}) - 1)`;
        const start = `greatest(${a(2)}, 0)`;
        const found = `instr(substring(${a(0)}, ${start} + 1), ${a(1)})`;
        return `CASE WHEN ${found} = 0 THEN -1 ELSE ${found} + ${start} - 1 END`;
      }
      case 'extract': {
        const group = e.args[1];
        const groupNumber = group?.kind === 'literal' && typeof group.value === 'bigint' ? group.value : 0n;
        return `CASE WHEN regexp_matches(${a(2)}, ${a(0)}) THEN regexp_extract(${a(2)}, ${a(0)}, ${sqlInteger(groupNumber)}) END`;
      }
      case 'tostring':
        return `coalesce(${this.toText(a(0), type(0))}, '')`;
      case 'tolong':
        return this.toLong(a(0), type(0));
      case 'toreal':
        return this.toReal(a(0), type(0));
      case 'tobool':
        return this.toBool(a(0), type(0));
      case 'todatetime':
        return type(0) === 'datetime' ? a(0) : parseDatetimeSql(type(0) === 'dynamic' ? this.toText(a(0), 'dynamic') : a(0));
      case 'totimespan':
        return type(0) === 'timespan' ? a(0) : parseTimespanSql(type(0) === 'dynamic' ? this.toText(a(0), 'dynamic') : a(0));
      case 'isnull':
        return `(${a(0)} IS NULL)`;
      case 'isnotnull':
        return `(${a(0)} IS NOT NULL)`;
      case 'isempty':
        return type(0) === 'string' || type(0) === 'dynamic' ? `(${a(0)} IS NULL OR ${a(0)} = '')` : `(${a(0)} IS NULL)`;
      case 'isnotempty':
        return type(0) === 'string' || type(0) === 'dynamic' ? `(${a(0)} IS NOT NULL AND ${a(0)} <> '')` : `(${a(0)} IS NOT NULL)`;
      case 'coalesce':
        return `coalesce(${e.args.map((_, i) => this.cast(i, e)).join(', ')})`;
      case 'iff':
        return `CASE WHEN ${a(0, 'predicate')} THEN ${this.cast(1, e)} ELSE ${this.cast(2, e)} END`;
      case 'case': {
        const branches: string[] = [];
        for (let i = 0; i + 1 < e.args.length; i += 2) branches.push(`WHEN ${a(i, 'predicate')} THEN ${this.cast(i + 1, e)}`);
        return `CASE ${branches.join(' ')} ELSE ${this.cast(e.args.length - 1, e)} END`;
      }
      case 'floor':
        return type(0) === 'long' ? a(0) : `floor(${a(0)})`;
      case 'ceiling':
        return type(0) === 'long' ? a(0) : `ceil(${a(0)})`;
      case 'round':
        return e.args.length > 1 ? `round(${a(0)}, CAST(${a(1)} AS INTEGER))` : `round(${a(0)})`;
      case 'abs':
        return `abs(${a(0)})`;
      case 'bin': {
        if (type(0) === 'real' || type(1) === 'real') return `(floor(${a(0)} / ${a(1)}) * ${a(1)})`;
        const value = e.args[0];
        return value?.kind === 'column' && this.nonNegative.has(value.column) ? `(${a(0)} - ${a(0)} % ${a(1)})` : floorTo(a(0), a(1));
      }
      case 'startofday':
        return floorTo(a(0), DAY);
      case 'startofweek':
        return `(${a(0)} - ${positiveMod(`(${a(0)} - ${FIRST_SUNDAY})`, WEEK)})`;
      case 'startofmonth':
        return `epoch_ns(date_trunc('month', ${timestampOf(a(0))}))`;
      case 'hourofday':
        return `(${positiveMod(a(0), DAY)} // ${sqlInteger(NS_PER.hour)})`;
      case 'dayofweek':
        return `((${positiveMod(`(${a(0)} - ${FIRST_SUNDAY})`, WEEK)} // ${DAY}) * ${DAY})`;
      case 'datetime_diff':
        return this.datetimeDiff(e);
      case 'dynamic_get':
        return this.dynamicGet(e);
    }
  }

  /** A branch of iff/case/coalesce in the result's type (long branches of a real result, say). */
  private cast(index: number, e: Call): string {
    const arg = e.args[index];
    if (!arg) throw new Error(`${e.fn} is missing argument ${index + 1}.`);
    const sql = this.compile(arg);
    return arg.type === e.type ? sql : `CAST(${sql} AS ${SQL_TYPES[e.type]})`;
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

  /** Text of a value as `tostring` gives it (before null becomes ""). */
  toText(sql: string, type: ScalarType): string {
    switch (type) {
      case 'string':
        return sql;
      case 'datetime':
        return formatDatetimeSql(sql);
      case 'timespan':
        return formatTimespanSql(sql);
      case 'dynamic':
        return `CASE WHEN json_type(${sql}) = 'VARCHAR' THEN json_extract_string(${sql}, '$') ELSE ${sql} END`;
      default:
        return `CAST(${sql} AS VARCHAR)`;
    }
  }

  private toLong(sql: string, type: ScalarType): string {
    switch (type) {
      case 'long':
      case 'datetime':
      case 'timespan':
        return sql;
      case 'real':
        return `TRY_CAST(trunc(${sql}) AS BIGINT)`;
      case 'bool':
        return `CAST(${sql} AS BIGINT)`;
      default: {
        const text = type === 'dynamic' ? this.toText(sql, type) : sql;
        return `CASE WHEN regexp_full_match(${text}, '[+-]?[0-9]+') THEN TRY_CAST(${text} AS BIGINT) END`;
      }
    }
  }

  private toReal(sql: string, type: ScalarType): string {
    if (type === 'string') return `TRY_CAST(${sql} AS DOUBLE)`;
    if (type === 'dynamic') return `TRY_CAST(${this.toText(sql, type)} AS DOUBLE)`;
    return `CAST(${sql} AS DOUBLE)`;
  }

  private toBool(sql: string, type: ScalarType): string {
    switch (type) {
      case 'bool':
        return sql;
      case 'long':
      case 'real':
        return `(${sql} <> 0)`;
      case 'string':
      case 'dynamic': {
        const text = `lower(${type === 'dynamic' ? this.toText(sql, type) : sql})`;
        return `CASE ${text} WHEN 'true' THEN true WHEN 'false' THEN false END`;
      }
      default:
        return 'CAST(NULL AS BOOLEAN)';
    }
  }

  private datetimeDiff(e: Call): string {
    const part = e.args[0]?.kind === 'literal' ? String(e.args[0].value) : 'day';
    const later = this.compile(e.args[1] as Expr);
    const earlier = this.compile(e.args[2] as Expr);
    const units: Readonly<Record<string, bigint>> = {
      day: NS_PER.day,
      hour: NS_PER.hour,
      minute: NS_PER.minute,
      second: NS_PER.second,
      millisecond: NS_PER.millisecond,
      microsecond: NS_PER.microsecond,
      nanosecond: NS_PER.nanosecond,
    };
    const unit = units[part];
    if (unit !== undefined) {
      const u = sqlInteger(unit);
      return `(${floorDiv(later, u)} - ${floorDiv(earlier, u)})`;
    }
    if (part === 'week') return `(${floorDiv(`(${later} - ${FIRST_SUNDAY})`, WEEK)} - ${floorDiv(`(${earlier} - ${FIRST_SUNDAY})`, WEEK)})`;
    // year, quarter, month: calendar boundaries, which DuckDB counts the same way.
    return `date_diff(${quoteString(part)}, ${timestampOf(earlier)}, ${timestampOf(later)})`;
  }

  private dynamicGet(e: Call): string {
    const [objectExpr, keyExpr] = e.args;
    if (!objectExpr || !keyExpr) throw new Error('dynamic_get needs two arguments.');
    const object = this.compile(objectExpr);
    let path: string;
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

/** x mod m in [0, m), for int64 nanoseconds before the epoch too. */
function positiveMod(x: string, m: string): string {
  return `(((${x} % ${m}) + ${m}) % ${m})`;
}

/** The largest multiple of `size` not above x, exactly, in int64. */
export function floorTo(x: string, size: string): string {
  return `(${x} - ${positiveMod(x, size)})`;
}

function floorDiv(x: string, size: string): string {
  return `(${floorTo(x, size)} // ${size})`;
}

/** A DuckDB TIMESTAMP (microseconds) of int64 nanoseconds, for calendar arithmetic. */
function timestampOf(ns: string): string {
  return `make_timestamp(${floorDiv(ns, '1000')})`;
}

/** RFC 3339 UTC with the nanoseconds trimmed of trailing zeros, as results print datetimes. */
export function formatDatetimeSql(ns: string): string {
  const nanos = positiveMod(ns, '1000000000');
  const fraction = `CASE WHEN ${nanos} = 0 THEN '' ELSE '.' || rtrim(lpad(CAST(${nanos} AS VARCHAR), 9, '0'), '0') END`;
  return `(strftime(${timestampOf(ns)}, '%Y-%m-%dT%H:%M:%S') || ${fraction} || 'Z')`;
}

/** Kusto's `[-][d.]hh:mm:ss[.fffffff]`; also how a stored timespan reads once its field widens to string. */
export function formatTimespanSql(ns: string): string {
  const magnitude = `abs(${ns})`;
  const part = (unit: bigint, modulo: bigint | undefined): string =>
    modulo === undefined ? `(${magnitude} // ${sqlInteger(unit)})` : `((${magnitude} // ${sqlInteger(unit)}) % ${sqlInteger(modulo)})`;
  const nanos = `(${magnitude} % 1000000000)`;
  const days = part(NS_PER.day, undefined);
  return (
    `(CASE WHEN ${ns} < 0 THEN '-' ELSE '' END || CASE WHEN ${days} > 0 THEN CAST(${days} AS VARCHAR) || '.' ELSE '' END || ` +
    `printf('%02d:%02d:%02d', ${part(NS_PER.hour, 24n)}, ${part(NS_PER.minute, 60n)}, ${part(NS_PER.second, 60n)}) || ` +
    `CASE WHEN ${nanos} = 0 THEN '' ELSE '.' || rtrim(lpad(CAST(${nanos} AS VARCHAR), 9, '0'), '0') END)`
  );
}

const ISO_DATETIME = '^(\\d{4}-\\d{2}-\\d{2})(?:[Tt ](\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d{1,9})?)?))?\\s*(Z|z|UTC|[+-]\\d{2}:?\\d{2})?$';

/** todatetime of text: ISO 8601 / RFC 3339 with any offset, or null. */
function parseDatetimeSql(text: string): string {
  const date = `regexp_extract(${text}, ${quoteString(ISO_DATETIME)}, 1)`;
  const time = `regexp_extract(${text}, ${quoteString(ISO_DATETIME)}, 2)`;
  const offset = `regexp_extract(${text}, ${quoteString(ISO_DATETIME)}, 3)`;
  const local = `epoch_ns(TRY_CAST(${date} || ' ' || CASE WHEN ${time} = '' THEN '00:00:00' ELSE replace(${time}, ',', '.') END AS TIMESTAMP_NS))`;
  const offsetMinutes =
    `CASE WHEN ${offset} IN ('', 'Z', 'z', 'UTC') THEN 0 ELSE ` +
    `(CASE WHEN starts_with(${offset}, '-') THEN -1 ELSE 1 END) * (CAST(substring(replace(${offset}, ':', ''), 2, 2) AS BIGINT) * 60 + CAST(substring(replace(${offset}, ':', ''), 4, 2) AS BIGINT)) END`;
  return `CASE WHEN regexp_matches(${text}, ${quoteString(ISO_DATETIME)}) THEN ${local} - ${offsetMinutes} * ${sqlInteger(NS_PER.minute)} END`;
}

const SUFFIXED_TIMESPAN = '^([+-]?\\d+(?:\\.\\d+)?)\\s*(d|h|m|s|ms|min|sec|microsecond|tick|ns)$';
const CLOCK_TIMESPAN = '^([+-]?)(?:(\\d+)\\.)?(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?$';

/** totimespan of text: `1.5h`, `30s`, `100ms`, or `[d.]hh:mm[:ss[.f]]`; null otherwise. */
function parseTimespanSql(text: string): string {
  const amount = `TRY_CAST(regexp_extract(${text}, ${quoteString(SUFFIXED_TIMESPAN)}, 1) AS DOUBLE)`;
  const unit = `regexp_extract(${text}, ${quoteString(SUFFIXED_TIMESPAN)}, 2)`;
  const unitNs = `CASE ${unit} WHEN 'd' THEN ${sqlInteger(NS_PER.day)} WHEN 'h' THEN ${sqlInteger(NS_PER.hour)} WHEN 'm' THEN ${sqlInteger(NS_PER.minute)} WHEN 'min' THEN ${sqlInteger(NS_PER.minute)} WHEN 's' THEN ${sqlInteger(NS_PER.second)} WHEN 'sec' THEN ${sqlInteger(NS_PER.second)} WHEN 'ms' THEN ${sqlInteger(NS_PER.millisecond)} WHEN 'microsecond' THEN ${sqlInteger(NS_PER.microsecond)} WHEN 'tick' THEN ${sqlInteger(NS_PER.tick)} ELSE 1 END`;
  const group = (n: number): string => `regexp_extract(${text}, ${quoteString(CLOCK_TIMESPAN)}, ${n})`;
  const number = (n: number): string => `coalesce(TRY_CAST(nullif(${group(n)}, '') AS BIGINT), 0)`;
  const clock =
    `(CASE WHEN ${group(1)} = '-' THEN -1 ELSE 1 END) * (${number(2)} * ${sqlInteger(NS_PER.day)} + ${number(3)} * ${sqlInteger(NS_PER.hour)} + ${number(4)} * ${sqlInteger(NS_PER.minute)} + ` +
    `${number(5)} * ${sqlInteger(NS_PER.second)} + coalesce(TRY_CAST(nullif(rpad(${group(6)}, 9, '0'), '000000000') AS BIGINT), 0))`;
  return `CASE WHEN regexp_matches(${text}, ${quoteString(SUFFIXED_TIMESPAN)}) THEN CAST(round(${amount} * (${unitNs})) AS BIGINT) WHEN regexp_matches(${text}, ${quoteString(CLOCK_TIMESPAN)}) THEN ${clock} END`;
}
