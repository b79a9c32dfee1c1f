import type * as Ast from '../apl/ast.js';
import type { AggregateCall, AggregateFunction, AggregationInfo, Expr, ScalarType } from '../plan/types.js';
import { argNode, constantValue, fail, isNumeric } from './context.js';

/** One output column of an aggregation call (arg_max has several). */
export interface AggregateOutput {
  readonly call: AggregateCall;
  readonly defaultName: string;
  readonly reportedType?: string;
  readonly agg: AggregationInfo;
}

export interface AggregateBinding {
  readonly outputs: readonly AggregateOutput[];
  /** `rate`: the output is a sum, to be divided by the bucket's length in seconds. */
  readonly perSecond?: boolean;
}

/** What a bound argument is, for default names: the field it names, if it is a plain reference. */
export interface BoundArg {
  readonly expr: Expr;
  readonly field: string | undefined;
  readonly node: Ast.Expression;
}

interface AggregateSignature {
  readonly min: number;
  readonly max: number;
  bind(args: readonly BoundArg[], node: Ast.Call): AggregateBinding;
}

const ORDERED: readonly ScalarType[] = ['long', 'real', 'datetime', 'timespan', 'string', 'bool'];
const SUMMABLE: readonly ScalarType[] = ['long', 'real', 'timespan'];
const NUMERIC: readonly ScalarType[] = ['long', 'real'];

function expectType(args: readonly BoundArg[], index: number, allowed: readonly ScalarType[], node: Ast.Call): Expr {
  const arg = args[index];
  if (!arg) fail('wrong_arity', `${node.name.name}() is missing argument ${index + 1}`, node);
  if (!allowed.includes(arg.expr.type)) {
    fail('type_mismatch', `${node.name.name}() expects ${allowed.length === 1 ? `a ${allowed[0]}` : `one of ${allowed.join(', ')}`} as argument ${index + 1}, got ${arg.expr.type}`, arg.node);
  }
  return arg.expr;
}

function predicate(args: readonly BoundArg[], index: number, node: Ast.Call): Expr {
  return expectType(args, index, ['bool'], node);
}

function constantNumber(args: readonly BoundArg[], index: number, node: Ast.Call, what: string, min: number, max: number): number {
  const arg = args[index];
  const value = arg ? constantValue(arg.expr) : undefined;
  const number = typeof value === 'bigint' || typeof value === 'number' ? Number(value) : NaN;
  if (!(number >= min && number <= max)) {
    fail('invalid_argument', `${node.name.name}() needs a constant ${what} between ${min} and ${max} as argument ${index + 1}`, argNode(node, index));
  }
  return number;
}

/** `<fn>_<field>`, or `<fn>_` when the argument is an expression (apl.md's default names). */
function nameFor(prefix: string, arg: BoundArg | undefined): string {
  return `${prefix}_${arg?.field ?? ''}`;
}

function fieldsOf(args: readonly BoundArg[]): string[] {
  return args.flatMap((arg) => (arg.field === undefined ? [] : [arg.field]));
}

function single(
  fn: AggregateFunction,
  wire: string,
  args: readonly BoundArg[],
  call: Omit<AggregateCall, 'fn'>,
  defaultName: string,
  extra: { reportedType?: string; aggArgs?: readonly (string | number)[] } = {},
): AggregateBinding {
  return {
    outputs: [
      {
        call: { fn, ...call },
        defaultName,
        ...(extra.reportedType ? { reportedType: extra.reportedType } : {}),
        agg: { name: wire, fields: fieldsOf(args), args: extra.aggArgs ?? [] },
      },
    ],
  };
}

