import { AplError } from '../apl/errors.js';
import { parseExpression } from '../apl/parser.js';
import { PlanBuilder, REPORTED_TYPES } from '../plan/build.js';
import type { Computed, Expr, PlanColumn, PlanNode } from '../plan/types.js';
import type { DatasetSchema, VirtualFieldSchema } from '../schema.js';
import type { BindContext } from './context.js';
import { bindExpression } from './expressions.js';

/**
 * A dataset's virtual fields as columns of its scan, for APL and the structured query alike:
 * one projection right above the scan (and its cursor filter) that passes every stored field
 * through and adds each virtual field, computed from the stored fields. A virtual field of the
 * same name as a stored one replaces it. The projection keeps the scan's column ids, so the
 * time column and row id read as before; DuckDB prunes the virtual fields a query does not use.
 *
 * A virtual field that does not bind — it names a field the dataset has not received yet, say —
 * is left out, so that it does not break every query of its dataset; a query that uses it is
 * then told the field is unknown. The service checks each expression's syntax when it is saved.
 */
export function withVirtualFields(node: PlanNode, schema: DatasetSchema, context: BindContext): PlanNode {
  const definitions = schema.virtualFields ?? [];
  if (definitions.length === 0) return node;
  const scope = { columns: node.columns, lets: new Map<string, Expr>() };
  const added: Computed[] = [];
  for (const definition of definitions) {
    const expr = bindVirtualField(definition, scope, context);
    if (!expr) continue;
    const source = expr.kind === 'column' ? node.columns.find((column) => column.id === expr.column) : undefined;
    const column: PlanColumn = context.builder.column({ name: definition.name, type: expr.type, reportedType: source?.reportedType ?? REPORTED_TYPES[expr.type] });
    added.push({ column, expr });
  }
  if (added.length === 0) return node;
  const replaced = new Set(added.map((item) => item.column.name));
  const kept = node.columns
    .filter((column) => column.hidden || !replaced.has(column.name))
    .map((column): Computed => ({ column, expr: { kind: 'column', column: column.id, type: column.type } }));
  return context.builder.project(node, [...kept, ...added]);
}

function bindVirtualField(definition: VirtualFieldSchema, scope: Parameters<typeof bindExpression>[1], context: BindContext): Expr | undefined {
  try {
    return bindExpression(parseExpression(definition.expression), scope, context);
  } catch (error) {
    if (error instanceof AplError) return undefined;
    throw error;
  }
}

/**
 * Checks a virtual field's expression before it is saved: its syntax always, and against the
 * dataset's fields when it has any (`schema`), so that an aggregation or a type error is refused
 * now rather than ignored at every query. Naming a field the dataset has not received yet is
 * allowed. Throws the AplError (a 400 with its line and column).
 */
export function checkVirtualField(expression: string, schema: DatasetSchema | undefined): void {
  const parsed = parseExpression(expression);
  if (!schema) return;
  const builder = new PlanBuilder();
  const scan = builder.datasetScan(schema, { start: 0n, end: 1n });
  try {
    bindExpression(parsed, { columns: scan.columns, lets: new Map() }, { builder, now: 0n, range: { start: 0n, end: 1n } });
  } catch (error) {
    if (error instanceof AplError && error.kind === 'unknown_field') return;
    throw error;
  }
}
