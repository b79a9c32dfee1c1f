import type * as Ast from '../apl/ast.js';
import { checkArity, fail } from '../check/context.js';
import { aggregationNamed } from './index.js';
import type { AggregateBinding, AggregateSite, BoundArg } from './types.js';

/**
 * Binds a call of an aggregation (`sum(x)`, or its conditional form `sumif(x, p)`) whose
 * arguments are bound: the arity, then the entry's own checks; the if-form's predicate becomes
 * every output's filter.
 */
export function bindAggregation(name: string, args: readonly BoundArg[], node: Ast.Call): AggregateBinding {
  const found = aggregationNamed(name);
  if (!found) throw new Error(`No aggregation ${name}.`);
  const { def, conditional } = found;
  if (!conditional) {
    checkArity(name, node, def.min, def.max);
    return def.bind(args, { name, wire: def.wire, node, position: (index) => index });
  }
  const form = def.conditional;
  if (!form) throw new Error(`${def.name} has no conditional form.`);
  checkArity(name, node, def.min + 1, form.max ?? def.max + 1);
  const at = form.predicate;
  const site: AggregateSite = { name, wire: form.wire, node, position: (index) => (index < at ? index : index + 1) };
  const binding = def.bind([...args.slice(0, at), ...args.slice(at + 1)], site);
  const predicate = args[at];
  if (!predicate) fail('wrong_arity', `${name}() is missing its predicate, argument ${at + 1}`, node);
  if (predicate.expr.type !== 'bool') fail('type_mismatch', `${name}() expects a bool as argument ${at + 1}, got ${predicate.expr.type}`, predicate.node);
  return { ...binding, outputs: binding.outputs.map((output) => ({ ...output, call: { ...output.call, filter: predicate.expr } })) };
}
