import { bindAggregation as bindApl } from '../aggregations/bind.js';
import type { AggregateBinding, BoundArg } from '../aggregations/types.js';
import { literal, type BindContext, type Scope } from '../check/context.js';
import type { Expr } from '../plan/types.js';
import { NOWHERE, atPath, bindField, callNode, fieldNode, valueNode } from './bind.js';
import { bindFilter } from './filter.js';
import type { AggregationOp, StructuredAggregation } from './request.js';

/**
 * The structured query's aggregation ops as APL aggregations (wire.md's names → apl.md's), bound
 * by the APL checker's own signatures so that both languages compute the same.
 */
const APL_NAMES: Readonly<Record<Exclude<AggregationOp, 'histogram' | 'percentiles' | 'makeset' | 'makelist'>, string>> = {
  count: 'count',
  distinct: 'dcount',
  sum: 'sum',
  avg: 'avg',
  min: 'min',
  max: 'max',
  topk: 'topk',
  stdev: 'stdev',
  variance: 'variance',
  argmin: 'arg_min',
  argmax: 'arg_max',
  rate: 'rate',
  countif: 'countif',
  distinctif: 'dcountif',
  makesetif: 'make_set_if',
};

export interface BoundAggregation {
  readonly aggregation: StructuredAggregation;
  readonly binding: AggregateBinding;
  /** argmin and argmax: the field each output column is the value of, the keys of the result object. */
  readonly outputFields?: readonly string[];
}

export function bindAggregation(aggregation: StructuredAggregation, scope: Scope, context: BindContext): BoundAggregation {
  const { op, path, argument } = aggregation;
  const field = (): BoundArg => {
    const name = aggregation.field as string;
    return { expr: bindField(name, `${path}.field`, scope, context), field: name, node: fieldNode(name) };
  };
  const constant = (value: number): BoundArg => ({ expr: literal(Number.isSafeInteger(value) ? 'long' : 'real', Number.isSafeInteger(value) ? BigInt(value) : value), field: undefined, node: valueNode(value) });
  const condition = (): BoundArg => {
    const filter = argument.kind === 'condition' ? argument.filter : undefined;
    const expr: Expr = (filter && bindFilter(filter, scope, context)) ?? literal('bool', true);
    return { expr, field: undefined, node: { kind: 'Bool', value: true, loc: NOWHERE } };
  };
  const apl = (name: string, args: readonly BoundArg[]): AggregateBinding => {
    const node = callNode(name, args.map((arg) => arg.node));
    return atPath(path, `(${op}${aggregation.field === undefined ? '' : ` of ${JSON.stringify(aggregation.field)}`})`, () => bindApl(name, args, node));
  };
  const numbers = argument.kind === 'number' ? [argument.value] : argument.kind === 'numbers' ? argument.values : [];

  switch (op) {
    case 'count':
      return { aggregation, binding: apl('count', aggregation.field === undefined ? [] : [field()]) };
    case 'countif':
      return { aggregation, binding: apl('countif', [condition()]) };
    case 'distinctif':
    case 'makesetif':
      return { aggregation, binding: apl(APL_NAMES[op], [field(), condition()]) };
    case 'topk':
      return { aggregation, binding: apl('topk', [field(), constant(numbers[0] ?? 10)]) };
    case 'makeset':
    case 'makelist':
      return { aggregation, binding: apl(op === 'makeset' ? 'make_set' : 'make_list', [field(), ...numbers.map(constant)]) };
    case 'percentiles':
      return { aggregation, binding: apl(argument.kind === 'numbers' ? 'percentiles_array' : 'percentile', [field(), ...numbers.map(constant)]) };
    case 'argmin':
    case 'argmax': {
      const returned = argument.kind === 'fields' ? argument.fields : [];
      const extra = returned.map((name) => ({ expr: bindField(name, `${path}.argument`, scope, context), field: name, node: fieldNode(name) }));
      return { aggregation, binding: apl(APL_NAMES[op], [field(), ...extra]), outputFields: [aggregation.field as string, ...returned] };
    }
    case 'histogram':
      return { aggregation, binding: apl('histogram', [field(), constant(numbers[0] ?? 10)]) };
    default:
      return { aggregation, binding: apl(APL_NAMES[op], [field()]) };
  }
}
