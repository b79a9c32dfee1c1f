/**
 * The only place where text is put into SQL. Identifiers that reach SQL are generated ones
 * (`ds_1`, `f12`, see ../schema.ts, and the compiler's `c12`), never a user's field or dataset
 * name; user values are bound parameters (see params.ts). `quoteString` covers the few spots
 * where DuckDB takes no parameter (DDL, table-function options) and the compiler's own constant
 * text (format patterns, fixed regular expressions); numbers are written from their value.
 */

export class SqlQuoteError extends Error {
  readonly code = 'sql_quote';
}

function assertNoNul(kind: string, text: string): void {
  // DuckDB reads statement text as a C string: a NUL would silently cut the statement short.
  if (text.includes('\u0000')) throw new SqlQuoteError(`Cannot quote ${kind} ${JSON.stringify(text)}: it contains a NUL character.`);
}

/** `name` as a quoted SQL identifier: `"f1"`, with embedded quotes doubled. */
export function quoteIdentifier(name: string): string {
  assertNoNul('the identifier', name);
  return `"${name.replaceAll('"', '""')}"`;
}

/** `value` as a SQL string literal: `'it''s'`. */
export function quoteString(value: string): string {
  assertNoNul('the string', value);
  return `'${value.replaceAll("'", "''")}'`;
}

/** An integer constant, written from its value. */
export function sqlInteger(value: bigint | number): string {
  const integer = typeof value === 'bigint' ? value : BigInt(Math.trunc(value));
  return integer < 0n ? `(${integer.toString()})` : integer.toString();
}

/** A finite floating-point constant, written from its value. */
export function sqlReal(value: number): string {
  if (!Number.isFinite(value)) throw new SqlQuoteError(`Cannot write ${value} as an SQL constant.`);
  const text = String(value);
  return `${value < 0 ? `(${text})` : text}::DOUBLE`;
}
