/**
 * The contract between the event store (DuckDB tables and their catalog) and the query compiler.
 *
 * Field names come from users' events and are case-sensitive ("status" and "Status" are two
 * fields), while DuckDB matches identifiers case-insensitively even when quoted. So no field or
 * dataset name is ever used as a SQL identifier: the store gives every dataset a generated table
 * name and every field a generated column name, and the catalog maps names to them. The only
 * identifiers that reach SQL are these generated ones, quoted by the one quoting function of
 * `sql/quote.ts`.
 */

/** The types a field's values are reported with (wire.md); a field seen with several joins them, "integer|float". */
export type FieldType = 'datetime' | 'timespan' | 'string' | 'integer' | 'float' | 'boolean' | 'array' | 'object';

/** Canonical order of joined types, so that "integer|float" never comes back as "float|integer". */
export const FIELD_TYPE_ORDER: readonly FieldType[] = ['datetime', 'timespan', 'string', 'integer', 'float', 'boolean', 'array', 'object'];

/**
 * How a field's column is stored:
 * - `timestamp`: BIGINT nanoseconds since the Unix epoch (`_time`, `_sysTime`);
 * - `boolean`: BOOLEAN; `integer`: BIGINT; `float`: DOUBLE; `string`: VARCHAR;
 * - `json`: VARCHAR holding JSON text (arrays and objects that are kept whole);
 * - `timespan`: BIGINT nanoseconds, a duration. JSON has no durations, so only ingest paths that
 *   know a value is one (OpenTelemetry's span `duration`, as a `TimespanValue`) make such fields.
 *
 * A column only ever widens (see `widenStorage`), so no event is rejected for its types.
 */
export type StorageType = 'timestamp' | 'boolean' | 'integer' | 'float' | 'string' | 'json' | 'timespan';

export interface FieldSchema {
  /** The field's name as ingested and as queries write it: `geo.city`, `_time`. */
  readonly name: string;
  /** The generated physical column: `_time`, `_systime`, `_rowid`, `f1`, `f2`, … */
  readonly column: string;
  readonly storage: StorageType;
  /** Every type this field's values have had, in FIELD_TYPE_ORDER. */
  readonly types: readonly FieldType[];
}

/** A field a dataset computes rather than stores: an APL expression over its stored fields. */
export interface VirtualFieldSchema {
  readonly name: string;
  readonly expression: string;
}

export interface DatasetSchema {
  readonly dataset: string;
  /** The generated physical table: `ds_1`, `ds_2`, … */
  readonly table: string;
  /** `_time` and `_sysTime` first, then user fields; `_rowId` is not a field (see ROW_ID_COLUMN). */
  readonly fields: readonly FieldSchema[];
  /**
   * The dataset's virtual fields (the service keeps them; the store knows none): every query of
   * the dataset sees them as columns of its scan (check/virtual-fields.ts).
   */
  readonly virtualFields?: readonly VirtualFieldSchema[];
}

/** Present in every dataset table: a per-dataset sequence in ingest order, reported as a string `_rowId`. */
export const ROW_ID_COLUMN = '_rowid';
export const TIME_FIELD = '_time';
export const SYS_TIME_FIELD = '_sysTime';

/**
 * The storage type a column must have to hold both what it held and a new value's storage type.
 * integer + float widen to float; any other mix becomes string (numbers as their shortest
 * decimal text, booleans as `true`/`false`, JSON as its text, timespans as APL writes them,
 * `00:00:01.5`). A timespan never widens to a number: its nanoseconds would read as a count of
 * something else. Widening is total and monotonic: a column never narrows.
 */
export function widenStorage(current: StorageType, incoming: StorageType): StorageType {
  if (current === incoming) return current;
  const pair = new Set([current, incoming]);
  if (pair.has('integer') && pair.has('float')) return 'float';
  return 'string';
}

/** Joins reported types in canonical order: ["float", "integer"] → "integer|float". */
export function joinFieldTypes(types: Iterable<FieldType>): string {
  const seen = new Set(types);
  return FIELD_TYPE_ORDER.filter((type) => seen.has(type)).join('|');
}
