import { call } from '../check/context.js';
import type { Expr } from '../plan/types.js';
import { boolean, integer, oneOf, sameAs } from './bind.js';
import type { FunctionDef } from './types.js';

/** Mathematical functions (scalar-functions/mathematical-functions). */
export const MATH_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'abs',
    summary: 'The absolute value of a number or a timespan.',
    params: [oneOf('x', ['long', 'real', 'timespan'])],
    returns: sameAs(0),
    sql: (c) => `abs(${c.arg(0)})`,
    examples: [
      { apl: 'abs(-5)', result: 5, type: 'integer' },
      { apl: 'abs(-2.5)', result: 2.5, type: 'float' },
      { apl: 'abs(-90m)', result: '01:30:00', type: 'timespan' },
    ],
  },
  {
    name: 'round',
    summary: 'A number rounded half away from zero, to `precision` decimal places (0 by default).',
    params: [oneOf('number', ['long', 'real']), integer('precision', { optional: true })],
    returns: sameAs(0),
    sql: (c) => (c.call.args.length > 1 ? `round(${c.arg(0)}, CAST(${c.arg(1)} AS INTEGER))` : `round(${c.arg(0)})`),
    examples: [
      { apl: 'round(2.5)', result: 3, type: 'float' },
      { apl: 'round(-2.5)', result: -3 },
      { apl: 'round(1.2345, 2)', result: 1.23 },
      { apl: 'round(req_duration_ms)', result: 13 },
    ],
  },
  {
    name: 'not',
    summary: 'The negation of a bool.',
    params: [boolean('expr')],
    returns: 'bool',
    bind: (args) => call('not', args as Expr[], 'bool'),
    examples: [
      { apl: 'not(true)', result: false, type: 'boolean' },
      { apl: 'not(status == "500")', result: true },
      { apl: 'not(bool(null))', result: null },
    ],
  },
];
