import { NS_PER } from '../apl/literals.js';
import type { ScalarType } from '../plan/types.js';
import { sqlInteger } from './quote.js';
import { reuse } from './reuse.js';
import { formatDatetimeSql } from './time.js';

/**
 * SQL converting a value of one plan type to another, as APL's conversion functions and its
 * implicit conversions (comparisons with a dynamic value, string predicates on numbers) define.
 * Dynamic values are JSON text.
 */

/**
 * Text of a value as `tostring` gives it, before null becomes "" (the reference's conversion
 * rules): datetimes RFC 3339 with nanoseconds, timespans as Go writes durations (`1h30m0s`),
 * reals in their shortest form without a trailing `.0`, a JSON string its content, a JSON null null.
 */
export function toText(sql: string, type: ScalarType): string {
  switch (type) {
    case 'string':
      return sql;
    case 'datetime':
      return formatDatetimeSql(sql);
    case 'timespan':
      return goDurationSql(sql);
    case 'real':
      return `regexp_replace(CAST(${sql} AS VARCHAR), '\.0$', '')`;
    case 'dynamic':
      // One parse of the JSON text: a string's content, any other value as JSON, and JSON's null
      // as null (a dynamic null converts to "" as any null does, not to the text "null").
      return `json_extract_string(${sql}, '$')`;
    default:
      return `CAST(${sql} AS VARCHAR)`;
  }
}

/** `whole` units and the fraction after them, trailing zeros trimmed: `1.5` of `ns` nanoseconds in `unit`. */
function decimalOf(ns: string, unit: bigint): string {
  const digits = unit.toString().length - 1;
  const fraction = `(${ns} % ${sqlInteger(unit)})`;
  return `CAST(${ns} // ${sqlInteger(unit)} AS VARCHAR) || CASE WHEN ${fraction} = 0 THEN '' ELSE '.' || rtrim(lpad(CAST(${fraction} AS VARCHAR), ${digits}, '0'), '0') END`;
}

/** Go's `time.Duration.String()` of int64 nanoseconds: `0s`, `1.5µs`, `100ms`, `1m20s`, `-72h3m0.5s`. */
export function goDurationSql(value: string): string {
  return reuse(value, 'gd', (sql) => {
    const ns = `abs(${sql})`;
    const hours = `(${ns} // ${sqlInteger(NS_PER.hour)})`;
    const minutes = `((${ns} // ${sqlInteger(NS_PER.minute)}) % 60)`;
    const seconds = `(${ns} % ${sqlInteger(NS_PER.minute)})`;
    const long =
      `CASE WHEN ${hours} > 0 THEN CAST(${hours} AS VARCHAR) || 'h' ELSE '' END || ` +
      `CASE WHEN ${hours} > 0 OR ${minutes} > 0 THEN CAST(${minutes} AS VARCHAR) || 'm' ELSE '' END || ${decimalOf(seconds, NS_PER.second)} || 's'`;
    const text =
      `CASE WHEN ${ns} = 0 THEN '0s' WHEN ${ns} < 1000 THEN CAST(${ns} AS VARCHAR) || 'ns' ` +
      `WHEN ${ns} < 1000000 THEN ${decimalOf(ns, NS_PER.microsecond)} || 'µs' WHEN ${ns} < 1000000000 THEN ${decimalOf(ns, NS_PER.millisecond)} || 'ms' ELSE ${long} END`;
    return `(CASE WHEN ${sql} < 0 THEN '-' ELSE '' END || ${text})`;
  });
}

/** `tolong`: integers pass, reals truncate, text must be strictly an integer. */
export function toLong(sql: string, type: ScalarType): string {
  switch (type) {
    case 'long':
    case 'datetime':
    case 'timespan':
      return sql;
    case 'real':
      return `TRY_CAST(trunc(${sql}) AS BIGINT)`;
    case 'bool':
      return `CAST(${sql} AS BIGINT)`;
    default:
      return reuse(type === 'dynamic' ? toText(sql, type) : sql, 'tl', (text) => `CASE WHEN regexp_full_match(${text}, '[+-]?[0-9]+') THEN TRY_CAST(${text} AS BIGINT) END`);
  }
}

/** `toreal`: anything DuckDB reads as a double, else null. */
export function toReal(sql: string, type: ScalarType): string {
  if (type === 'string') return `TRY_CAST(${sql} AS DOUBLE)`;
  if (type === 'dynamic') return `TRY_CAST(${toText(sql, type)} AS DOUBLE)`;
  return `CAST(${sql} AS DOUBLE)`;
}

/** The texts `tobool` reads, as Go's `strconv.ParseBool` does; any other text is null. */
const TRUE_TEXTS = "('1', 't', 'T', 'TRUE', 'true', 'True')";
const FALSE_TEXTS = "('0', 'f', 'F', 'FALSE', 'false', 'False')";

/** `tobool`: numbers, timespans and datetimes are true when not 0 (the epoch); text as TRUE_TEXTS and FALSE_TEXTS say. */
export function toBool(sql: string, type: ScalarType): string {
  switch (type) {
    case 'bool':
      return sql;
    case 'long':
    case 'real':
    case 'datetime':
    case 'timespan':
      return `(${sql} <> 0)`;
    case 'string':
      return reuse(sql, 'tb', (text) => `CASE WHEN ${text} IN ${TRUE_TEXTS} THEN true WHEN ${text} IN ${FALSE_TEXTS} THEN false END`);
    case 'dynamic':
      return reuse(
        sql,
        'tb',
        (json) =>
          `CASE json_type(${json}) WHEN 'BOOLEAN' THEN CAST(${json} AS BOOLEAN) WHEN 'BIGINT' THEN CAST(${json} AS DOUBLE) <> 0 ` +
          `WHEN 'UBIGINT' THEN CAST(${json} AS DOUBLE) <> 0 WHEN 'DOUBLE' THEN CAST(${json} AS DOUBLE) <> 0 WHEN 'VARCHAR' THEN ${toBool(toText(json, 'dynamic'), 'string')} END`,
      );
  }
}
