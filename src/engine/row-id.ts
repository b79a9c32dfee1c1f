import { INT64_MAX, INT64_MIN, parseDatetime } from './apl/literals.js';

/**
 * An event's `_rowId`, the same string wherever a result reports the event (the APL legacy
 * result's matches, the structured query's matches) and the cursor a structured query resumes
 * after. Clients treat it as opaque; it is the event's place in the order of matches: its `_time`
 * (nanoseconds since the Unix epoch) and its `_rowid` (the dataset's ingest sequence, unique
 * within the dataset and never reused), written `<_time>-<_rowid>` in decimal, for example
 * `1704067200123000000-42` (a `_time` before 1970 is negative: `-86400000000000-7`).
 * (_time, _rowid) identifies a row and orders all rows totally, whatever else changes.
 */
export interface RowPosition {
  readonly time: bigint;
  readonly rowId: bigint;
}

const POSITION = /^(-?\d{1,19})-(\d{1,19})$/;

export function formatRowPosition(position: RowPosition): string {
  return `${position.time}-${position.rowId}`;
}

/** The position a `_rowId` or cursor names, or undefined when the text is not one. */
export function parseRowPosition(text: string): RowPosition | undefined {
  const match = POSITION.exec(text);
  if (!match) return undefined;
  const time = BigInt(match[1] as string);
  const rowId = BigInt(match[2] as string);
  if (time < INT64_MIN || time > INT64_MAX || rowId > INT64_MAX) return undefined;
  return { time, rowId };
}

/**
 * The position of a result row from its decoded values: `_time` as the RFC 3339 text results
 * carry and the row id as a number. Undefined when either is missing, so a row that has lost its
 * identity (a summary's) reports no `_rowId`.
 */
export function positionOfRow(time: unknown, rowId: unknown): RowPosition | undefined {
  const ns = typeof time === 'string' ? parseDatetime(time) : undefined;
  if (ns === undefined || (typeof rowId !== 'number' && typeof rowId !== 'bigint')) return undefined;
  return { time: ns, rowId: BigInt(rowId) };
}
