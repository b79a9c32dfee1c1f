import type { SqlCall } from './types.js';

/** SQL shapes that several families' lowerings share. */

/** A DuckDB value (a list, a struct, a map) as dynamic: its JSON text. */
export function jsonText(sql: string): string {
  return `CAST(to_json(${sql}) AS VARCHAR)`;
}

/**
 * `body` with `value` computed once and named `name` in it: DuckDB evaluates a lambda's captured
 * expression once per row, where writing it out twice would evaluate it twice (or once per
 * element, inside another lambda). `name` must not clash with an enclosing lambda's parameter.
 */
export function once(value: string, name: string, body: string): string {
  return `list_transform([${value}], ${name} -> ${body})[1]`;
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