/** `sum`, `avg`, `min`… and their `…if` forms. */
function simple(fn: AggregateFunction, allowed: readonly ScalarType[], result: (type: ScalarType) => ScalarType, conditional: boolean): AggregateSignature {
  const name = `${fn === 'dcount' ? 'dcount' : fn}${conditional ? 'if' : ''}`;
  const wire = fn === 'dcount' ? `distinct${conditional ? 'if' : ''}` : name;
  return {
    min: conditional ? 2 : 1,
    max: conditional ? (fn === 'dcount' ? 3 : 2) : fn === 'dcount' ? 2 : 1,
    bind(args, node) {
      const value = expectType(args, 0, allowed, node);
      const filter = conditional ? predicate(args, 1, node) : undefined;
      return single(fn, wire, args.slice(0, 1), { args: [value], params: [], type: result(value.type), ...(filter ? { filter } : {}) }, nameFor(name, args[0]));
    },
  };
}

const same = (type: ScalarType): ScalarType => type;
const average = (type: ScalarType): ScalarType => (type === 'timespan' ? 'timespan' : 'real');
const sumType = (type: ScalarType): ScalarType => (type === 'real' ? 'real' : type);

function percentileName(field: string | undefined, p: number): string {
  return `percentile_${field ?? ''}_${String(p).replace('.', '_')}`;
}

function makeCollection(fn: 'make_list' | 'make_set', conditional: boolean): AggregateSignature {
  const name = `${fn}${conditional ? '_if' : ''}`;
  const wire = `${fn === 'make_list' ? 'makelist' : 'makeset'}${conditional ? 'if' : ''}`;
  const defaultLimit = fn === 'make_set' ? 128 : 1_048_576;
  return {
    min: conditional ? 2 : 1,
    max: conditional ? 3 : 2,
    bind(args, node) {
      const value = expectType(args, 0, [...ORDERED, 'dynamic'], node);
      const filter = conditional ? predicate(args, 1, node) : undefined;
      const limitIndex = conditional ? 2 : 1;
      const limit = args.length > limitIndex ? constantNumber(args, limitIndex, node, 'size limit', 1, 1_048_576) : defaultLimit;
      return single(
        fn,
        wire,
        args.slice(0, 1),
        { args: [value], params: [Math.floor(limit)], type: 'dynamic', ...(filter ? { filter } : {}) },
        nameFor(name, args[0]),
        { reportedType: 'array' },
      );
    },
  };
}

function argExtreme(fn: 'arg_max' | 'arg_min'): AggregateSignature {
  return {
    min: 2,
    max: 64,
    bind(args, node) {
      const by = expectType(args, 0, ORDERED, node);
      const wire = fn === 'arg_max' ? 'argmax' : 'argmin';
      const outputs: AggregateOutput[] = [];
      const returned = [args[0] as BoundArg, ...args.slice(1)];
      returned.forEach((arg, index) => {
        outputs.push({
          call: { fn, args: [arg.expr, by], params: [], type: arg.expr.type },
          defaultName: arg.field ?? (index === 0 ? `${fn === 'arg_max' ? 'max' : 'min'}_` : `${fn}_`),
          agg: { name: wire, fields: fieldsOf(args), args: [] },
        });
      });
      return { outputs };
    },
  };
}

/**
 * `histogram(e, n)` and `histogramif(e, n, p)`: `n` (1–100) equal-width buckets from the group's
 * smallest to its largest value, as `[{from, to, count}]` (wire.md); the largest value falls in
 * the last bucket, and a group without values has `[]`. Exact, where the hosted service estimates.
 */
function histogram(conditional: boolean): AggregateSignature {
  const name = conditional ? 'histogramif' : 'histogram';
  return {
    min: conditional ? 3 : 2,
    max: conditional ? 3 : 2,
    bind(args, node) {
      const value = expectType(args, 0, NUMERIC, node);
      const buckets = Math.floor(constantNumber(args, 1, node, 'number of buckets', 1, 100));
      const filter = conditional ? predicate(args, 2, node) : undefined;
      return single('histogram', name, args.slice(0, 1), { args: [value], params: [buckets], type: 'dynamic', ...(filter ? { filter } : {}) }, nameFor(name, args[0]), {
        reportedType: 'array',
        aggArgs: [buckets],
      });
    },
  };
}

