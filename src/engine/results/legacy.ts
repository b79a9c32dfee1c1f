import { formatDatetime, parseDatetime } from '../apl/literals.js';
import { formatRowPosition, positionOfRow } from '../row-id.js';
import { SYS_TIME_FIELD, TIME_FIELD } from '../schema.js';
import { groupColumns, type QueryStatus, type ShapeContext } from './tabular.js';
import type { JsonValue } from './values.js';

export interface LegacyGroup {
  id: number;
  group: Record<string, JsonValue>;
  aggregations: { op: string; value: JsonValue }[];
}

export interface LegacyResult {
  request: {
    startTime: string;
    endTime: string;
    resolution: string;
    aggregations: { op: string; field: string; alias: string }[];
    groupBy: string[];
    order: { field: string; desc: boolean }[];
    project: { field: string; alias: string }[];
    virtualFields: { alias: string; expr: string }[];
    limit: number;
  };
  status: QueryStatus;
  matches: { _time: string; _sysTime: string; _rowId: string; data: Record<string, JsonValue> }[];
  buckets: {
    series: { startTime: string; endTime: string; groups: LegacyGroup[] }[];
    totals: LegacyGroup[];
  };
  datasetNames: string[];
}

/**
 * The legacy result (the seed's 2.3): rows as `matches`, each with `_time`, `_sysTime`, `_rowId`
 * (the event's id, the same string the structured query reports: row-id.ts) and the other fields
 * in `data`; summaries as `buckets.series` (one interval per time bin) and
 * `buckets.totals`, each group with its key values and `aggregations` as `{op, value}`.
 */
export function buildLegacy(context: ShapeContext): LegacyResult {
  const { query, columns, rows } = context;
  const visible = columns.filter((column) => !column.hidden);
  const value = (id: number | undefined, row: number): JsonValue => (id === undefined ? null : (rows.values.get(id)?.[row] ?? null));
  const request: LegacyResult['request'] = {
    startTime: formatDatetime(context.range.start),
    endTime: formatDatetime(context.range.end),
    resolution: query.shape.timeSeries ? `${Number(query.shape.timeSeries.size / 1_000_000_000n)}s` : '',
    aggregations: visible.filter((column) => column.agg).map((column) => ({ op: column.agg?.name ?? '', field: column.agg?.fields[0] ?? '', alias: column.name })),
    groupBy: groupColumns(context).map((column) => column.name),
    order: query.plan.order.flatMap((key) => {
      const column = visible.find((c) => c.id === key.column);
      return column ? [{ field: column.name, desc: key.desc }] : [];
    }),
    project: [],
    virtualFields: [],
    limit: query.plan.kind === 'limit' ? query.plan.count : 0,
  };
  const result: LegacyResult = { request, status: context.status, matches: [], buckets: { series: [], totals: [] }, datasetNames: query.schemas.map((schema) => schema.dataset) };

  if (query.shape.kind === 'raw') {
    const time = visible.find((column) => column.name === TIME_FIELD)?.id;
    const sysTime = visible.find((column) => column.name === SYS_TIME_FIELD)?.id;
    const data = visible.filter((column) => column.id !== time && column.id !== sysTime);
    const identity = query.shape.identity;
    const rowIdOf = (row: number): string => {
      const position = identity && positionOfRow(value(identity.time, row), value(identity.rowId, row));
      return position ? formatRowPosition(position) : '';
    };
    for (let row = 0; row < rows.rowCount; row++) {
      const entry: Record<string, JsonValue> = {};
      for (const column of data) entry[column.name] = value(column.id, row);
      result.matches.push({
        _time: String(value(time, row) ?? ''),
        _sysTime: String(value(sysTime, row) ?? ''),
        _rowId: rowIdOf(row),
        data: entry,
      });
    }
    return result;
  }

  const series = query.shape.timeSeries;
  const keys = groupColumns(context);
  const aggregates = visible.filter((column) => column.agg);
  const ids = new Map<string, number>();
  const groupOf = (row: number): LegacyGroup => {
    const group: Record<string, JsonValue> = {};
    for (const key of keys) group[key.name] = value(key.id, row);
    const identity = JSON.stringify(keys.map((key) => group[key.name]));
    let id = ids.get(identity);
    if (id === undefined) {
      id = ids.size;
      ids.set(identity, id);
    }
    return { id, group, aggregations: aggregates.map((column) => ({ op: column.name, value: value(column.id, row) })) };
  };
  if (!series) {
    for (let row = 0; row < rows.rowCount; row++) result.buckets.totals.push(groupOf(row));
    return result;
  }
  const flags = rows.values.get(series.totalsFlag) ?? [];
  for (let row = 0; row < rows.rowCount; row++) if (flags[row] === true) result.buckets.totals.push(groupOf(row));
  const intervals = new Map<string, LegacyResult['buckets']['series'][number]>();
  for (let row = 0; row < rows.rowCount; row++) {
    if (flags[row] === true) continue;
    const start = String(value(series.column, row) ?? '');
    let interval = intervals.get(start);
    if (!interval) {
      const startNs = parseDatetime(start);
      interval = { startTime: start, endTime: startNs === undefined ? start : formatDatetime(startNs + series.size), groups: [] };
      intervals.set(start, interval);
      result.buckets.series.push(interval);
    }
    interval.groups.push(groupOf(row));
  }
  return result;
}
