import { formatDatetime, parseDatetime } from '../apl/literals.js';
import { bucketCount } from '../functions/rounding.js';
import { formatRowPosition, type RowPosition } from '../row-id.js';
import type { BucketsShape, MatchesShape, ResultAggregation } from '../structured/plan.js';
import type { CapAdvice, DecodedRows, ResultMessage } from './rows.js';
import { floorTo, type FieldMeta, type QueryStatus } from './tabular.js';
import type { JsonValue } from './values.js';

/**
 * The structured query's result (the seed's 2.3): `matches` of a query without aggregations,
 * `buckets` of one with them — a series with one interval per resolution step, each with its
 * groups, and the totals over the whole window — plus `fieldsMeta` and `status`.
 */

export interface MatchEntry {
  _time: string;
  _sysTime: string;
  /** The event's id (row-id.ts), as APL's legacy matches report it; also the cursor that resumes after this row. */
  _rowId: string;
  /** The row's fields that have a value: a missing field is absent, as in the event. */
  data: Record<string, JsonValue>;
}

export interface GroupResult {
  /** The same number for the same group in every interval and in the totals, in totals order from 0. */
  id: number;
  group: Record<string, JsonValue>;
  /** In request order; `op` is the aggregation's alias, or its op when it has none (wire.md). */
  aggregations: { op: string; value: JsonValue }[];
}

export interface SeriesInterval {
  startTime: string;
  endTime: string;
  groups: GroupResult[];
}

export interface StructuredStatus extends QueryStatus {
  isEstimate: boolean;
  /** With `includeCursor`, the cursor of the next page when more matches follow; otherwise "". */
  continuationToken: string;
  messages: ResultMessage[];
  /** With `includeCursor`: the cursors of the oldest and newest matches returned. */
  minCursor?: string;
  maxCursor?: string;
}

export interface StructuredResult {
  matches: MatchEntry[];
  buckets: { series: SeriesInterval[]; totals: GroupResult[] };
  fieldsMeta: FieldMeta[];
  status: StructuredStatus;
}

/** What a shaped page or series contributes besides its rows. */
export interface ShapedBody {
  readonly matches: MatchEntry[];
  readonly buckets: StructuredResult['buckets'];
  readonly numGroups: number;
  /** What `limit` left out: matches after the page, or groups after the first `limit`. */
  readonly cut: 'matches' | 'groups' | undefined;
  /** Cursors, when the request asked for them. */
  readonly cursors?: { readonly next: string; readonly min: string; readonly max: string };
}

const valueAt = (rows: DecodedRows, column: number | undefined, row: number): JsonValue =>
  column === undefined ? null : (rows.values.get(column)?.[row] ?? null);

function nanoseconds(value: JsonValue): bigint {
  const ns = typeof value === 'string' ? parseDatetime(value) : undefined;
  if (ns === undefined) throw new Error(`A result time ${JSON.stringify(value)} is not a datetime.`);
  return ns;
}

const before = (a: RowPosition, b: RowPosition): boolean => a.time < b.time || (a.time === b.time && a.rowId < b.rowId);

/**
 * One page of matches. The plan read one row more than the page holds: when it came, or when a
 * cap cut the rows short, more follow, and the next page starts after the last match shown.
 */
export function shapeMatches(shape: MatchesShape, rows: DecodedRows, includeCursor: boolean): ShapedBody {
  const count = Math.min(rows.rowCount, shape.pageSize);
  const matches: MatchEntry[] = [];
  const positions: RowPosition[] = [];
  for (let row = 0; row < count; row++) {
    const time = valueAt(rows, shape.time, row);
    const position = { time: nanoseconds(time), rowId: BigInt(valueAt(rows, shape.rowId, row) as number) };
    positions.push(position);
    const data: Record<string, JsonValue> = {};
    for (const column of shape.data) {
      const value = valueAt(rows, column.id, row);
      if (value !== null) data[column.name] = value;
    }
    matches.push({ _time: String(time), _sysTime: String(valueAt(rows, shape.sysTime, row) ?? time), _rowId: formatRowPosition(position), data });
  }
  const body = { matches, buckets: { series: [], totals: [] }, numGroups: 0, cut: rows.rowCount > shape.pageSize ? ('matches' as const) : undefined };
  if (!includeCursor) return body;
  const more = rows.rowCount > shape.pageSize || rows.partial;
  const last = positions[positions.length - 1];
  const min = positions.reduce<RowPosition | undefined>((lowest, p) => (lowest === undefined || before(p, lowest) ? p : lowest), undefined);
  const max = positions.reduce<RowPosition | undefined>((highest, p) => (highest === undefined || before(highest, p) ? p : highest), undefined);
  const text = (position: RowPosition | undefined): string => (position ? formatRowPosition(position) : '');
  return { ...body, cursors: { next: more ? text(last) : '', min: text(min), max: text(max) } };
}