const AGGREGATES: ReadonlyMap<string, AggregateSignature> = new Map<string, AggregateSignature>([
  [
    'count',
    {
      min: 0,
      max: 1,
      bind: (args) =>
        single('count', 'count', args, { args: args.map((arg) => arg.expr), params: [], type: 'long' }, 'count_'),
    },
  ],
  [
    'countif',
    {
      min: 1,
      max: 1,
      bind: (args, node) => single('count', 'countif', [], { args: [], params: [], type: 'long', filter: predicate(args, 0, node) }, 'countif_'),
    },
  ],
  ['dcount', simple('dcount', [...ORDERED, 'dynamic'], () => 'long', false)],
  ['dcountif', simple('dcount', [...ORDERED, 'dynamic'], () => 'long', true)],
  ['sum', simple('sum', SUMMABLE, sumType, false)],
  ['sumif', simple('sum', SUMMABLE, sumType, true)],
  ['avg', simple('avg', SUMMABLE, average, false)],
  ['avgif', simple('avg', SUMMABLE, average, true)],
  ['min', simple('min', ORDERED, same, false)],
  ['minif', simple('min', ORDERED, same, true)],
  ['max', simple('max', ORDERED, same, false)],
  ['maxif', simple('max', ORDERED, same, true)],
  ['stdev', simple('stdev', NUMERIC, () => 'real', false)],
  ['stdevif', simple('stdev', NUMERIC, () => 'real', true)],
  ['variance', simple('variance', NUMERIC, () => 'real', false)],
  ['varianceif', simple('variance', NUMERIC, () => 'real', true)],
  [
    'percentile',
    {
      min: 2,
      max: 2,
      bind(args, node) {
        const value = expectType(args, 0, ['long', 'real', 'datetime', 'timespan'], node);
        const p = constantNumber(args, 1, node, 'percentile', 0, 100);
        return single('percentile', 'percentiles', args.slice(0, 1), { args: [value], params: [p], type: value.type }, percentileName(args[0]?.field, p), {
          aggArgs: [p],
        });
      },
    },
  ],
  [
    'percentiles_array',
    {
      min: 2,
      max: 33,
      bind(args, node) {
        const value = expectType(args, 0, ['long', 'real', 'datetime', 'timespan'], node);
        const ps = args.slice(1).map((_, i) => constantNumber(args, i + 1, node, 'percentile', 0, 100));
        return single('percentiles', 'percentiles', args.slice(0, 1), { args: [value], params: ps, type: 'dynamic' }, nameFor('percentiles', args[0]), {
          reportedType: 'array',
          aggArgs: ps,
        });
      },
    },
  ],
  [
    'topk',
    {
      min: 2,
      max: 2,
      bind(args, node) {
        const value = expectType(args, 0, [...ORDERED, 'dynamic'], node);
        const k = Math.floor(constantNumber(args, 1, node, 'k', 1, 10_000));
        return single('topk', 'topk', args.slice(0, 1), { args: [value], params: [k], type: 'dynamic' }, nameFor('topk', args[0]), {
          reportedType: 'array',
          aggArgs: [k],
        });
      },
    },
  ],
  ['histogram', histogram(false)],
  ['histogramif', histogram(true)],
  ['make_list', makeCollection('make_list', false)],
  ['make_list_if', makeCollection('make_list', true)],
  ['make_set', makeCollection('make_set', false)],
  ['make_set_if', makeCollection('make_set', true)],
  ['arg_max', argExtreme('arg_max')],
  ['arg_min', argExtreme('arg_min')],
  [
    'rate',
    {
      min: 1,
      max: 1,
      bind(args, node) {
        const value = expectType(args, 0, NUMERIC, node);
        return {
          ...single('sum', 'rate', args, { args: [value], params: [], type: isNumeric(value.type) ? value.type : 'real' }, nameFor('rate', args[0])),
          perSecond: true,
        };
      },
    },
  ],
]);

export function isAggregateName(name: string): boolean {
  return AGGREGATES.has(name);
}

export const AGGREGATE_NAMES: readonly string[] = [...AGGREGATES.keys()];

export function aggregateSignature(name: string): AggregateSignature | undefined {
  return AGGREGATES.get(name);
}
