/**
 * Plain-JavaScript computations over fixture rows, written independently of the compiler, for
 * the expected side of golden tests. Nothing here imports the engine.
 */

export type Row = Record<string, unknown> & { readonly _index: number; readonly _timeNs: bigint };

/** Events as the ingest rules store them: nested objects flattened to dotted names, `_time` in ns. */
export function ingestedRows(events: readonly Record<string, unknown>[]): Row[] {
  return events.map((event, index) => {
    const row: Record<string, unknown> = {};
    const flatten = (value: Record<string, unknown>, prefix: string): void => {
      for (const [key, inner] of Object.entries(value)) {
        if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) flatten(inner as Record<string, unknown>, `${prefix}${key}.`);
        else row[`${prefix}${key}`] = inner;
      }
    };
    flatten(event, '');
    return { ...row, _index: index, _timeNs: BigInt(Date.parse(String(event._time))) * 1_000_000n };
  });
}

/** Raw query order: `_time` descending, ties by ingest order descending. */
export function newestFirst(rows: readonly Row[]): Row[] {
  return [...rows].sort((a, b) => (a._timeNs === b._timeNs ? b._index - a._index : a._timeNs > b._timeNs ? -1 : 1));
}

/** The nearest-rank percentile: the smallest value with at least p% of the values at or below it. */
export function nearestRank(values: readonly number[], p: number): number | null {
  const sorted = values.filter((value) => value !== null && value !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  // p as an exact fraction of hundreds, so that 95% of 20 is exactly 19.
  const rank = Math.max(1, Math.ceil((Math.round(p * 1000) * sorted.length) / 100_000));
  return sorted[rank - 1] ?? null;
}

/** `buckets` equal-width buckets from the smallest to the largest value, the largest in the last: `[{from, to, count}]`. */
export function equalWidthHistogram(values: readonly number[], buckets: number): { from: number; to: number; count: number }[] {
  if (values.length === 0) return [];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const width = (high - low) / buckets;
  const bucketOf = (value: number): number => (high === low ? 0 : Math.min(Math.floor((value - low) / width), buckets - 1));
  return Array.from({ length: buckets }, (_, i) => ({
    from: low + i * width,
    to: i === buckets - 1 ? high : low + (i + 1) * width,
    count: values.filter((value) => bucketOf(value) === i).length,
  }));
}

export function groupBy<K extends string>(rows: readonly Row[], key: (row: Row) => K): Map<K, Row[]> {
  const groups = new Map<K, Row[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

export function floorTo(value: bigint, size: bigint): bigint {
  return value - (((value % size) + size) % size);
}

/** RFC 3339 of nanoseconds whose sub-millisecond part is zero, trimmed as results print them. */
export function isoOfNs(ns: bigint): string {
  const text = new Date(Number(ns / 1_000_000n)).toISOString();
  return text.replace('.000Z', 'Z').replace(/(\.\d*?)0+Z$/, '$1Z');
}

/** Orders ascending with nulls first, as results order group keys. */
export function compareAsc(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return (a as string | number) < (b as string | number) ? -1 : 1;
}

/** A tabular result table as row objects keyed by field name. */
export function tableRows(table: { fields: readonly { name: string }[]; columns: readonly (readonly unknown[])[] }): Record<string, unknown>[] {
  const length = table.columns[0]?.length ?? 0;
  return Array.from({ length }, (_, row) => Object.fromEntries(table.fields.map((field, index) => [field.name, table.columns[index]?.[row]])));
}

/** Whole-term match (apl.md `has`): a term is a run of letters and digits. */
export function hasTerm(text: unknown, term: string): boolean {
  if (typeof text !== 'string') return false;
  const terms = text.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return terms.includes(term.toLowerCase());
}
