import type * as Ast from '../apl/ast.js';
import type { Computed, Expr, PlanColumn, PlanNode, ScalarType } from '../plan/types.js';
import { passThroughOf, refOf } from './columns.js';
import { call, constantValue, fail, fromDynamic } from './context.js';
import { bindExpression, findColumn } from './expressions.js';
import { declaredType } from './sources.js';
import type { TableChecker } from './tables.js';

/**
 * `mv-expand [kind=bag|array] [with_itemindex=i] col [to typeof(t)], … [limit n]`: one row per
 * element of each dynamic array (the columns in parallel, the longest setting the count, the
 * shorter giving null), a property bag expanding by property — as a one-property bag with
 * `kind=bag`, as `[key, value]` otherwise (the reference's default, `array`). A null value gives
 * one row, an empty array none. `to typeof(t)` converts each element as the conversion functions do.
 */
export function mvExpand(checker: TableChecker, input: PlanNode, operator: Ast.MvExpandOperator): PlanNode {
  const { builder } = checker;
  const scope = { columns: input.columns, lets: checker.lets };
  const computed: Computed[] = [];
  const items: { name: string; source: PlanColumn; toType: Ast.Identifier | undefined; replaces: PlanColumn | undefined }[] = [];
  for (const item of operator.items) {
    const expr = bindExpression(item.value, scope, checker.context);
    if (expr.type !== 'dynamic') fail('type_mismatch', `mv-expand needs a dynamic array or property bag, got ${expr.type}; convert text with parse_json()`, item.value);
    const plainColumn = expr.kind === 'column' ? input.columns.find((column) => column.id === expr.column) : undefined;
    const name = item.name?.name ?? plainColumn?.name;
    if (name === undefined) fail('invalid_argument', 'name an expanded expression, such as mv-expand x = parse_json(text)', item.value);
    if (items.some((other) => other.name === name)) fail('invalid_argument', `mv-expand expands '${name}' twice`, item);
    let source = plainColumn;
    if (!source) {
      source = builder.column({ name, type: 'dynamic', hidden: true });
      computed.push({ column: source, expr });
    }
    items.push({ name, source, toType: item.toType, replaces: findColumn(scope, name) });
  }
  let limit: number | undefined;
  if (operator.limit) {
    const value = constantValue(bindExpression(operator.limit, { columns: [], lets: checker.lets }, checker.context));
    if (typeof value !== 'bigint' || value < 0n) fail('invalid_argument', 'the limit of mv-expand must be a constant integer of at least 0', operator.limit);
    limit = value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
  }
  const source = computed.length === 0 ? input : builder.project(input, [...input.columns.map(passThroughOf), ...computed]);
  const expand = operator.bagKind ?? 'array';
  const outputs: { column: PlanColumn; source: number; expand?: 'bag' | 'array' }[] = [];
  for (const column of source.columns) {
    if (computed.some((item) => item.column.id === column.id)) continue;
    const item = items.find((candidate) => candidate.replaces?.id === column.id);
    if (item) {
      const out = builder.column({ name: item.name, type: 'dynamic' });
      outputs.push({ column: out, source: item.source.id, expand });
    } else {
      outputs.push({ column, source: column.id });
    }
  }
  for (const item of items.filter((candidate) => !candidate.replaces)) {
    const out = builder.column({ name: item.name, type: 'dynamic' });
    outputs.push({ column: out, source: item.source.id, expand });
  }
  const indexName = operator.itemIndex?.name;
  if (indexName !== undefined && outputs.some((item) => !item.column.hidden && item.column.name === indexName)) {
    fail('invalid_argument', `with_itemindex=${indexName} names a column the rows already have; choose another name`, operator.itemIndex as Ast.Identifier);
  }
  const itemIndex = builder.column({ name: indexName ?? 'item_index', type: 'long', hidden: indexName === undefined });
  let node: PlanNode = builder.mvExpand({ input: source, outputs, itemIndex, ...(limit !== undefined ? { limit } : {}) });
  if (items.some((item) => item.toType)) {
    const conversions = node.columns.map((column): Computed => {
      const item = items.find((candidate) => candidate.name === column.name && !column.hidden);
      if (!item?.toType) return passThroughOf(column);
      const type = declaredType(item.toType);
      return { column: builder.column({ name: column.name, type }), expr: elementAs(refOf(column), type) };
    });
    node = builder.project(node, conversions);
  }
  return node;
}

/**
 * An element as `to typeof(type)` says: the conversion functions' rules, except that a number
 * becomes a long by truncation (a series of averages expands `to typeof(long)`, as the
 * make-series page does), where `toint` of JSON `1.5` is null.
 */
function elementAs(element: Expr, type: ScalarType): Expr {
  if (type !== 'long') return fromDynamic(element, type);
  return call('coalesce', [fromDynamic(element, 'long'), call('toint', [fromDynamic(element, 'real')], 'long')], 'long');
}
