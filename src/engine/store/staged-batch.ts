import type { FieldType, StorageType } from '../schema.js';

/**
 * A batch of decoded events waiting in a file, ready for the store to load in one statement.
 *
 * The file is NDJSON, one line per event in ingest order: `{"r": <index in batch>, "t": <epoch
 * ms>, "n": <nanoseconds within that ms>, "<part key>": <value>, …}`. Keys are generated (`c0`,
 * `c1`, …), never field names, so DuckDB's case-insensitive matching never meets user text.
 * A field whose values in the batch have several storage types has one part per type, and a
 * line carries at most one of them.
 */
export interface StagedPart {
  /** The key of this part's values in the file. */
  readonly key: string;
  /** The flattened field name, `geo.city`. */
  readonly field: string;
  readonly storage: StorageType;
  /** The reported types of the values in this part (`array`, `object` share the json storage). */
  readonly types: readonly FieldType[];
}

export interface StagedBatch {
  /** Absolute path of the NDJSON file, inside the store's staging directory. */
  readonly file: string;
  readonly count: number;
  /** An upper bound of the longest line's length in bytes. */
  readonly maxLineBytes: number;
  readonly parts: readonly StagedPart[];
  /** `_sysTime` of every event of the batch, nanoseconds since the epoch. */
  readonly sysTimeNs: bigint;
  /**
   * Set when the file holds the request's own NDJSON lines (see ingest/raw-ndjson.ts) rather
   * than the layout above: read_json reads it with `columns` (`'<key>': '<type>'` entries), and
   * `select` (`<expression> AS <alias>` entries) gives the layout above, `r`, `t`, `n` and each
   * part's key, from those columns.
   */
  readonly raw?: { readonly columns: readonly string[]; readonly select: readonly string[] };
}

/**
 * The column read_json adds with each row's file path when a load reads many staged files at
 * once; no staged key may take this name (keys match case-insensitively).
 */
export const STAGED_FILE_COLUMN = '__tm_file';

/** The keys of the file that are not parts. */
export const STAGED_KEYS = { index: 'r', timeMs: 't', timeSubMsNs: 'n' } as const;
