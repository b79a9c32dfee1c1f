import type {
  AggregateCall,
  AggregateNode,
  Computed,
  Expr,
  FilterNode,
  JoinNode,
  LimitNode,
  MvExpandNode,
  OrderKey,
  PlanColumn,
  PlanNode,
  ProjectNode,
  ScalarType,
  ScanField,
  ScanNode,
  SeriesNode,
  SortNode,
  UnionNode,
  ValuesNode,
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

  /** Rows of expressions; they keep the order they were written in (a hidden row number orders them). */
  values(columns: readonly PlanColumn[], rows: readonly (readonly Expr[])[]): ValuesNode {
    const ordinal = this.column({ name: 'row_number', type: 'long', hidden: true });
    return {
      kind: 'values',
      columns: [...columns, ordinal],
      rows: rows.map((row, index) => [...row, { kind: 'literal', type: 'long', value: BigInt(index) }]),
      order: [{ column: ordinal.id, desc: false, nullsFirst: true }],
    };
  }

  union(columns: readonly PlanColumn[], inputs: UnionNode['inputs'], order: readonly OrderKey[]): UnionNode {
    return { kind: 'union', columns, inputs, order };
  }

  /** The left side's order, then the right's, through the output columns that carry them. */
  join(args: Omit<JoinNode, 'kind' | 'columns' | 'order'>): JoinNode {
    const order: OrderKey[] = [];
    for (const [side, node] of [['left', args.left], ['right', args.right]] as const) {
      for (const key of node.order) {
        const output = args.outputs.find((item) => item.side === side && item.source === key.column);
        if (output) order.push({ ...key, column: output.column.id });
      }
    }
    return { kind: 'join', ...args, columns: args.outputs.map((item) => item.column), order };
  }

  /** The input's order (where its columns are passed through), then the item index. */
  mvExpand(args: Omit<MvExpandNode, 'kind' | 'columns' | 'order'>): MvExpandNode {
    const passed = new Map(args.outputs.filter((item) => !item.expand).map((item) => [item.source, item.column.id]));
    const order: OrderKey[] = [];
    for (const key of args.input.order) {
      const column = passed.get(key.column);
      if (column !== undefined) order.push({ ...key, column });
    }
    order.push({ column: args.itemIndex.id, desc: false, nullsFirst: true });
    const columns = [...args.outputs.map((item) => item.column), args.itemIndex];
    return { kind: 'mvexpand', ...args, columns, order };
  }

  /** One row per group, ordered by the keys. */
  series(args: Omit<SeriesNode, 'kind' | 'columns' | 'order'>): SeriesNode {
    const columns = [...args.keys.map((key) => key.column), ...args.values.map((value) => value.column), args.time];
    const order = args.keys.map((key) => ({ column: key.column.id, desc: false, nullsFirst: true }));
    return { kind: 'series', ...args, columns, order };
  }
}

/** The nodes a node reads. */
export function inputsOf(node: PlanNode): readonly PlanNode[] {
  switch (node.kind) {
    case 'scan':
    case 'values':
      return [];
    case 'union':
      return node.inputs.map((input) => input.node);
    case 'join':
      return [node.left, node.right];
    default:
      return [node.input];
  }
}

/**
 * The plan's spine: every node from the root down while each has one input, ending at the scan
 * (or the first node that reads several tables, or none).
 */
export function* nodesOf(root: PlanNode): Generator<PlanNode> {
  let node: PlanNode | undefined = root;
  while (node) {
    yield node;
    const inputs = inputsOf(node);
    node = inputs.length === 1 ? inputs[0] : undefined;
  }
}

/** Every node of the plan, the root first. */
export function* allNodesOf(root: PlanNode): Generator<PlanNode> {
  yield root;
  for (const input of inputsOf(root)) yield* allNodesOf(input);
}

/** The scan a plan reads when it is one chain over one dataset; undefined for any other plan. */
export function singleScanOf(root: PlanNode): ScanNode | undefined {
  let last: PlanNode | undefined;
  for (const node of nodesOf(root)) last = node;
  return last?.kind === 'scan' ? last : undefined;
}

/** Every scan of the plan. */
export function scansOf(root: PlanNode): ScanNode[] {
  return [...allNodesOf(root)].filter((node): node is ScanNode => node.kind === 'scan');
}
