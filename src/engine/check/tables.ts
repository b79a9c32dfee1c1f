import type * as Ast from '../apl/ast.js';
import { singleScanOf, type PlanBuilder } from '../plan/build.js';
import type { Computed, Expr, JoinKind, JoinNode, OrderKey, PlanColumn, PlanNode, ScalarType } from '../plan/types.js';
import { passThroughOf, refOf, visible } from './columns.js';
import { asString, call, fail, isNumeric, literal, type BindContext, type Scope } from './context.js';
import { bindExpression } from './expressions.js';
import type { CheckOptions } from './query.js';

/** What the operators that read more than one table need of the query's checker. */
export interface TableChecker {
  readonly builder: PlanBuilder;
  readonly context: BindContext;
  readonly lets: ReadonlyMap<string, Expr>;
  readonly options: CheckOptions;
  /** A tabular expression, checked with fresh columns each time (a tabular let may be used twice). */
  tabular(expression: { readonly source: Ast.TabularSource; readonly operators: readonly Ast.Operator[] }): PlanNode;
  /** A tabular let or a dataset by name. */
  named(name: string, node: { readonly loc: Ast.Loc }): PlanNode;
  datasetNames(): readonly string[];
  scope(node: PlanNode): Scope;
  bind(expression: Ast.Expression, node: PlanNode): Expr;
  summarizeFor(input: PlanNode, operator: Ast.SummarizeOperator): PlanNode;
}

interface NamedTable {
  /** What `withsource` reports: the dataset or let name, or `union_arg<i>` for an expression. */
  readonly name: string;
  readonly node: PlanNode;
}

