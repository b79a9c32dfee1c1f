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
