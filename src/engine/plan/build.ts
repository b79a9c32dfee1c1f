import type {
  AggregateCall,
  AggregateNode,
  Computed,
  Expr,
  FilterNode,
  LimitNode,
  OrderKey,
  PlanColumn,
  PlanNode,
  ProjectNode,
  ScalarType,
  ScanField,
  ScanNode,
  SortNode,
} from './types.js';
import { ROW_ID_COLUMN, TIME_FIELD, joinFieldTypes, type DatasetSchema, type StorageType } from '../schema.js';

/** The wire type of a computed value of each scalar type. */
export const REPORTED_TYPES: Readonly<Record<ScalarType, string>> = {
  bool: 'boolean',
  long: 'integer',
  real: 'float',
  string: 'string',
  datetime: 'datetime',
  timespan: 'timespan',
  dynamic: 'object',
};

/** The scalar type of each storage type: how a stored field reads in expressions. */
export const STORAGE_TYPES: Readonly<Record<StorageType, ScalarType>> = {
  timestamp: 'datetime',
  boolean: 'bool',
  integer: 'long',
  float: 'real',
  string: 'string',
  json: 'dynamic',
  timespan: 'timespan',
};

export interface ColumnSpec {
  readonly name: string;
  readonly type: ScalarType;
  readonly reportedType?: string;
  readonly hidden?: boolean;
  readonly agg?: PlanColumn['agg'];
}

/**
 * Builds plan nodes and keeps their invariants: unique column ids, output columns and row order
 * derived from the input, order columns carried (hidden) through projections that drop them.
 */
export class PlanBuilder {
  private nextId = 1;

  column(spec: ColumnSpec): PlanColumn {
    return {
      id: this.nextId++,
      name: spec.name,
      type: spec.type,
      reportedType: spec.reportedType ?? REPORTED_TYPES[spec.type],
      hidden: spec.hidden ?? false,
      ...(spec.agg ? { agg: spec.agg } : {}),
    };
  }

  /**
   * Where every query starts, whatever language it was written in: the dataset's fields sorted
   * by name (the raw result's column order) and the hidden row id, in the window [start, end).
   */
  datasetScan(schema: DatasetSchema, window: { readonly start: bigint; readonly end: bigint }): ScanNode {
    const fields: ScanField[] = [...schema.fields]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((field) => {
        const type = STORAGE_TYPES[field.storage];
        const reported = joinFieldTypes(field.types);
        return { column: this.column({ name: field.name, type, reportedType: reported || REPORTED_TYPES[type] }), physical: field.column };
      });
    const time = fields.find((field) => field.column.name === TIME_FIELD);
    if (!time) throw new Error(`Dataset ${schema.dataset} has no ${TIME_FIELD} field.`);
    return this.scan({
      dataset: schema.dataset,
      table: schema.table,
      fields,
      time: { column: time.column.id, physical: time.physical, start: window.start, end: window.end },
      rowId: { column: this.column({ name: '_rowId', type: 'long', hidden: true }), physical: ROW_ID_COLUMN },
    });
  }

  /** The rows of a dataset table in the time window, newest first (ties: latest ingested first). */
  scan(args: {
    dataset: string;
    table: string;
    fields: readonly ScanField[];
    time: ScanNode['time'];
    rowId: { column: PlanColumn; physical: string };
  }): ScanNode {
    const fields = [...args.fields, { column: args.rowId.column, physical: args.rowId.physical }];
    return {
      kind: 'scan',
      dataset: args.dataset,
      table: args.table,
      fields,
      time: args.time,
      rowId: args.rowId.column.id,
      columns: fields.map((field) => field.column),
      order: [
        { column: args.time.column, desc: true, nullsFirst: false },
        { column: args.rowId.column.id, desc: true, nullsFirst: false },
      ],
    };
  }

  filter(input: PlanNode, predicate: Expr): FilterNode {
    return { kind: 'filter', input, predicate, columns: input.columns, order: input.order };
  }

  /**
   * Exactly `computed`, in that order, plus hidden pass-throughs of the input's order columns
   * that `computed` leaves out, so that the rows keep their order.
   */
  project(input: PlanNode, computed: readonly Computed[]): ProjectNode {
    const kept = new Set(computed.map((item) => item.column.id));
    const carried: Computed[] = [];
    for (const key of input.order) {
      if (kept.has(key.column)) continue;
      const source = input.columns.find((column) => column.id === key.column);
      if (!source) continue;
      kept.add(source.id);
      carried.push({ column: { ...source, hidden: true }, expr: { kind: 'column', column: source.id, type: source.type } });
    }
    const all = [...computed, ...carried];
    return { kind: 'project', input, computed: all, columns: all.map((item) => item.column), order: input.order };
  }

  /**
   * Groups by `keys` (input column ids). The rows come ordered by the time key ascending when
   * there is one, then by the first aggregate descending, then by the other keys ascending.
   */
  aggregate(args: {
    input: PlanNode;
    keys: readonly { input: number; column: PlanColumn }[];
    aggregates: readonly { column: PlanColumn; call: AggregateCall }[];
    timeKey?: number;
    totals?: AggregateNode['totals'];
    inputRowId?: number;
  }): AggregateNode {
    const order: OrderKey[] = [];
    const timeKey = args.keys.find((key) => key.input === args.timeKey);
    if (timeKey) order.push({ column: timeKey.column.id, desc: false, nullsFirst: true });
    const first = args.aggregates.find((item) => !item.column.hidden);
    if (first) order.push({ column: first.column.id, desc: true, nullsFirst: false });
    for (const key of args.keys) {
      if (key !== timeKey) order.push({ column: key.column.id, desc: false, nullsFirst: true });
    }
    const columns = [...args.keys.map((key) => key.column), ...args.aggregates.map((item) => item.column)];
    if (args.totals) columns.push(args.totals.flag);
    return {
      kind: 'aggregate',
      input: args.input,
      keys: args.keys,
      aggregates: args.aggregates,
      ...(args.totals ? { totals: args.totals } : {}),
      ...(args.inputRowId !== undefined ? { inputRowId: args.inputRowId } : {}),
      columns,
      order,
    };
  }

  /** Orders by `keys`, then by the input's order: ties keep their order, as a stable sort would. */
  sort(input: PlanNode, keys: readonly OrderKey[]): SortNode {
    const seen = new Set(keys.map((key) => key.column));
    const order = [...keys, ...input.order.filter((key) => !seen.has(key.column))];
    return { kind: 'sort', input, columns: input.columns, order };
  }

  limit(input: PlanNode, count: number, implicit = false): LimitNode {
    return { kind: 'limit', input, count, implicit, columns: input.columns, order: input.order };
  }
}

/** Every node from the root down to the scan. */
export function* nodesOf(root: PlanNode): Generator<PlanNode> {
  let node: PlanNode | undefined = root;
  while (node) {
    yield node;
    node = node.kind === 'scan' ? undefined : node.input;
  }
}

export function scanOf(root: PlanNode): ScanNode {
  for (const node of nodesOf(root)) if (node.kind === 'scan') return node;
  throw new Error('A plan always ends in a scan.');
}
