import { AplError } from '../apl/errors.js';
import { NS_PER } from '../apl/literals.js';
import { parseExpression } from '../apl/parser.js';
import { call, literal, type BindContext, type Scope } from '../check/context.js';
import { bindExpression, findColumn } from '../check/expressions.js';
import { withVirtualFields } from '../check/virtual-fields.js';
import { Warnings } from '../check/warnings.js';
import { binAutoSize, bucketCount } from '../functions/rounding.js';
import { PlanBuilder, REPORTED_TYPES } from '../plan/build.js';
import type { AggregateItem, Computed, Expr, OrderKey, PlanColumn, PlanNode, ScanNode } from '../plan/types.js';
import type { QueryWindow } from '../query/time-range.js';
import type { ResultMessage } from '../results/rows.js';
import { SYS_TIME_FIELD, TIME_FIELD, type DatasetSchema } from '../schema.js';
import { bindAggregation } from './aggregations.js';
import { bindField } from './bind.js';
import type { RowPosition } from '../row-id.js';
import { StructuredQueryError } from './errors.js';
import { bindFilter } from './filter.js';
import { STRUCTURED_LIMITS, type StructuredLimits, type StructuredQuery } from './request.js';

/**
 * A structured query as the logical plan APL compiles to (plan/types.ts): the same scan, the
 * filters and virtual fields bound by the APL checker, and then either
 *
 *   matches   sort by _time (or `order`) → limit + 1 → the projected fields, with _time,
 *             _sysTime and the row id carried for every match; or
 *   buckets   group by bin(_time, resolution) and `groupBy`, with the same aggregates over the
 *             whole window in the same pass (the totals), then sort by `order`.
 *
 * `shape` says which plan columns the result is made of.
 */

export interface MatchesShape {
  readonly kind: 'matches';
  /** Matches per page; the plan reads one more, to tell whether more follow. */
  readonly pageSize: number;
  readonly time: number;
  readonly sysTime: number | undefined;
  readonly rowId: number;
  /** What goes in `data`, named as the result names it. */
  readonly data: readonly PlanColumn[];
  /** The order is _time then _rowid in this direction, so a cursor can resume it; undefined for another order. */
  readonly timeOrder: 'asc' | 'desc' | undefined;
}

export interface ResultAggregation {
  readonly label: string;
  /** One column, or for argmin and argmax one per returned field. */
  readonly columns: readonly number[];
  /** argmin and argmax: the field of each column, the keys of the value object. */
  readonly fields: readonly string[] | undefined;
}

export interface BucketsShape {
  readonly kind: 'buckets';
  /** The interval start of a series row; null in the totals rows. */
  readonly time: number;
  readonly size: bigint;
  /** True in the rows of the totals (the aggregates without the time key). */
  readonly flag: number;
  readonly keys: readonly { readonly name: string; readonly column: number }[];
  readonly aggregations: readonly ResultAggregation[];
  /** Groups of the totals kept, in order; the series keep only theirs. */
  readonly groupLimit: number;
}

export interface StructuredPlan {
  readonly plan: PlanNode;
  readonly shape: MatchesShape | BucketsShape;
  /** Warnings of the APL checker that bound its filters, fields and aggregations, for `status.messages`. */
  readonly messages: readonly ResultMessage[];
}

const ref = (column: PlanColumn): Expr => ({ kind: 'column', column: column.id, type: column.type });
const passThrough = (column: PlanColumn): Computed => ({ column, expr: ref(column) });

export function planStructuredQuery(query: StructuredQuery, schema: DatasetSchema, window: QueryWindow, limits: StructuredLimits = STRUCTURED_LIMITS): StructuredPlan {
  const planner = new StructuredPlanner(query, window, limits);
  return { ...planner.plan(schema), messages: planner.warnings.list() };
}

class StructuredPlanner {
  readonly warnings = new Warnings();
  private readonly builder = new PlanBuilder();
  private readonly context: BindContext;

  constructor(
    private readonly query: StructuredQuery,
    private readonly window: QueryWindow,
    private readonly limits: StructuredLimits,
  ) {
    this.context = { builder: this.builder, now: window.now, range: { start: window.start, end: window.end }, warnings: this.warnings };
  }

