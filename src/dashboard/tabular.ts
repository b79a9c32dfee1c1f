/**
 * Turns an APL result in the tabular format (column-major tables) into what the page draws:
 * a time series (x = _time, one line per aggregate and group) or, for anything else, a table.
 * Pure functions, no DOM: the shape is the wire's, documented in docs/apl.md.
 */

import { parseRfc3339 } from './time-range.js';

export interface TabularField {
  name: string;
  type: string;
  agg?: { name: string };
}

export interface TabularTable {
  name: string;
  fields: TabularField[];
  groups?: { name: string }[];
  range?: { field: string; start: string; end: string };
  buckets?: { field: string; size: number };
  columns: unknown[][];
}

export interface TabularResult {
  format?: string;
  tables: TabularTable[];
  datasetNames?: string[];
}

export interface Series {
  label: string;
  values: (number | null)[];
}

export interface TimeSeriesModel {
  kind: 'time-series';
  /** Seconds since the epoch, ascending: uPlot's time scale. */
  times: number[];
  series: Series[];
  /** Bucket width in seconds, when the query binned _time. */
  bucketSeconds: number | undefined;
  /** Every value is an integer (counts): the value axis then has whole steps. */
  integers: boolean;
}

export interface TableModel {
  kind: 'table';
  headers: string[];
  rows: string[][];
  /** Rows in the result, of which `rows` holds the first few. */
  totalRows: number;
}

export type ResultModel = TimeSeriesModel | TableModel;

const TIME_FIELD = '_time';
const NUMERIC_TYPES = new Set(['integer', 'float', 'integer|float', 'float|integer']);
/** Aggregates for which an empty bucket means zero (no events), not "unknown". */
const ZERO_WHEN_EMPTY = new Set(['count', 'countif', 'distinct', 'distinctif', 'sum', 'sumif']);
/** Beyond this many buckets, empty ones are left as gaps rather than filled. */
const MAX_FILLED_BUCKETS = 10_000;
export const TABLE_PREVIEW_ROWS = 100;

/** The table a chart shows: the first one that is not the `_totals` companion. */
export function mainTable(result: TabularResult): TabularTable | undefined {
  return result.tables.find((table) => table.name !== '_totals') ?? result.tables[0];
}

export function toResultModel(result: TabularResult): ResultModel {
  const table = mainTable(result);
  if (!table) return { kind: 'table', headers: [], rows: [], totalRows: 0 };
  return toTimeSeries(table) ?? toTable(table);
}

/** A time series needs a `_time` column and at least one numeric value column. */
export function toTimeSeries(table: TabularTable): TimeSeriesModel | undefined {
  const timeIndex = table.fields.findIndex((field) => field.name === TIME_FIELD);
  if (timeIndex === -1) return undefined;
  const groupNames = new Set((table.groups ?? []).map((group) => group.name));
  const valueIndexes: number[] = [];
  const groupIndexes: number[] = [];
  table.fields.forEach((field, index) => {
    if (index === timeIndex) return;
    if (groupNames.has(field.name)) groupIndexes.push(index);
    else if (NUMERIC_TYPES.has(field.type)) valueIndexes.push(index);
  });
  if (valueIndexes.length === 0) return undefined;

  const timeColumn = table.columns[timeIndex] ?? [];
  const rowCount = timeColumn.length;
  const bucketSeconds = table.buckets && table.buckets.size > 0 ? table.buckets.size / 1e9 : undefined;

  const timeSet = new Set<number>();
  const rowTimes: (number | undefined)[] = [];
  for (let row = 0; row < rowCount; row++) {
    const seconds = toEpochSeconds(timeColumn[row]);
    rowTimes.push(seconds);
    if (seconds !== undefined) timeSet.add(seconds);
  }
  const fillZeros =
    bucketSeconds !== undefined && valueIndexes.every((index) => ZERO_WHEN_EMPTY.has(table.fields[index]?.agg?.name ?? ''));
  if (fillZeros && bucketSeconds !== undefined && table.range) addEmptyBuckets(timeSet, table.range, bucketSeconds);
  const times = [...timeSet].sort((a, b) => a - b);
  const position = new Map(times.map((time, index) => [time, index]));

  const seriesByKey = new Map<string, Series>();
  const multipleValues = valueIndexes.length > 1;
  for (let row = 0; row < rowCount; row++) {
    const time = rowTimes[row];
    if (time === undefined) continue;
    const groupLabel = groupIndexes.map((index) => `${table.fields[index]?.name}=${displayValue(table.columns[index]?.[row])}`).join(', ');
    for (const valueIndex of valueIndexes) {
      const fieldName = table.fields[valueIndex]?.name ?? '';
      const label = [groupLabel, multipleValues || groupLabel === '' ? fieldName : ''].filter((part) => part !== '').join(' · ');
      let series = seriesByKey.get(label);
      if (!series) {
        series = { label, values: new Array<number | null>(times.length).fill(fillZeros ? 0 : null) };
        seriesByKey.set(label, series);
      }
      const value = table.columns[valueIndex]?.[row];
      series.values[position.get(time) ?? 0] = typeof value === 'number' && Number.isFinite(value) ? value : null;
    }
  }
  const integers = valueIndexes.every((index) => table.fields[index]?.type === 'integer');
  return { kind: 'time-series', times, series: [...seriesByKey.values()], bucketSeconds, integers };
}

function addEmptyBuckets(times: Set<number>, range: { start: string; end: string }, bucketSeconds: number): void {
  const start = toEpochSeconds(range.start);
  const end = toEpochSeconds(range.end);
  if (start === undefined || end === undefined || (end - start) / bucketSeconds > MAX_FILLED_BUCKETS) return;
  const first = Math.floor(start / bucketSeconds) * bucketSeconds;
  for (let time = first; time < end; time += bucketSeconds) times.add(time);
}

export function toTable(table: TabularTable): TableModel {
  const totalRows = table.columns[0]?.length ?? 0;
  const rows: string[][] = [];
  for (let row = 0; row < Math.min(totalRows, TABLE_PREVIEW_ROWS); row++) {
    rows.push(table.fields.map((_field, index) => displayValue(table.columns[index]?.[row])));
  }
  return { kind: 'table', headers: table.fields.map((field) => field.name), rows, totalRows };
}

/** An RFC 3339 time with up to nanoseconds to epoch seconds (millisecond precision). */
export function toEpochSeconds(value: unknown): number | undefined {
  const ms = typeof value === 'string' ? parseRfc3339(value) : undefined;
  return ms === undefined ? undefined : ms / 1000;
}

export function displayValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
