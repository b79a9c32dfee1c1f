import type * as Ast from '../apl/ast.js';
import { AplError } from '../apl/errors.js';
import type { BindContext, Scope } from '../check/context.js';
import { bindExpression } from '../check/expressions.js';
import type { Expr } from '../plan/types.js';
import { StructuredQueryError } from './errors.js';

/**
 * The structured query has no text of its own: its filters and aggregations become APL syntax
 * nodes that the APL checker binds, so that both languages mean the same by the same words.
 * Those nodes point at no text, so an error in one is reported by the request path it came from.
 */

/** Where a synthesised node is: nowhere in any text (errors name the request path instead). */
export const NOWHERE: Ast.Loc = { line: 1, column: 1, start: 0, end: 0 };

/**
 * A field name as APL reads it: the field of exactly that name (`geo.city`, flattened at
 * ingest), or else the longest dotted prefix that is a dynamic field, keyed by the rest.
 */
export function fieldNode(name: string): Ast.Expression {
  const [first = '', ...rest] = name.split('.');
  let node: Ast.Expression = { kind: 'Name', name: first, bracketed: true, loc: NOWHERE };
  for (const key of rest) node = { kind: 'Member', object: node, name: key, loc: NOWHERE };
  return node;
}

export function callNode(name: string, args: readonly Ast.Expression[]): Ast.Call {
  return { kind: 'Call', name: { kind: 'Identifier', name, loc: NOWHERE }, args, loc: NOWHERE };
}

/** A JSON scalar as an APL literal: integers that fit as long, other numbers as real. */
export function valueNode(value: string | number | boolean): Ast.Expression {
  if (typeof value === 'string') return { kind: 'String', value, loc: NOWHERE };
  if (typeof value === 'boolean') return { kind: 'Bool', value, loc: NOWHERE };
  if (Number.isSafeInteger(value)) return { kind: 'Int', value: BigInt(value), loc: NOWHERE };
  return { kind: 'Real', value, loc: NOWHERE };
}

/** Runs an APL binding step for the member at `path`; an APL error becomes that member's error. */
export function atPath<T>(path: string, what: string, bind: () => T): T {
  try {
    return bind();
  } catch (error) {
    if (error instanceof AplError) throw StructuredQueryError.fromApl(path, error, what);
    throw error;
  }
}

/** Binds a field name in `scope`, naming `path` when there is no such field. */
export function bindField(name: string, path: string, scope: Scope, context: BindContext): Expr {
  return atPath(path, JSON.stringify(name), () => bindExpression(fieldNode(name), scope, context));
}
