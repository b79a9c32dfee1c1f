import { NS_PER } from '../apl/literals.js';
import { argNode, call, constantValue, fail, literal } from '../check/context.js';
import type { Expr, ScalarType } from '../plan/types.js';
import { floorTo } from '../sql/time.js';
import { expectArg, oneOf, sameAs } from './bind.js';
import type { BindSite, FunctionDef } from './types.js';

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

const BINNABLE: readonly ScalarType[] = ['long', 'real', 'datetime', 'timespan'];

/** `bin` and `floor(x, size)`: size must be a positive constant of a type that fits the value's. */
function bindBin(args: readonly Expr[], site: BindSite): Expr {
  const value = expectArg(args, 0, BINNABLE, site);
  const timeLike = value.type === 'datetime' || value.type === 'timespan';
  const size = expectArg(args, 1, timeLike ? ['timespan'] : ['long', 'real'], site, timeLike ? '; write a timespan such as 5m' : '');
  const amount = constantValue(size);
  if (amount === undefined || amount === null || Number(amount) <= 0) {
    fail('invalid_argument', `${site.name}() needs a positive constant bin size as argument 2`, argNode(site.node, 1));
  }
  const type: ScalarType = timeLike || size.type === 'long' ? value.type : 'real';
  return call('bin', [value, size.kind === 'literal' ? size : literal(size.type, amount)], type);
}

const BIN: FunctionDef = {
  name: 'bin',
  summary: 'Rounds down to a multiple of the bin size (a number, or a timespan for datetimes and timespans), below zero too.',
  params: [oneOf('value', BINNABLE), oneOf('roundTo', ['long', 'real', 'timespan'])],
  returns: sameAs(0, 'the type of value (real for a real bin size)'),
  bind: bindBin,
  sql: (c) => {
    if (c.type(0) === 'real' || c.type(1) === 'real') return `(floor(${c.arg(0)} / ${c.arg(1)}) * ${c.arg(1)})`;
    return c.nonNegative(0) ? `(${c.arg(0)} - ${c.arg(0)} % ${c.arg(1)})` : floorTo(c.arg(0), c.arg(1));
  },
  examples: [
    { apl: 'bin(4.5, 1)', result: 4, type: 'float' },
    { apl: 'bin(-7, 4)', result: -8, type: 'integer' },
    { apl: 'bin(datetime(2024-05-01T12:34:56Z), 1h)', result: '2024-05-01T12:00:00Z', type: 'datetime' },
    { apl: 'bin(95m, 1h)', result: '01:00:00' },
    { apl: 'bin(resp_body_size_bytes, 1000)', result: 2000 },
    { apl: 'bin(_time, 5)', error: 'bin() expects a timespan as argument 2, got long; write a timespan such as 5m' },
    { apl: 'bin(10, 0)', error: 'bin() needs a positive constant bin size as argument 2' },
    {
      query: "['sample-http-logs'] | summarize count() by bin(resp_body_size_bytes, 1000)",
      rows: [
        { resp_body_size_bytes: 0, count_: 4 },
        { resp_body_size_bytes: 2000, count_: 1 },
        { resp_body_size_bytes: 4000, count_: 1 },
      ],
    },
  ],
};

/** Rounding functions (scalar-functions/rounding-functions). */
export const ROUNDING_FUNCTIONS: readonly FunctionDef[] = [
  BIN,
  {
    name: 'bin_auto',
    summary: "Rounds a datetime down to a bin size chosen from the query's time range: the smallest step of the ladder giving at most 100 bins.",
    params: [oneOf('value', ['datetime'])],
    returns: 'datetime',
    bind: (args, site) => call('bin', [args[0] as Expr, literal('timespan', binAutoSize(site.context.range.start, site.context.range.end))], 'datetime'),
    examples: [
      {
        query: "['sample-http-logs'] | summarize count() by bin_auto(_time) | summarize buckets = count(), total = sum(count_)",
        rows: [{ buckets: 1, total: 6 }],
      },
    ],
  },
  {
    name: 'floor',
    summary: 'The largest integer not above a number (a long); floor(value, size) is bin(value, size).',
    params: [oneOf('value', BINNABLE), oneOf('roundTo', ['long', 'real', 'timespan'], { optional: true })],
    returns: 'long',
    bind: (args, site) => {
      if (args.length === 2) return bindBin(args, site);
      return call('floor', [expectArg(args, 0, ['long', 'real'], site)], 'long');
    },
    // The reference returns an integer (Kusto keeps the real): a real too large for one is null.
    sql: (c) => (c.type(0) === 'long' ? c.arg(0) : `TRY_CAST(floor(${c.arg(0)}) AS BIGINT)`),
    examples: [
      { apl: 'floor(-2.5)', result: -3, type: 'integer' },
      { apl: 'floor(7)', result: 7, type: 'integer' },
      { apl: 'floor(req_duration_ms, 10)', result: 10, type: 'float' },
      { query: "['sample-http-logs'] | summarize count() by ms = floor(req_duration_ms) | where ms < 4", rows: [{ ms: 0, count_: 1 }, { ms: 1, count_: 1 }, { ms: 3, count_: 1 }] },
    ],
  },
  {
    name: 'ceiling',
    summary: 'The smallest integer not below a number (a long).',
    params: [oneOf('number', ['long', 'real'])],
    returns: 'long',
    sql: (c) => (c.type(0) === 'long' ? c.arg(0) : `TRY_CAST(ceil(${c.arg(0)}) AS BIGINT)`),
    examples: [
      { apl: 'ceiling(1.1)', result: 2, type: 'integer' },
      { apl: 'ceiling(1e300)', result: null },
      { apl: 'ceiling(-1.9)', result: -1 },
      { apl: 'ceiling(4)', result: 4, type: 'integer' },
    ],
  },
];
