import type { ScalarType } from '../plan/types.js';
import { formatDatetimeSql, formatTimespanSql } from './time.js';

/**
 * SQL converting a value of one plan type to another, as APL's conversion functions and its
 * implicit conversions (comparisons with a dynamic value, string predicates on numbers) define.
 * Dynamic values are JSON text.
 */

/** Text of a value as `tostring` gives it, before null becomes "": a JSON string is its content. */
export function toText(sql: string, type: ScalarType): string {
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
    default: {
      const text = type === 'dynamic' ? toText(sql, type) : sql;
      return `CASE WHEN regexp_full_match(${text}, '[+-]?[0-9]+') THEN TRY_CAST(${text} AS BIGINT) END`;
    }
  }
}

/** `toreal`: anything DuckDB reads as a double, else null. */
export function toReal(sql: string, type: ScalarType): string {
  if (type === 'string') return `TRY_CAST(${sql} AS DOUBLE)`;
  if (type === 'dynamic') return `TRY_CAST(${toText(sql, type)} AS DOUBLE)`;
  return `CAST(${sql} AS DOUBLE)`;
}

/** `tobool`: numbers are true when not 0; text `true`/`false` in any case; anything else null. */
export function toBool(sql: string, type: ScalarType): string {
  switch (type) {
    case 'bool':
      return sql;
    case 'long':
    case 'real':
      return `(${sql} <> 0)`;
    case 'string':
    case 'dynamic': {
      const text = `lower(${type === 'dynamic' ? toText(sql, type) : sql})`;
      return `CASE ${text} WHEN 'true' THEN true WHEN 'false' THEN false END`;
    }
    default:
      return 'CAST(NULL AS BOOLEAN)';
  }
}
