import type * as Ast from '../apl/ast.js';
import { AplError, type AplErrorCode } from '../apl/errors.js';
import type { PlanBuilder } from '../plan/build.js';
import type { Call, Expr, Literal, LiteralValue, PlanColumn, ScalarType } from '../plan/types.js';
import type { Warnings } from './warnings.js';

/** Names the checker resolves: the current columns, then `let` names. */
export interface Scope {
  readonly columns: readonly PlanColumn[];
  readonly lets: ReadonlyMap<string, Expr>;
}

/** What binding an expression may use beyond its scope. */
export interface BindContext {
  readonly builder: PlanBuilder;
  /** `now()`: one value per query. */
  readonly now: bigint;
  /** The query window, for `bin_auto`. */
  readonly range: { readonly start: bigint; readonly end: bigint };
  /** Inside summarize: turns an aggregation call into a column of the aggregate. */
  readonly aggregates?: AggregateSink;
  /** The query's `let` functions, by name; they come before the registry's. */
  readonly functions?: ReadonlyMap<string, Ast.FunctionDefinition>;
  /** Where warnings for `status.messages` go (check/warnings.ts). */
  readonly warnings?: Warnings;
  /** `set stricttypes`: values of different types are not converted to be compared. */
  readonly strictTypes?: boolean;
}

export interface AggregateSink {
  /** The scope aggregation arguments are bound in (the summarize input). */
  readonly inputScope: Scope;
  /** Binds an aggregation call and returns the reference to its (first) output column. */
  add(call: Ast.Call, context: BindContext): Expr;
}

/** APL's type names (typed nulls, `typeof(…)`) and the plan type each stands for. */
export const TYPE_NAMES: Readonly<Record<string, ScalarType>> = {
  bool: 'bool',
  boolean: 'bool',
  int: 'long',
  long: 'long',
  real: 'real',
  double: 'real',
  decimal: 'real',
  string: 'string',
  datetime: 'datetime',
  date: 'datetime',
  timespan: 'timespan',
  time: 'timespan',
  dynamic: 'dynamic',
};

export function fail(code: AplErrorCode, message: string, node: { readonly loc: Ast.Loc }): never {
  throw new AplError(code, message, node.loc);
}

/** A call with `min` to `max` arguments (functions and aggregations alike), or a positioned error. */
export function checkArity(name: string, node: Ast.Call, min: number, max: number): void {
  const count = node.args.length;
  if (count >= min && count <= max) return;
  const expected = min === max ? `${min} argument${min === 1 ? '' : 's'}` : max > 32 ? `at least ${min} argument${min === 1 ? '' : 's'}` : `${min} to ${max} arguments`;
  fail('wrong_arity', `${name}() expects ${expected}, got ${count}`, node.name);
}

export const NUMERIC: readonly ScalarType[] = ['long', 'real'];

export function isNumeric(type: ScalarType): boolean {
  return type === 'long' || type === 'real';
}

export function literal(type: ScalarType, value: LiteralValue): Literal {
  return { kind: 'literal', type, value };
}

export function call(fn: string, args: readonly Expr[], type: ScalarType, caseSensitive?: boolean): Call {
  return caseSensitive === undefined ? { kind: 'call', fn, args, type } : { kind: 'call', fn, args, type, caseSensitive };
}

export function isConstant(e: Expr): boolean {
  return e.kind === 'literal' || (e.kind === 'call' && e.args.every(isConstant));
}

/** A long or string literal's value, for arguments that must be constant. */
export function constantValue(e: Expr): LiteralValue | undefined {
  if (e.kind === 'literal') return e.value;
  if (e.kind === 'call' && e.fn === 'neg' && e.args[0]?.kind === 'literal') {
    const value = e.args[0].value;
    return typeof value === 'bigint' ? -value : typeof value === 'number' ? -value : undefined;
  }
  return undefined;
}

/** Converts to string the way `tostring` does; strings pass through. */
export function asString(e: Expr): Expr {
  if (e.type === 'string') return e;
  // Constant numbers and bools become string constants here, so comparisons stay filterable.
  if (e.kind === 'literal' && e.value !== null && (e.type === 'long' || e.type === 'real' || e.type === 'bool')) {
    return literal('string', String(e.value));
  }
  return call('tostring', [e], 'string');
}

/** Converts a dynamic value to `type` for comparison with a value of that type. */
export function fromDynamic(e: Expr, type: ScalarType): Expr {
  switch (type) {
    case 'string':
      return call('tostring', [e], 'string');
    case 'long':
      return call('toint', [e], 'long');
    case 'real':
      return call('todouble', [e], 'real');
    case 'bool':
      return call('tobool', [e], 'bool');
    case 'datetime':
      return call('todatetime', [e], 'datetime');
    case 'timespan':
      return call('totimespan', [e], 'timespan');
    case 'dynamic':
      return e;
  }
}

export function describeType(type: ScalarType): string {
  return type;
}

/** Where an argument of `node` is, for errors about that argument. */
export function argNode(node: Ast.Call, index: number): { readonly loc: Ast.Loc } {
  return node.args[index] ?? node;
}
