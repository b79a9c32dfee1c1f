import type * as Ast from '../apl/ast.js';
import { NS_PER } from '../apl/literals.js';
import type { Expr, ScalarType } from '../plan/types.js';
import { argNode, asString, call, constantValue, fail, isNumeric, literal, type BindContext } from './context.js';

/** A scalar function of APL: its arity and how it binds to plan expressions. */
export interface ScalarSignature {
  readonly min: number;
  readonly max: number;
  /** Arguments are already bound and counted. */
  bind(args: readonly Expr[], node: Ast.Call, context: BindContext): Expr;
}

const STRINGY: readonly ScalarType[] = ['string', 'dynamic'];
const TIMEY: readonly ScalarType[] = ['datetime'];

/** Checks that argument `index` has one of `allowed` types; names the function and the argument otherwise. */
export function expectArg(args: readonly Expr[], index: number, allowed: readonly ScalarType[], node: Ast.Call, hint = ''): Expr {
  const arg = args[index];
  if (arg === undefined) fail('wrong_arity', `${node.name.name}() is missing argument ${index + 1}`, node);
  if (!allowed.includes(arg.type)) {
    const expected = allowed.length === 1 ? `a ${allowed[0]}` : `one of ${allowed.join(', ')}`;
    fail('type_mismatch', `${node.name.name}() expects ${expected} as argument ${index + 1}, got ${arg.type}${hint}`, argNode(node, index));
  }
  return arg;
}

function stringArg(args: readonly Expr[], index: number, node: Ast.Call): Expr {
  const arg = expectArg(args, index, STRINGY, node, '; convert it with tostring()');
  return asString(arg);
}

/** A constant long argument (`substring`'s start may vary, `extract`'s group may not). */
function constantLong(args: readonly Expr[], index: number, node: Ast.Call, what: string): bigint {
  const arg = expectArg(args, index, ['long'], node);
  const value = constantValue(arg);
  if (typeof value !== 'bigint') fail('invalid_argument', `${node.name.name}() needs a constant integer ${what} as argument ${index + 1}`, argNode(node, index));
  return value;
}

/** The common type of branches (`iff`, `case`, `coalesce`): equal types, or long and real as real. */
export function unifyTypes(args: readonly Expr[], node: Ast.Call, indexes: readonly number[]): ScalarType {
  let type: ScalarType | undefined;
  for (const index of indexes) {
    const arg = args[index];
    if (!arg) continue;
    if (type === undefined || type === arg.type) {
      type = arg.type;
    } else if (isNumeric(type) && isNumeric(arg.type)) {
      type = 'real';
    } else {
      fail('type_mismatch', `${node.name.name}() needs arguments of one type, got ${type} and ${arg.type} (argument ${index + 1})`, argNode(node, index));
    }
  }
  return type ?? 'string';
}

/** `bin` and `floor(x, size)`: size must be a positive constant of a type that fits the value's. */
function bindBin(args: readonly Expr[], node: Ast.Call): Expr {
  const value = expectArg(args, 0, ['long', 'real', 'datetime', 'timespan'], node);
  const timeLike = value.type === 'datetime' || value.type === 'timespan';
  const size = expectArg(args, 1, timeLike ? ['timespan'] : ['long', 'real'], node, timeLike ? '; write a timespan such as 5m' : '');
  const amount = constantValue(size);
  if (amount === undefined || amount === null || Number(amount) <= 0) {
    fail('invalid_argument', `${node.name.name}() needs a positive constant bin size as argument 2`, argNode(node, 1));
  }
  const type: ScalarType = timeLike || size.type === 'long' ? value.type : 'real';
  return call('bin', [value, size.kind === 'literal' ? size : literal(size.type, amount)], type);
}

/** The `bin_auto` ladder (apl.md): the smallest step with at most 100 buckets over the query range. */
export const BIN_AUTO_STEPS: readonly bigint[] = [
  NS_PER.second,
  5n * NS_PER.second,
  10n * NS_PER.second,
  30n * NS_PER.second,
  NS_PER.minute,
  5n * NS_PER.minute,
  10n * NS_PER.minute,
  30n * NS_PER.minute,
  NS_PER.hour,
  3n * NS_PER.hour,
  6n * NS_PER.hour,
  12n * NS_PER.hour,
  NS_PER.day,
  7n * NS_PER.day,
  30n * NS_PER.day,
  365n * NS_PER.day,
];
export const BIN_AUTO_MAX_BUCKETS = 100n;

const floorDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/** How many aligned buckets of `size` cover [start, end). */
export function bucketCount(start: bigint, end: bigint, size: bigint): bigint {
  if (end <= start) return 1n;
  return floorDiv(end - 1n, size) - floorDiv(start, size) + 1n;
}

export function binAutoSize(start: bigint, end: bigint): bigint {
  for (const step of BIN_AUTO_STEPS) if (bucketCount(start, end, step) <= BIN_AUTO_MAX_BUCKETS) return step;
  return BIN_AUTO_STEPS[BIN_AUTO_STEPS.length - 1] as bigint;
}

const DATETIME_DIFF_PARTS = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond'];

type PlanFunction = Parameters<typeof call>[0];

const unary =
  (fn: PlanFunction, allowed: readonly ScalarType[], result: ScalarType | 'same') =>
  (args: readonly Expr[], node: Ast.Call): Expr => {
    const arg = allowed === STRINGY ? stringArg(args, 0, node) : expectArg(args, 0, allowed, node);
    return call(fn, [arg], result === 'same' ? arg.type : result);
  };

const floorOf = unary('floor', ['long', 'real'], 'same');

/** A function of one argument that maps to one plan function. */
const one = (fn: PlanFunction, allowed: readonly ScalarType[], result: ScalarType | 'same'): ScalarSignature => ({ min: 1, max: 1, bind: unary(fn, allowed, result) });

/** Functions of one argument named in APL as the plan function they map to. */
const sameNamed = (names: readonly PlanFunction[], allowed: readonly ScalarType[], result: ScalarType | 'same'): [string, ScalarSignature][] =>
  names.map((name) => [name, one(name, allowed, result)]);

const IFF: ScalarSignature = {
  min: 3,
  max: 3,
  bind: (args, node) => {
    expectArg(args, 0, ['bool'], node);
    return call('iff', args, unifyTypes(args, node, [1, 2]));
  },
};

const ANY: readonly ScalarType[] = ['bool', 'long', 'real', 'string', 'datetime', 'timespan', 'dynamic'];