/** The tables a reference stands for: one, or every dataset a pattern matches. */
function tablesOf(checker: TableChecker, reference: Ast.TableReference, index: number): NamedTable[] {
  switch (reference.kind) {
    case 'Source':
      return [{ name: reference.name, node: checker.named(reference.name, reference) }];
    case 'Tabular':
      return [{ name: reference.source.kind === 'Source' && reference.operators.length === 0 ? reference.source.name : `union_arg${index}`, node: checker.tabular(reference) }];
    case 'DatasetPattern': {
      const regex = new RegExp(`^${reference.pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
      const names = checker.datasetNames().filter((name) => regex.test(name));
      return names.map((name) => ({ name, node: checker.named(name, reference) }));
    }
  }
}

/** One table: a pattern is refused where an operator takes exactly one. */
function oneTable(checker: TableChecker, reference: Ast.TableReference, operator: string): PlanNode {
  if (reference.kind === 'DatasetPattern') fail('invalid_argument', `${operator} takes one table, not the pattern '${reference.pattern}'; name the dataset`, reference);
  const [table] = tablesOf(checker, reference, 1);
  if (!table) throw new Error('A table reference stands for one table.');
  return table.node;
}

/**
 * The type two columns of one name merge to: the same type stays, numbers become real, any other
 * mix string (the store's widening rule).
 */
function mergedType(a: ScalarType, b: ScalarType): ScalarType {
  if (a === b) return a;
  if (isNumeric(a) && isNumeric(b)) return 'real';
  return 'string';
}

function converted(expr: Expr, type: ScalarType): Expr {
  if (expr.type === type) return expr;
  if (type === 'real') return call('todouble', [expr], 'real');
  return asString(expr);
}

/**
 * `union`: every row of every table; columns of one name merge into one (in the order they first
 * appear), a table without a column giving null there. `withsource=Name` adds, first, the table
 * each row came from.
 */
export function union(checker: TableChecker, input: PlanNode | undefined, operator: Ast.UnionOperator): PlanNode {
  const { builder } = checker;
  const tables: NamedTable[] = [];
  if (input) tables.push({ name: singleScanOf(input)?.dataset ?? 'union_arg0', node: input });
  operator.tables.forEach((reference, index) => tables.push(...tablesOf(checker, reference, index + (input ? 1 : 0))));
  if (tables.length === 0) fail('invalid_argument', 'union matched no dataset; check the pattern, or name the datasets', operator);
  const merged = new Map<string, { type: ScalarType; reportedTypes: Set<string> }>();
  for (const table of tables) {
    for (const column of visible(table.node)) {
      const seen = merged.get(column.name);
      if (seen) {
        seen.type = mergedType(seen.type, column.type);
        seen.reportedTypes.add(column.reportedType);
      } else {
        merged.set(column.name, { type: column.type, reportedTypes: new Set([column.reportedType]) });
      }
    }
  }
  const source = operator.withSource ? builder.column({ name: operator.withSource.name, type: 'string' }) : undefined;
  if (source && merged.has(source.name)) fail('invalid_argument', `withsource=${source.name} names a column the tables already have; choose another name`, operator.withSource as Ast.Identifier);
  const columns: PlanColumn[] = [
    ...(source ? [source] : []),
    ...[...merged].map(([name, { type, reportedTypes }]) => {
      const [reported] = reportedTypes;
      return builder.column({ name, type, ...(reportedTypes.size === 1 && reported !== undefined && type !== 'string' ? { reportedType: reported } : {}) });
    }),
  ];
  const inputs = tables.map((table) => {
    const computed: Computed[] = columns.map((column) => {
      if (column === source) return { column: builder.column({ name: column.name, type: 'string', hidden: true }), expr: literal('string', table.name) };
      const found = visible(table.node).find((candidate) => candidate.name === column.name);
      const expr = found ? converted(refOf(found), column.type) : literal(column.type, null);
      return { column: builder.column({ name: column.name, type: column.type, hidden: true }), expr };
    });
    const node = builder.project(table.node, computed);
    return { node, columns: computed.map((item) => item.column.id) };
  });
  const time = columns.find((column) => column.name === '_time' && column.type === 'datetime');
  const order: OrderKey[] = time ? [{ column: time.id, desc: true, nullsFirst: false }] : [];
  return builder.union(columns, inputs, order);
}

interface BoundKeys {
  readonly left: PlanNode;
  readonly right: PlanNode;
  readonly on: { left: number; right: number }[];
  /** The right side's key columns that are plain columns: lookup shows its keys once, as the left's. */
  readonly rightKeys: Set<number>;
}

/** `$left.x` or `$right.x` (also `$left.['x']`): the side and the field. */
function sideReference(expression: Ast.Expression): { side: 'left' | 'right'; field: Ast.NameReference } | undefined {
  if ((expression.kind === 'Member' || expression.kind === 'Index') && expression.object.kind === 'Name' && !expression.object.bracketed) {
    const side = expression.object.name === '$left' ? 'left' : expression.object.name === '$right' ? 'right' : undefined;
    if (!side) return undefined;
    if (expression.kind === 'Member') return { side, field: { kind: 'Name', name: expression.name, bracketed: true, loc: expression.loc } };
    if (expression.index.kind === 'String') return { side, field: { kind: 'Name', name: expression.index.value, bracketed: true, loc: expression.index.loc } };
  }
  return undefined;
}

/** The operand with its `$left.`/`$right.` prefixes taken off, and the side they name (none: undefined). */
function sideOf(expression: Ast.Expression): { side: 'left' | 'right' | undefined; field: Ast.Expression } {
  let side: 'left' | 'right' | undefined;
  const strip = (node: Ast.Expression): Ast.Expression => {
    const reference = sideReference(node);
    if (reference) {
      if (side && side !== reference.side) fail('invalid_argument', 'one side of a join condition names both $left and $right', expression);
      side = reference.side;
      return reference.field;
    }
    switch (node.kind) {
      case 'Call':
        return { ...node, args: node.args.map(strip) };
      case 'Unary':
        return { ...node, operand: strip(node.operand) };
      case 'Binary':
        return { ...node, left: strip(node.left), right: strip(node.right) };
      case 'Member':
        return { ...node, object: strip(node.object) };
      case 'Index':
        return { ...node, object: strip(node.object), index: strip(node.index) };
      case 'In':
        return { ...node, value: strip(node.value), items: node.items.map(strip) };
      case 'Between':
        return { ...node, value: strip(node.value), low: strip(node.low), high: strip(node.high) };
      default:
        return node;
    }
  };
  const field = strip(expression);
  return { side, field };
}

/** Binds the `on` conditions; keys that are expressions become hidden columns of their side. */
function bindKeys(checker: TableChecker, leftInput: PlanNode, rightInput: PlanNode, conditions: readonly Ast.JoinCondition[]): BoundKeys {
  const extra = { left: [] as Computed[], right: [] as Computed[] };
  const pairs: { left: Expr; right: Expr }[] = [];
  const rightKeys = new Set<number>();
  for (const condition of conditions) {
    const first = sideOf(condition.left);
    const second = sideOf(condition.right);
    let leftSide = { side: first.side ?? 'left', field: first.field };
    let rightSide = { side: second.side ?? 'right', field: second.field };
    if (leftSide.side === 'right' && rightSide.side === 'left') [leftSide, rightSide] = [rightSide, leftSide];
    if (leftSide.side === rightSide.side) fail('invalid_argument', `a join condition compares the ${leftSide.side} side with itself; write $left.a == $right.b`, condition);
    const bindSide = (expression: Ast.Expression, node: PlanNode, side: 'left' | 'right'): Expr => {
      const expr = bindExpression(expression, { columns: node.columns, lets: checker.lets }, checker.context);
      if (expr.type === 'dynamic') fail('type_mismatch', `cannot join on a dynamic value (${side} side); convert it with tostring()`, expression);
      return expr;
    };
    const left = bindSide(leftSide.field, leftInput, 'left');
    let right = bindSide(rightSide.field, rightInput, 'right');
    let leftKey = left;
    if (left.type !== right.type) {
      if (!(isNumeric(left.type) && isNumeric(right.type))) {
        fail('type_mismatch', `join keys must have the same type, got ${left.type} on the left and ${right.type} on the right; convert one side, such as tostring(…)`, condition);
      }
      leftKey = converted(left, 'real');
      right = converted(right, 'real');
    }
    pairs.push({ left: leftKey, right });
    if (right.kind === 'column') rightKeys.add(right.column);
  }
  const keyColumn = (side: 'left' | 'right', expr: Expr): number => {
    if (expr.kind === 'column') return expr.column;
    const column = checker.builder.column({ name: `join_key_${extra[side].length + 1}`, type: expr.type, hidden: true });
    extra[side].push({ column, expr });
    return column.id;
  };
  const on = pairs.map((pair) => ({ left: keyColumn('left', pair.left), right: keyColumn('right', pair.right) }));
  const withExtra = (node: PlanNode, computed: Computed[]): PlanNode => (computed.length === 0 ? node : checker.builder.project(node, [...node.columns.map(passThroughOf), ...computed]));
  return { left: withExtra(leftInput, extra.left), right: withExtra(rightInput, extra.right), on, rightKeys };
}

/**
 * The output columns of a join: the left's, then the right's, a right column whose name the left
 * has taking the suffix `1` (`2`… when that is taken too); hidden columns that order each side
 * are carried hidden. `skipRight` drops right columns (lookup's repeated keys).
 */
function joinOutputs(builder: PlanBuilder, kind: JoinKind, left: PlanNode, right: PlanNode, skipRight: ReadonlySet<number> = new Set()): JoinNode['outputs'] {
  const outputs: { column: PlanColumn; side: 'left' | 'right'; source: number }[] = [];
  const taken = new Set<string>();
  const add = (side: 'left' | 'right', node: PlanNode): void => {
    const ordering = new Set(node.order.map((key) => key.column));
    for (const column of node.columns) {
      if (column.hidden && !ordering.has(column.id)) continue;
      if (side === 'right' && skipRight.has(column.id)) continue;
      let name = column.name;
      if (!column.hidden && taken.has(name)) {
        let suffix = 1;
        while (taken.has(`${column.name}${suffix}`)) suffix++;
        name = `${column.name}${suffix}`;
      }
      if (!column.hidden) taken.add(name);
      const copy = builder.column({ name, type: column.type, reportedType: column.reportedType, hidden: column.hidden, ...(column.agg ? { agg: column.agg } : {}) });
      outputs.push({ column: copy, side, source: column.id });
    }
  };
  const sides = kind === 'rightanti' || kind === 'rightsemi' ? ['right'] : kind === 'leftanti' || kind === 'leftsemi' ? ['left'] : ['left', 'right'];
  if (sides.includes('left')) add('left', left);
  if (sides.includes('right')) add('right', right);
  return outputs;
}

/** `join kind=… T on …`: APL's default kind is inner (Kusto's innerunique). */
export function join(checker: TableChecker, input: PlanNode, operator: Ast.JoinOperator): PlanNode {
  const right = oneTable(checker, operator.right, 'join');
  const keys = bindKeys(checker, input, right, operator.on);
  const outputs = joinOutputs(checker.builder, operator.joinKind, keys.left, keys.right);
  return checker.builder.join({ joinKind: operator.joinKind, left: keys.left, right: keys.right, on: keys.on, outputs });
}

/**
 * `lookup kind=leftouter|inner T on …`: a join that adds the lookup table's columns to each
 * row; the lookup table's key columns are left out (the row's own keys hold their values).
 */
export function lookup(checker: TableChecker, input: PlanNode, operator: Ast.LookupOperator): PlanNode {
  const right = oneTable(checker, operator.right, 'lookup');
  const keys = bindKeys(checker, input, right, operator.on);
  const outputs = joinOutputs(checker.builder, operator.joinKind, keys.left, keys.right, keys.rightKeys);
  return checker.builder.join({ joinKind: operator.joinKind, left: keys.left, right: keys.right, on: keys.on, outputs });
}