  plan(schema: DatasetSchema): Omit<StructuredPlan, 'messages'> {
    const { query } = this;
    const scan = this.builder.datasetScan(schema, this.window);
    const matches = query.aggregations.length === 0;
    const timeOrder = matches ? this.timeOrder() : undefined;
    let node: PlanNode = scan;
    if (query.cursor) {
      if (!matches) throw new StructuredQueryError('cursor', 'Invalid cursor: a query with aggregations returns all its groups at once and has no pages. Remove cursor, or the aggregations.');
      if (!timeOrder) throw notTimeOrdered('cursor');
      node = this.builder.filter(node, after(scan, query.cursor, timeOrder));
    }
    if (matches && query.includeCursor && !timeOrder) throw notTimeOrdered('includeCursor');
    node = withVirtualFields(node, schema, this.context);
    node = this.virtualFields(node);
    node = this.projectionAliases(node);
    if (query.filter) {
      const predicate = bindFilter(query.filter, this.scope(node), this.context);
      if (predicate) node = this.builder.filter(node, predicate);
    }
    return matches ? this.matches(node, scan, timeOrder) : this.buckets(node, scan);
  }

  private scope(node: PlanNode): Scope {
    return { columns: node.columns, lets: new Map() };
  }

  /** `_time` then `_rowid`, descending unless `order` is exactly `_time` ascending. */
  private timeOrder(): 'asc' | 'desc' | undefined {
    const { order } = this.query;
    if (order.length === 0) return 'desc';
    if (order.length === 1 && order[0]?.field === TIME_FIELD) return order[0].desc ? 'desc' : 'asc';
    return undefined;
  }

  /** Adds `name = expr` as a column; a column of that name is replaced (APL's extend). */
  private extend(node: PlanNode, name: string, expr: Expr): PlanNode {
    const source = expr.kind === 'column' ? node.columns.find((column) => column.id === expr.column) : undefined;
    const column = this.builder.column({ name, type: expr.type, reportedType: source?.reportedType ?? REPORTED_TYPES[expr.type] });
    const kept = node.columns.filter((existing) => existing.hidden || existing.name !== name).map(passThrough);
    return this.builder.project(node, [...kept, { column, expr }]);
  }

  /** Each virtual field is an APL expression over the fields and the virtual fields before it. */
  private virtualFields(input: PlanNode): PlanNode {
    let node = input;
    for (const field of this.query.virtualFields) {
      const path = `${field.path}.expr`;
      let expr: Expr;
      try {
        expr = bindExpression(parseExpression(field.expr), this.scope(node), this.context);
      } catch (error) {
        if (!(error instanceof AplError)) throw error;
        throw StructuredQueryError.inExpression(path, error);
      }
      node = this.extend(node, field.alias, expr);
    }
    return node;
  }

  /** A projection's alias is a name filters, groups and orders may use too. */
  private projectionAliases(input: PlanNode): PlanNode {
    let node = input;
    for (const projection of this.query.project) {
      if (projection.alias === undefined || projection.alias === projection.field) continue;
      node = this.extend(node, projection.alias, bindField(projection.field, `${projection.path}.field`, this.scope(node), this.context));
    }
    return node;
  }

  // ── Matches ──────────────────────────────────────────────────────────────────────────────

  private matches(input: PlanNode, scan: ScanNode, timeOrder: 'asc' | 'desc' | undefined): Omit<StructuredPlan, 'messages'> {
    const { query, builder } = this;
    if (query.groupBy.length > 0) {
      throw new StructuredQueryError('groupBy', 'Invalid groupBy: grouping needs at least one aggregation, such as {"op": "count"}.');
    }
    const time = scan.time.column;
    const keys: OrderKey[] = timeOrder
      ? [
          { column: time, desc: timeOrder === 'desc', nullsFirst: false },
          { column: scan.rowId, desc: timeOrder === 'desc', nullsFirst: false },
        ]
      : query.order.map((order) => {
          const column = this.column(input, order.field, `${order.path}.field`);
          if (column.type === 'dynamic') throw unorderable(`${order.path}.field`, order.field);
          return { column: column.id, desc: order.desc, nullsFirst: !order.desc };
        });
    const limited = builder.limit(builder.sort(input, keys), query.limit + 1);

    const data = this.dataColumns(limited);
    const sysTime = scan.columns.find((column) => column.name === SYS_TIME_FIELD)?.id;
    const carried = [time, sysTime, scan.rowId].flatMap((id) => {
      const column = limited.columns.find((c) => c.id === id);
      return column && !data.some((d) => d.id === id) ? [passThrough({ ...column, hidden: true })] : [];
    });
    const plan = builder.project(limited, [...data.map(passThrough), ...carried]);
    return { plan, shape: { kind: 'matches', pageSize: query.limit, time, sysTime, rowId: scan.rowId, data, timeOrder } };
  }