export const SCALAR_FUNCTIONS: ReadonlyMap<string, ScalarSignature> = new Map<string, ScalarSignature>([
  ['not', one('not', ['bool'], 'bool')],
  ['tostring', { min: 1, max: 1, bind: (args) => call('tostring', args, 'string') }],
  ['toint', one('tolong', ANY, 'long')],
  ['tolong', one('tolong', ANY, 'long')],
  ['todouble', one('toreal', ANY, 'real')],
  ['toreal', one('toreal', ANY, 'real')],
  ['tobool', one('tobool', ANY, 'bool')],
  ['toboolean', one('tobool', ANY, 'bool')],
  ['todatetime', one('todatetime', ['string', 'datetime', 'dynamic'], 'datetime')],
  ['totimespan', one('totimespan', ['string', 'timespan', 'dynamic'], 'timespan')],
  ...sameNamed(['isnull', 'isnotnull', 'isempty', 'isnotempty'], ANY, 'bool'),
  [
    'coalesce',
    {
      min: 1,
      max: 64,
      bind: (args, node) => call('coalesce', args, unifyTypes(args, node, args.map((_, i) => i))),
    },
  ],
  ...sameNamed(['strlen'], STRINGY, 'long'),
  ...sameNamed(['tolower', 'toupper'], STRINGY, 'string'),
  [
    'substring',
    {
      min: 2,
      max: 3,
      bind: (args, node) =>
        call('substring', [stringArg(args, 0, node), expectArg(args, 1, ['long'], node), ...(args.length > 2 ? [expectArg(args, 2, ['long'], node)] : [])], 'string'),
    },
  ],
  ['strcat', { min: 1, max: 64, bind: (args) => call('strcat', args.map(asString), 'string') }],
  [
    'split',
    {
      min: 2,
      max: 3,
      bind: (args, node) => {
        const parts = call('split', [stringArg(args, 0, node), stringArg(args, 1, node)], 'dynamic');
        if (args.length < 3) return parts;
        return call('dynamic_get', [parts, expectArg(args, 2, ['long'], node)], 'dynamic');
      },
    },
  ],
  [
    'replace_string',
    {
      min: 3,
      max: 3,
      bind: (args, node) => call('replace_string', [stringArg(args, 0, node), stringArg(args, 1, node), stringArg(args, 2, node)], 'string'),
    },
  ],
  [
    'indexof',
    {
      min: 2,
      max: 3,
      bind: (args, node) =>
        call('indexof', [stringArg(args, 0, node), stringArg(args, 1, node), ...(args.length > 2 ? [expectArg(args, 2, ['long'], node)] : [])], 'long'),
    },
  ],
  [
    'extract',
    {
      min: 3,
      max: 3,
      bind: (args, node) => {
        const pattern = stringArg(args, 0, node);
        const group = constantLong(args, 1, node, 'capture group');
        if (group < 0n || group > 99n) fail('invalid_argument', `extract() capture group ${group} is out of range 0–99`, argNode(node, 1));
        return call('extract', [pattern, literal('long', group), stringArg(args, 2, node)], 'string');
      },
    },
  ],
  ['iff', IFF],
  ['iif', IFF],
  [
    'case',
    {
      min: 3,
      max: 129,
      bind: (args, node) => {
        if (args.length % 2 === 0) fail('wrong_arity', 'case() takes condition/value pairs and a final else value: an odd number of arguments', node);
        const values: number[] = [];
        for (let i = 0; i < args.length - 1; i += 2) {
          expectArg(args, i, ['bool'], node);
          values.push(i + 1);
        }
        values.push(args.length - 1);
        return call('case', args, unifyTypes(args, node, values));
      },
    },
  ],
  ['now', { min: 0, max: 0, bind: (_args, _node, context) => literal('datetime', context.now) }],
  [
    'ago',
    {
      min: 1,
      max: 1,
      bind: (args, node, context) => {
        const span = expectArg(args, 0, ['timespan'], node, '; write a timespan such as 1h');
        const value = constantValue(span);
        if (typeof value === 'bigint') return literal('datetime', context.now - value);
        return call('sub', [literal('datetime', context.now), span], 'datetime');
      },
    },
  ],
  [
    'floor',
    {
      min: 1,
      max: 2,
      bind: (args, node) => (args.length === 2 ? bindBin(args, node) : floorOf(args, node)),
    },
  ],
  ...sameNamed(['ceiling'], ['long', 'real'], 'same'),
  [
    'round',
    {
      min: 1,
      max: 2,
      bind: (args, node) => {
        const value = expectArg(args, 0, ['long', 'real'], node);
        return call('round', args.length > 1 ? [value, expectArg(args, 1, ['long'], node)] : [value], value.type);
      },
    },
  ],
  ...sameNamed(['abs'], ['long', 'real', 'timespan'], 'same'),
  ['bin', { min: 2, max: 2, bind: (args, node) => bindBin(args, node) }],
  [
    'bin_auto',
    {
      min: 1,
      max: 1,
      bind: (args, node, context) => {
        const value = expectArg(args, 0, TIMEY, node);
        return call('bin', [value, literal('timespan', binAutoSize(context.range.start, context.range.end))], 'datetime');
      },
    },
  ],
  ...sameNamed(['startofday', 'startofweek', 'startofmonth'], TIMEY, 'datetime'),
  ...sameNamed(['hourofday'], TIMEY, 'long'),
  ...sameNamed(['dayofweek'], TIMEY, 'timespan'),
  [
    'datetime_diff',
    {
      min: 3,
      max: 3,
      bind: (args, node) => {
        const part = expectArg(args, 0, ['string'], node);
        const value = constantValue(part);
        if (typeof value !== 'string' || !DATETIME_DIFF_PARTS.includes(value.toLowerCase())) {
          fail('invalid_argument', `datetime_diff() needs a constant part as argument 1, one of ${DATETIME_DIFF_PARTS.join(', ')}`, argNode(node, 0));
        }
        return call('datetime_diff', [literal('string', value.toLowerCase()), expectArg(args, 1, TIMEY, node), expectArg(args, 2, TIMEY, node)], 'long');
      },
    },
  ],
]);