/**
 * The series and the totals. The rows come ordered: the totals first (their time key is null),
 * then each interval's groups, each part in the requested order. The first `groupLimit` groups
 * of the totals are kept, and each interval keeps only those.
 */
export function shapeBuckets(shape: BucketsShape, rows: DecodedRows, window: { readonly start: bigint; readonly end: bigint }): ShapedBody {
  const ids = new Map<string, number>();
  const groupOf = (row: number): { identity: string; group: GroupResult } => {
    const group: Record<string, JsonValue> = {};
    for (const key of shape.keys) group[key.name] = valueAt(rows, key.column, row);
    const identity = JSON.stringify(shape.keys.map((key) => group[key.name]));
    const aggregations = shape.aggregations.map((aggregation) => ({ op: aggregation.label, value: aggregationValue(aggregation, rows, row) }));
    return { identity, group: { id: ids.get(identity) ?? -1, group, aggregations } };
  };

  const totals: GroupResult[] = [];
  const seriesRows: number[] = [];
  let cut = false;
  for (let row = 0; row < rows.rowCount; row++) {
    if (valueAt(rows, shape.flag, row) !== true) {
      seriesRows.push(row);
      continue;
    }
    const { identity, group } = groupOf(row);
    if (ids.has(identity)) continue;
    if (ids.size >= shape.groupLimit) {
      cut = true;
      continue;
    }
    ids.set(identity, ids.size);
    totals.push({ ...group, id: ids.size - 1 });
  }

  const first = floorTo(window.start, shape.size);
  const series: SeriesInterval[] = [];
  const count = Number(bucketCount(window.start, window.end, shape.size));
  for (let index = 0; index < count; index++) {
    const start = first + BigInt(index) * shape.size;
    series.push({ startTime: formatDatetime(start), endTime: formatDatetime(start + shape.size), groups: [] });
  }
  for (const row of seriesRows) {
    const { group } = groupOf(row);
    if (group.id === -1) continue;
    const interval = series[Number((nanoseconds(valueAt(rows, shape.time, row)) - first) / shape.size)];
    interval?.groups.push(group);
  }
  return { matches: [], buckets: { series, totals }, numGroups: totals.length, cut: cut ? 'groups' : undefined };
}

/** One value per aggregation: argmin and argmax give the fields of the extreme row as an object. */
function aggregationValue(aggregation: ResultAggregation, rows: DecodedRows, row: number): JsonValue {
  if (!aggregation.fields) return valueAt(rows, aggregation.columns[0], row);
  const value: Record<string, JsonValue> = {};
  aggregation.columns.forEach((column, index) => {
    value[aggregation.fields?.[index] ?? String(index)] = valueAt(rows, column, row);
  });
  return value;
}

/** How a structured result cut by the row or size cap tells the caller to ask for less. */
export const STRUCTURED_CAP_ADVICE: CapAdvice = {
  rows: 'Choose a coarser resolution, fewer groupBy fields, a filter or a shorter window.',
  bytes: 'Set a smaller limit or project fewer fields; with includeCursor, status.continuationToken resumes after the last match returned.',
};

/**
 * The result, with the shared status completed by the members the structured result has. When
 * `defaultLimit` (the limit was not given) left something out, a message says so.
 */
export function buildStructuredResult(body: ShapedBody, status: QueryStatus, fieldsMeta: FieldMeta[], defaultLimit: number | undefined): StructuredResult {
  const messages = [...(status.messages ?? [])];
  if (defaultLimit !== undefined && body.cut) {
    messages.push({
      priority: 'warn',
      count: 1,
      code: 'default_limit_warning',
      msg:
        body.cut === 'matches'
          ? `More than the default limit of ${defaultLimit} matches; only the first ${defaultLimit} are returned. Set limit, or page with includeCursor.`
          : `More than the default limit of ${defaultLimit} groups; only the first ${defaultLimit} in order are returned. Set limit.`,
    });
  }
  return {
    matches: body.matches,
    buckets: body.buckets,
    fieldsMeta,
    status: {
      ...status,
      isEstimate: false,
      continuationToken: body.cursors?.next ?? '',
      messages,
      ...(body.cursors ? { minCursor: body.cursors.min, maxCursor: body.cursors.max } : {}),
    },
  };
}
