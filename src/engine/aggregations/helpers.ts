import { argNode, constantValue, fail } from '../check/context.js';
import type { AggregateCall, Expr, ScalarType } from '../plan/types.js';
import type { AggregateBinding, AggregateSite, AggregationDef, BoundArg } from './types.js';

/** What aggregation entries share: argument checks, default names, one-column bindings. */

export const ORDERED: readonly ScalarType[] = ['long', 'real', 'datetime', 'timespan', 'string', 'bool'];
export const SUMMABLE: readonly ScalarType[] = ['long', 'real', 'timespan'];
export const NUMERIC: readonly ScalarType[] = ['long', 'real'];

/** Argument `index` of one of the `allowed` types, or an error naming it as the call wrote it. */
export function expectType(args: readonly BoundArg[], index: number, allowed: readonly ScalarType[], site: AggregateSite): Expr {
  const arg = args[index];
  if (!arg) fail('wrong_arity', `${site.name}() is missing argument ${site.position(index) + 1}`, site.node);
  if (!allowed.includes(arg.expr.type)) {
    const expected = allowed.length === 1 ? `a ${allowed[0]}` : `one of ${allowed.join(', ')}`;
    fail('type_mismatch', `${site.name}() expects ${expected} as argument ${site.position(index) + 1}, got ${arg.expr.type}`, arg.node);
  }
  return arg.expr;
}

/** A constant number argument within [min, max] (a percentile, a size limit). */
export function constantNumber(args: readonly BoundArg[], index: number, site: AggregateSite, what: string, min: number, max: number): number {
  const arg = args[index];
  const value = arg ? constantValue(arg.expr) : undefined;
  const number = typeof value === 'bigint' || typeof value === 'number' ? Number(value) : NaN;
  if (!(number >= min && number <= max)) {
    const position = site.position(index);
    fail('invalid_argument', `${site.name}() needs a constant ${what} between ${min} and ${max} as argument ${position + 1}`, argNode(site.node, position));
  }
  return number;
}

/** `<name>_<field>`, or `<name>_` when the argument is an expression (apl.md's default names). */
export function nameFor(prefix: string, arg: BoundArg | undefined): string {
  return `${prefix}_${arg?.field ?? ''}`;
}

export function fieldsOf(args: readonly BoundArg[]): string[] {
  return args.flatMap((arg) => (arg.field === undefined ? [] : [arg.field]));
}

/** A binding with one output column, described on the wire by the form called. */
export function single(
  def: Pick<AggregationDef, 'name'>,
  site: AggregateSite,
  args: readonly BoundArg[],
  call: Omit<AggregateCall, 'fn'>,
  defaultName: string,
  extra: { reportedType?: string; aggArgs?: readonly (string | number)[] } = {},
): AggregateBinding {
  return {
    outputs: [
      {
        call: { fn: def.name, ...call },
        defaultName,
        ...(extra.reportedType ? { reportedType: extra.reportedType } : {}),
        agg: { name: site.wire, fields: fieldsOf(args), args: extra.aggArgs ?? [] },
      },
    ],
  };
}
