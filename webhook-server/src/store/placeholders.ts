/**
 * Numbered placeholders (`$1…$n`) for statements whose number of values varies: both stores'
 * SQL is written with them (the SQLite driver renumbers them to `?`). Only the placeholders are
 * built here; the values are always bound.
 */

/** `$first, …`: `count` parameters numbered from `first`. */
export function parameterList(count: number, first = 1): string {
  return Array.from({ length: count }, (_, index) => `$${first + index}`).join(', ');
}

/**
 * `($1, $2), ($3, $4)…`: `rows` rows of `columns` parameters numbered from `first`; `shape` lays
 * out one row's placeholders.
 */
export function rowPlaceholders(rows: number, columns: number, options: { first?: number; shape?: (row: string[]) => string } = {}): string {
  const first = options.first ?? 1;
  const shape = options.shape ?? ((row: string[]) => row.join(', '));
  return Array.from({ length: rows }, (_, row) => `(${shape(Array.from({ length: columns }, (_, column) => `$${first + row * columns + column}`))})`).join(', ');
}
