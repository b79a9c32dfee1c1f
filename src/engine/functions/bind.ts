import type * as Ast from '../apl/ast.js';
import { TYPE_NAMES, argNode, asString, call, checkArity, constantValue, fail, fromDynamic, isNumeric, literal, type BindContext, type Scope } from '../check/context.js';
import type { Expr, ScalarType } from '../plan/types.js';
import type { BindSite, CallSite, FunctionDef, Param } from './types.js';

/**
 * Binds a call of a registry function whose arguments are already bound: the arity, each
 * argument's type against its parameter (converting where the parameter says), the result type,
 * then the entry's own checks. Every error names the function and points at the argument.
 */
export function bindFunction(def: FunctionDef, name: string, node: Ast.Call, bound: readonly Expr[], where: { context: BindContext; scope: Scope }): Expr {
  const { min, max } = arity(def);
  checkArity(name, node, min, max);
  const at: CallSite = { name, node, ...where };
  const args = bound.map((_, index) => {
    const param = paramAt(def, index);
    return convert(expectArg(bound, index, param.types, at, param.hint ?? ''), param);
  });
  const type = typeof def.returns === 'string' ? def.returns : def.returns.of(args, at);
  const site: BindSite = { ...at, type };
  return def.bind ? def.bind(args, site) : call(def.name, args, type);
}

/** The fewest and most arguments a function takes. */
export function arity(def: FunctionDef): { min: number; max: number } {
  const min = def.params.filter((param) => !param.optional).length;
  return { min, max: def.variadic ?? def.params.length };
}

export function paramAt(def: FunctionDef, index: number): Param {
  const param = def.params[Math.min(index, def.params.length - 1)];
  if (!param) throw new Error(`${def.name} has no parameters.`);
  return param;
}

/** An accepted argument as the parameter takes it (a dynamic value as text, say). */
function convert(arg: Expr, param: Param): Expr {
  if (param.to === undefined || param.to === arg.type) return arg;
  if (param.to === 'string') return asString(arg);
  if (arg.type === 'dynamic') return fromDynamic(arg, param.to);
  return arg;
}

/** Checks that argument `index` has one of `allowed` types; names the function and the argument otherwise. */
export function expectArg(args: readonly Expr[], index: number, allowed: readonly ScalarType[], site: Pick<CallSite, 'name' | 'node'>, hint = ''): Expr {
  const arg = args[index];
  if (arg === undefined) fail('wrong_arity', `${site.name}() is missing argument ${index + 1}`, site.node);
  if (!allowed.includes(arg.type)) {
    const expected = allowed.length === 1 ? `a ${allowed[0]}` : `one of ${allowed.join(', ')}`;
    fail('type_mismatch', `${site.name}() expects ${expected} as argument ${index + 1}, got ${arg.type}${hint}`, argNode(site.node, index));
  }
  return arg;
}

/** `typeof(string)` as a string literal of the plan type it names (`long` for `int`). */
export function bindTypeName(node: Ast.Expression, name: string, index: number): Expr {
  const typeName = node.kind === 'Call' && node.name.name === 'typeof' && node.args.length === 1 && node.args[0]?.kind === 'Name' ? node.args[0].name : undefined;
  const type = typeName === undefined ? undefined : TYPE_NAMES[typeName];
  if (type === undefined) fail('type_mismatch', `${name}() expects a type as argument ${index + 1}, such as typeof(string), typeof(long) or typeof(datetime)`, node);
  return literal('string', type);
}

// ── Parameter kinds ──────────────────────────────────────────────────────────────────────────

export const ANY: readonly ScalarType[] = ['bool', 'long', 'real', 'string', 'datetime', 'timespan', 'dynamic'];
export const NUMBER: readonly ScalarType[] = ['long', 'real'];

type ParamOptions = Pick<Param, 'optional' | 'hint'>;

/** A string; a dynamic value is taken as its text. */
export const text = (name: string, options: ParamOptions = {}): Param => ({ name, types: ['string', 'dynamic'], to: 'string', hint: '; convert it with tostring()', ...options });
export const number = (name: string, options: ParamOptions = {}): Param => ({ name, types: NUMBER, ...options });
export const integer = (name: string, options: ParamOptions = {}): Param => ({ name, types: ['long'], ...options });
export const boolean = (name: string, options: ParamOptions = {}): Param => ({ name, types: ['bool'], ...options });
export const datetime = (name: string, options: ParamOptions = {}): Param => ({ name, types: ['datetime'], ...options });
export const timespan = (name: string, options: ParamOptions = {}): Param => ({ name, types: ['timespan'], ...options });
export const dynamic = (name: string, options: ParamOptions = {}): Param => ({ name, types: ['dynamic'], ...options });
export const typeName = (name: string): Param => ({ name, types: ['string'], kind: 'type' });
export const anyValue = (name: string, options: ParamOptions = {}): Param => ({ name, types: ANY, ...options });
export const oneOf = (name: string, types: readonly ScalarType[], options: ParamOptions = {}): Param => ({ name, types, ...options });

// ── Result types ─────────────────────────────────────────────────────────────────────────────

/** The type of argument `index`. */
export function sameAs(index: number, doc = `the type of argument ${index + 1}`): FunctionDef['returns'] {
  return { of: (args) => args[index]?.type ?? 'dynamic', doc };
}

/** The common type of branches (`iff`, `case`, `coalesce`): equal types, or long and real as real. */
export function unifyTypes(args: readonly Expr[], site: Pick<CallSite, 'name' | 'node'>, indexes: readonly number[]): ScalarType {
  let type: ScalarType | undefined;
  for (const index of indexes) {
    const arg = args[index];
    if (!arg) continue;
    if (type === undefined || type === arg.type) {
      type = arg.type;
    } else if (isNumeric(type) && isNumeric(arg.type)) {
      type = 'real';
    } else {
      fail('type_mismatch', `${site.name}() needs arguments of one type, got ${type} and ${arg.type} (argument ${index + 1})`, argNode(site.node, index));
    }
  }
  return type ?? 'string';
}

// ── Constant arguments ───────────────────────────────────────────────────────────────────────

/** A constant integer argument (`extract`'s group); fails where it is computed. */
export function constantInteger(args: readonly Expr[], index: number, site: Pick<CallSite, 'name' | 'node'>, what: string): bigint {
  const value = args[index] ? constantValue(args[index]) : undefined;
  if (typeof value !== 'bigint') fail('invalid_argument', `${site.name}() needs a constant integer ${what} as argument ${index + 1}`, argNode(site.node, index));
  return value;
}

/** A constant string argument (a date part, a unit); fails where it is computed. */
export function constantString(args: readonly Expr[], index: number, site: Pick<CallSite, 'name' | 'node'>, what: string): string {
  const value = args[index] ? constantValue(args[index]) : undefined;
  if (typeof value !== 'string') fail('invalid_argument', `${site.name}() needs a constant string ${what} as argument ${index + 1}`, argNode(site.node, index));
  return value;
}
