import type { ScalarType } from '../plan/types.js';
import { toText } from '../sql/convert.js';
import { reuse } from '../sql/reuse.js';
import type { SqlCall } from './types.js';

/** SQL shapes that several families' lowerings share. */

/** A DuckDB value (a list, a struct, a map) as dynamic: its JSON text. */
export function jsonText(sql: string): string {
  return `CAST(to_json(${sql}) AS VARCHAR)`;
}

/**
 * A regular expression built around a user's pattern, `before` + pattern + `after`: one bound
 * parameter when the pattern is a literal (DuckDB compiles it once), else concatenated in SQL.
 */
export function wrappedRegex(c: SqlCall, index: number, before: string, after: string): string {
  const pattern = c.value(index);
  if (typeof pattern === 'string') return c.bind(`${before}${pattern}${after}`, 'string');
  return `concat(${c.bind(before, 'string')}, ${c.arg(index)}, ${c.bind(after, 'string')})`;
}

/** The elements of a dynamic value that is a JSON array, as a list of JSON values (null otherwise). */
export function jsonElements(sql: string): string {
  return `CASE WHEN json_type(${sql}) = 'ARRAY' THEN CAST(${sql} AS JSON[]) END`;
}

/**
 * A value of a plan type as a DuckDB JSON value, the way dynamic values hold it: datetimes as
 * RFC 3339 text, timespans as `tostring` writes them (`1h30m0s`), dynamic values as they are,
 * non-finite reals as null (JSON has no NaN).
 */
export function jsonValue(sql: string, type: ScalarType): string {
  switch (type) {
    case 'dynamic':
      return `CAST(${sql} AS JSON)`;
    case 'datetime':
    case 'timespan':
      return `to_json(${toText(sql, type)})`;
    case 'real':
      return reuse(sql, 'jv', (x) => `CASE WHEN isfinite(${x}) THEN to_json(${x}) END`);
    default:
      return `to_json(${sql})`;
  }
}

/**
 * The value of one top-level key of a JSON object (null for anything else), the key taken
 * whole: dots, quotes, `$` and the empty key, which a JSON path cannot always spell.
 */
export function bagValue(objectSql: string, keySql: string): string {
  return `CASE WHEN json_type(${objectSql}) = 'OBJECT' THEN map_extract_value(CAST(CAST(${objectSql} AS JSON) AS MAP(VARCHAR, JSON)), ${keySql}) END`;
}
