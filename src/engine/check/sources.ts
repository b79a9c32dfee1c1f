import type * as Ast from '../apl/ast.js';
import type { Expr, PlanColumn, PlanNode, ScalarType } from '../plan/types.js';
import { reportedTypeOf, visible } from './columns.js';
import { TYPE_NAMES, call, fail, isConstant, literal } from './context.js';
import { bindExpression } from './expressions.js';
import type { TableChecker } from './tables.js';

/** Tables written in the query: `print`, `datatable`, and `getschema`'s description of its input. */

/** `print a = 1, strlen("x")`: one row; an unnamed column is `print_0`, `print_1`… by position. */
export function printValues(checker: TableChecker, source: Ast.PrintSource): PlanNode {
  const columns: PlanColumn[] = [];
  const row: Expr[] = [];
  source.assignments.forEach((assignment, index) => {
    const expr = bindExpression(assignment.value, { columns: [], lets: checker.lets }, checker.context);
    const name = assignment.name?.name ?? `print_${index}`;
    if (columns.some((column) => column.name === name)) fail('invalid_argument', `print names two columns '${name}'; rename one with name = …`, assignment);
    columns.push(checker.builder.column({ name, type: expr.type, reportedType: reportedTypeOf(expr) }));
    row.push(expr);
  });
  return checker.builder.values(columns, [row]);
}

/** A declared column type: APL's names (`long`, `int`, `string`, `dynamic`…). */
export function declaredType(type: Ast.Identifier): ScalarType {
  const scalar = Object.hasOwn(TYPE_NAMES, type.name) ? TYPE_NAMES[type.name] : undefined;
  if (!scalar) fail('type_mismatch', `unknown type '${type.name}'; expected one of ${Object.keys(TYPE_NAMES).join(', ')}`, type);
  return scalar;
}

/** `datatable(a:long, b:string) [1, "x", 2, "y"]`: constant values row by row, each of its column's type. */
export function datatableValues(checker: TableChecker, source: Ast.DatatableSource): PlanNode {
  const names = new Set<string>();
  const columns = source.columns.map((declaration) => {
    if (names.has(declaration.name.name)) fail('invalid_argument', `datatable declares two columns '${declaration.name.name}'`, declaration.name);
    names.add(declaration.name.name);
    return checker.builder.column({ name: declaration.name.name, type: declaredType(declaration.type) });
  });
  if (source.values.length % columns.length !== 0) {
    fail('invalid_argument', `datatable has ${columns.length} columns, so its ${source.values.length} values do not make whole rows; expected a multiple of ${columns.length}`, source);
  }
  const rows: Expr[][] = [];
  source.values.forEach((node, index) => {
    const column = columns[index % columns.length] as PlanColumn;
    const expr = bindExpression(node, { columns: [], lets: checker.lets }, checker.context);
    if (!isConstant(expr)) fail('invalid_argument', 'a datatable value must be a constant', node);
    if (index % columns.length === 0) rows.push([]);
    (rows[rows.length - 1] as Expr[]).push(asColumnType(expr, column, node));
  });
  return checker.builder.values(columns, rows);
}

function asColumnType(expr: Expr, column: PlanColumn, node: Ast.Expression): Expr {
  if (expr.type === column.type) return expr;
  if (expr.kind === 'literal' && expr.value === null) return literal(column.type, null);
  if (column.type === 'real' && expr.type === 'long') return call('todouble', [expr], 'real');
  if (column.type === 'dynamic' && expr.kind === 'literal' && expr.type !== 'datetime' && expr.type !== 'timespan') {
    // A scalar in a dynamic column is that scalar as JSON.
    return literal('dynamic', typeof expr.value === 'bigint' ? expr.value.toString() : JSON.stringify(expr.value));
  }
  return fail('type_mismatch', `datatable column '${column.name}' is ${column.type}, got ${expr.type}`, node);
}

/** `getschema`: one row per column of the input — ColumnName, DataType, ColumnOrdinal, ColumnType (the reference's order). */
export function getschema(checker: TableChecker, input: PlanNode): PlanNode {
  const { builder } = checker;
  const columns = [
    builder.column({ name: 'ColumnName', type: 'string' }),
    builder.column({ name: 'DataType', type: 'string' }),
    builder.column({ name: 'ColumnOrdinal', type: 'long' }),
    builder.column({ name: 'ColumnType', type: 'string' }),
  ];
  const rows = visible(input).map((column, index): Expr[] => [
    literal('string', column.name),
    // The plan's type names are APL's own (bool, long, real, string, datetime, timespan, dynamic).
    literal('string', column.type),
    literal('long', BigInt(index)),
    literal('string', column.type),
  ]);
  return builder.values(columns, rows);
}
