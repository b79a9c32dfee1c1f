import type { StorageType } from '../schema.js';
import { toText } from '../sql/convert.js';

/** The DuckDB column type of each storage type (see StorageType in ../schema.ts). */
export const SQL_TYPE_OF: Readonly<Record<StorageType, string>> = {
  timestamp: 'BIGINT',
  boolean: 'BOOLEAN',
  integer: 'BIGINT',
  float: 'DOUBLE',
  string: 'VARCHAR',
  json: 'VARCHAR',
  timespan: 'BIGINT',
};

/**
 * The one rule for turning a value of one storage type into another, as a SQL expression. Used
 * both when a column widens (ALTER … USING) and when a batch brings values narrower than the
 * column (INSERT … SELECT), so old and new values convert alike: integers widen to DOUBLE, and
 * everything becomes text by DuckDB's own cast (`1.5`, `1e+21`, `true`; JSON text as is),
 * except that a whole float reads as the integer it is (`1`, not `1.0`), as it was sent, and a
 * timespan reads as `tostring()` gives it (`124ms`, Go's duration text), not as its nanoseconds.
 */
export function convertStorage(expression: string, from: StorageType, to: StorageType): string {
  if (from === 'timespan' && to === 'string') return toText(expression, 'timespan');
  if (from === to || SQL_TYPE_OF[from] === SQL_TYPE_OF[to]) return expression;
  if (from === 'float' && to === 'string') {
    return `CASE WHEN ${expression} = trunc(${expression}) AND abs(${expression}) < 1e15 THEN CAST(CAST(${expression} AS BIGINT) AS VARCHAR) ELSE CAST(${expression} AS VARCHAR) END`;
  }
  return `CAST(${expression} AS ${SQL_TYPE_OF[to]})`;
}