  /** The projected fields, or every field when none is projected; `_time` and `_sysTime` are outside `data`. */
  private dataColumns(node: PlanNode): PlanColumn[] {
    const outside = (column: PlanColumn): boolean => column.name === TIME_FIELD || column.name === SYS_TIME_FIELD;
    if (this.query.project.length === 0) return node.columns.filter((column) => !column.hidden && !outside(column));
    const names = new Set<string>();
    const columns: PlanColumn[] = [];
    for (const projection of this.query.project) {
      const name = projection.alias ?? projection.field;
      if (names.has(name)) throw new StructuredQueryError(projection.path, `Invalid ${projection.path}: the result already has a field named ${JSON.stringify(name)}. Give one of them another alias.`);
      names.add(name);
      const column = this.column(node, name, `${projection.path}.field`);
      if (!outside(column) && !columns.some((c) => c.id === column.id)) columns.push(column);
    }
    return columns;
  }

  private column(node: PlanNode, name: string, path: string): PlanColumn {
    const found = findColumn(this.scope(node), name);
    if (found) return found;
    bindField(name, path, this.scope(node), this.context);
    throw new StructuredQueryError(path, `Invalid ${path} ${JSON.stringify(name)}: it names a key of a field, not a field.`);
  }

  // ── Buckets ──────────────────────────────────────────────────────────────────────────────

  private buckets(input: PlanNode, scan: ScanNode): Omit<StructuredPlan, 'messages'> {
    const { query, builder, window } = this;
    const size = query.resolution === 'auto' ? binAutoSize(window.start, window.end) : query.resolution;
    const intervals = bucketCount(window.start, window.end, size);
    if (intervals > BigInt(this.limits.maxIntervals)) {
      const smallest = ((window.end - window.start + BigInt(this.limits.maxIntervals) - 1n) / BigInt(this.limits.maxIntervals) + NS_PER.second - 1n) / NS_PER.second;
      throw new StructuredQueryError(
        'resolution',
        `Invalid resolution: ${describeSpan(size)} makes ${intervals} intervals of the time range, more than the limit of ${this.limits.maxIntervals}. Use "auto" or a resolution of at least ${smallest}s.`,
      );
    }

    // Group keys: the time bin first, then groupBy; a dynamic field is grouped by its JSON text.
    const timeColumn = input.columns.find((column) => column.id === scan.time.column) as PlanColumn;
    const timeKey = builder.column({ name: TIME_FIELD, type: 'datetime', hidden: true });
    const computed: Computed[] = [{ column: timeKey, expr: call('bin', [ref(timeColumn), literal('timespan', size)], 'datetime') }];
    const groupInputs = query.groupBy.map((name, index) => {
      const column = this.column(input, name, `groupBy[${index}]`);
      if (column.type !== 'dynamic') return { name, input: column.id, type: column.type, reportedType: column.reportedType };
      const text = builder.column({ name, type: 'string', hidden: true });
      computed.push({ column: text, expr: call('tostring', [ref(column)], 'string') });
      return { name, input: text.id, type: text.type, reportedType: text.reportedType };
    });
    const source = builder.project(input, [...input.columns.map(passThrough), ...computed]);

    const scope = this.scope(source);
    const taken = new Set<string>([TIME_FIELD, ...query.groupBy]);
    const unique = (label: string): string => {
      let name = label;
      for (let i = 1; taken.has(name); i++) name = `${label}_${i}`;
      taken.add(name);
      return name;
    };
    const items: AggregateItem[] = [];
    const rates: { sum: PlanColumn; rate: PlanColumn }[] = [];
    const aggregations: ResultAggregation[] = query.aggregations.map((aggregation) => {
      const bound = bindAggregation(aggregation, scope, this.context);
      const columns = bound.binding.outputs.map((output) => {
        const column = builder.column({ name: unique(aggregation.label), type: output.call.type, reportedType: output.reportedType ?? REPORTED_TYPES[output.call.type], agg: output.agg });
        items.push({ column, call: output.call });
        if (!bound.binding.perSecond) return column.id;
        const rate = builder.column({ name: column.name, type: 'real', agg: output.agg });
        rates.push({ sum: column, rate });
        return rate.id;
      });
      return { label: aggregation.label, columns, fields: bound.outputFields };
    });

    const flag = builder.column({ name: '_totals', type: 'bool', hidden: true });
    const timeOut = builder.column({ name: TIME_FIELD, type: 'datetime' });
    const keys = [
      { input: timeKey.id, column: timeOut },
      ...groupInputs.map((key) => ({ input: key.input, column: builder.column({ name: key.name, type: key.type, reportedType: key.reportedType }) })),
    ];
    let node: PlanNode = builder.aggregate({
      input: source,
      keys,
      aggregates: items,
      timeKey: timeKey.id,
      totals: { withoutKey: timeKey.id, flag },
      inputRowId: scan.rowId,
    });
    if (rates.length > 0) {
      // rate: the sum per second of the interval, or of the whole window in the totals.
      const seconds = (span: bigint): Expr => literal('real', Number(span) / Number(NS_PER.second));
      const duration = call('iff', [ref(flag), seconds(window.end - window.start), seconds(size)], 'real');
      const replaced = new Map(rates.map(({ sum, rate }) => [sum.id, { column: rate, expr: call('div', [call('todouble', [ref(sum)], 'real'), duration], 'real') }]));
      node = builder.project(
        node,
        node.columns.map((column) => replaced.get(column.id) ?? passThrough(column)),
      );
    }

    const order: OrderKey[] = [{ column: timeOut.id, desc: false, nullsFirst: true }];
    for (const item of query.order) {
      const column = this.groupOrderColumn(item.field, keys.map((key) => key.column), aggregations, node);
      if (!column) {
        throw new StructuredQueryError(`${item.path}.field`, `Invalid ${item.path}.field ${JSON.stringify(item.field)}. Expected _time, a groupBy field, or an aggregation's alias (or op when it has no alias).`);
      }
      if (column.type === 'dynamic') throw unorderable(`${item.path}.field`, item.field);
      order.push({ column: column.id, desc: item.desc, nullsFirst: !item.desc });
    }
    const plan = builder.sort(node, order);
    return {
      plan,
      shape: {
        kind: 'buckets',
        time: timeOut.id,
        size,
        flag: flag.id,
        keys: keys.slice(1).map((key) => ({ name: key.column.name, column: key.column.id })),
        aggregations,
        groupLimit: query.limit,
      },
    };
  }

