import { REPORTED_TYPES } from '../plan/build.js';
import type { Computed, Expr, PlanColumn, PlanNode } from '../plan/types.js';
import { functionNamed } from '../functions/index.js';

/** Column helpers every operator's check shares. */

export function visible(node: PlanNode): PlanColumn[] {
  return node.columns.filter((column) => !column.hidden);
}

export function refOf(column: PlanColumn): Expr {
  return { kind: 'column', column: column.id, type: column.type };
}

export function passThroughOf(column: PlanColumn): Computed {
  return { column, expr: refOf(column) };
}

/** `name`, or `name_1`, `name_2`… when taken (apl.md: a clash appends `_1`, `_2`). */
export function uniqueName(name: string, taken: readonly PlanColumn[]): string {
  const used = new Set(taken.map((column) => column.name));
  if (!used.has(name)) return name;
  for (let i = 1; ; i++) if (!used.has(`${name}_${i}`)) return `${name}_${i}`;
}

/** The wire type of a computed value: a dynamic call's own (`array`), a literal's shape, else its type's. */
export function reportedTypeOf(expr: Expr): string {
  if (expr.type === 'dynamic') {
    const reported = expr.kind === 'call' ? functionNamed(expr.fn)?.reported : undefined;
    if (reported) return reported;
    if (expr.kind === 'literal' && typeof expr.value === 'string') return expr.value.startsWith('[') ? 'array' : 'object';
  }
  return REPORTED_TYPES[expr.type];
}
