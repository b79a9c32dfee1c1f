import { formatDatetime } from '../apl/literals.js';
import type { CheckedQuery } from '../check/query.js';
import { nodesOf } from '../plan/build.js';
import type { AggregationInfo, PlanColumn } from '../plan/types.js';
import { TIME_FIELD, joinFieldTypes, type DatasetSchema } from '../schema.js';
import type { DecodedRows, ResultMessage } from './rows.js';
import type { JsonValue } from './values.js';

/** `status` of a query result (wire.md); counters count real rows. */
export interface QueryStatus {
  elapsedTime: number;
  rowsExamined: number;
  rowsMatched: number;
  numGroups: number;
  blocksExamined: number;
  isPartial: boolean;
  cacheStatus: number;
  minBlockTime: string;
  maxBlockTime: string;
  messages: ResultMessage[];
}

export interface TabularField {
  name: string;
  type: string;
  agg?: AggregationInfo;
}

export interface TabularTable {
  name: string;
  sources: { name: string }[];
  fields: TabularField[];
  order: { field: string; desc: boolean }[];
  groups: { name: string }[];
  range?: { field: string; start: string; end: string };
  buckets?: { field: string; size: number };
  columns: JsonValue[][];
}

export interface FieldMeta {
  name: string;
  type: string;
  unit: string;
  hidden: boolean;
  description: string;
}

export interface TabularResult {
  format: 'tabular';
  status: QueryStatus;
  tables: TabularTable[];
  datasetNames: string[];
  fieldsMetaMap: Record<string, FieldMeta[]>;
}

/** What the shapers need besides the rows. */
export interface ShapeContext {
  readonly query: CheckedQuery;
  readonly columns: readonly PlanColumn[];
  readonly rows: DecodedRows;
  readonly status: QueryStatus;
  /** The datasets the query read, in the order it names them. */
  readonly schemas: readonly DatasetSchema[];
  readonly range: { readonly start: bigint; readonly end: bigint };
}

/** Sorted field lists by schema: a schema is replaced, never changed, when its dataset's fields change. */
const sortedFields = new WeakMap<DatasetSchema, readonly FieldMeta[]>();

/**
 * The dataset's fields as `fieldsMetaMap` and the legacy `fieldsMeta` list them. Every result
 * carries them, so the sorted list is worked out once per schema; each result gets its own copy.
 */
export function fieldsMeta(schema: DatasetSchema): FieldMeta[] {
  let sorted = sortedFields.get(schema);
  if (!sorted) {
    sorted = [...schema.fields]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((field) => ({ name: field.name, type: joinFieldTypes(field.types), unit: '', hidden: false, description: '' }));
    sortedFields.set(schema, sorted);
  }
  return sorted.map((meta) => ({ ...meta }));
}

/** The group-by columns of the last summarize that still reach the result (the time bin aside). */
export function groupColumns(context: ShapeContext): PlanColumn[] {
  const aggregate = [...nodesOf(context.query.plan)].find((node) => node.kind === 'aggregate');
  if (!aggregate || aggregate.kind !== 'aggregate') return [];
  const keys = new Set(aggregate.keys.map((key) => key.column.id));
  const time = context.query.shape.timeSeries?.column;
  return context.columns.filter((column) => !column.hidden && keys.has(column.id) && column.id !== time);
}

/** The largest multiple of `size` not above `value` (bins are aligned to the epoch). */
export const floorTo = (value: bigint, size: bigint): bigint => value - (((value % size) + size) % size);

/**
 * The tabular result (wire.md): table "0", and for a summarize by a time bin that ends the query,
 * table "_totals" with the same aggregates over the whole range.
 */
export function buildTabular(context: ShapeContext): TabularResult {
  const { query, columns, rows, schemas } = context;
  const sources = schemas.map((schema) => ({ name: schema.dataset }));
  const series = query.shape.timeSeries;
  const visible = columns.filter((column) => !column.hidden);
  const groups = groupColumns(context).map((column) => ({ name: column.name }));
  const orderOf = (present: readonly PlanColumn[]): TabularTable['order'] =>
    query.plan.order.flatMap((key) => {
      const column = present.find((c) => c.id === key.column);
      return column ? [{ field: column.name, desc: key.desc }] : [];
    });
  const fields = (present: readonly PlanColumn[]): TabularField[] =>
    present.map((column) => ({ name: column.name, type: column.reportedType, ...(column.agg ? { agg: column.agg } : {}) }));
  const columnValues = (present: readonly PlanColumn[], keep: (row: number) => boolean): JsonValue[][] => {
    const selected: number[] = [];
    for (let row = 0; row < rows.rowCount; row++) if (keep(row)) selected.push(row);
    return present.map((column) => {
      const values = rows.values.get(column.id) ?? [];
      return selected.map((row) => values[row] ?? null);
    });
  };

  const table = (name: string, present: readonly PlanColumn[], keep: (row: number) => boolean, extra: Partial<TabularTable>): TabularTable => ({
    name,
    sources: sources.map((source) => ({ ...source })),
    fields: fields(present),
    order: orderOf(present),
    groups,
    ...extra,
    columns: columnValues(present, keep),
  });

  const range = { field: TIME_FIELD, start: formatDatetime(context.range.start), end: formatDatetime(context.range.end) };
  const tables: TabularTable[] = [];
  if (series) {
    const size = series.size;
    const widenedEnd = floorTo(context.range.end - 1n, size) + size;
    const widened = { field: TIME_FIELD, start: formatDatetime(floorTo(context.range.start, size)), end: formatDatetime(widenedEnd > context.range.end ? widenedEnd : context.range.end) };
    const flags = rows.values.get(series.totalsFlag) ?? [];
    const timeColumn = columns.find((column) => column.id === series.column);
    tables.push(
      table('0', visible, (row) => flags[row] !== true, { range: widened, buckets: { field: timeColumn?.name ?? TIME_FIELD, size: Number(size) } }),
      table('_totals', visible.filter((column) => column.id !== series.column), (row) => flags[row] === true, { range: widened }),
    );
  } else {
    tables.push(table('0', visible, () => true, { range }));
  }
  return {
    format: 'tabular',
    status: context.status,
    tables,
    datasetNames: schemas.map((schema) => schema.dataset),
    fieldsMetaMap: Object.fromEntries(schemas.map((schema) => [schema.dataset, fieldsMeta(schema)])),
  };
}