  private groupOrderColumn(name: string, keys: readonly PlanColumn[], aggregations: readonly ResultAggregation[], node: PlanNode): PlanColumn | undefined {
    const key = keys.find((column) => column.name === name);
    if (key) return key;
    const id = aggregations.find((aggregation) => aggregation.label === name)?.columns[0];
    return id === undefined ? undefined : node.columns.find((column) => column.id === id);
  }
}

/** Rows strictly after `position` in the (_time, _rowid) order, ascending or descending. */
function after(scan: ScanNode, position: RowPosition, order: 'asc' | 'desc'): Expr {
  const time: Expr = { kind: 'column', column: scan.time.column, type: 'datetime' };
  const rowId: Expr = { kind: 'column', column: scan.rowId, type: 'long' };
  const beyond = order === 'desc' ? 'lt' : 'gt';
  return call(
    'or',
    [
      call(beyond, [time, literal('datetime', position.time)], 'bool'),
      call('and', [call('eq', [time, literal('datetime', position.time)], 'bool', true), call(beyond, [rowId, literal('long', position.rowId)], 'bool')], 'bool'),
    ],
    'bool',
  );
}

function notTimeOrdered(path: string): StructuredQueryError {
  return new StructuredQueryError(
    path,
    `Invalid ${path}: cursors page through matches in _time order, and order sorts by another field. Remove order, or order by _time alone.`,
  );
}

function unorderable(path: string, field: string): StructuredQueryError {
  return new StructuredQueryError(path, `Invalid ${path} ${JSON.stringify(field)}: its values are arrays or objects, which have no order.`);
}

/** A span as a request writes it: whole seconds, or milliseconds. */
function describeSpan(ns: bigint): string {
  return ns % NS_PER.second === 0n ? `${ns / NS_PER.second}s` : `${Number(ns) / Number(NS_PER.millisecond)}ms`;
}
