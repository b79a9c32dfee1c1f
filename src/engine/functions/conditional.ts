import { fail } from '../check/context.js';
import { anyValue, boolean, expectArg, unifyTypes } from './bind.js';
import type { FunctionDef } from './types.js';

/** Conditional functions (scalar-functions/conditional-function). */
export const CONDITIONAL_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'iff',
    aliases: ['iif'],
    summary: 'The second argument where the condition is true, else the third (a null condition counts as false).',
    params: [boolean('condition'), anyValue('then'), anyValue('else')],
    returns: { of: (args, site) => unifyTypes(args, site, [1, 2]), doc: 'the type of then and else' },
    sql: (c) => `CASE WHEN ${c.arg(0, 'predicate')} THEN ${c.cast(1)} ELSE ${c.cast(2)} END`,
    examples: [
      { apl: 'iff(status == "200", "ok", "not ok")', result: 'ok', type: 'string' },
      { apl: 'iff(req_duration_ms > 100, "slow", "fast")', result: 'fast' },
      { apl: 'iif(bool(null), 1, 2)', result: 2 },
      { apl: 'iff(true, 1, 2.5)', result: 1, type: 'float' },
      { apl: 'iff(true, 1, "one")', error: 'iff() needs arguments of one type, got long and string (argument 3)' },
      { apl: 'iff(1, 2, 3)', error: 'iff() expects a bool as argument 1, got long' },
      {
        query: "['sample-http-logs'] | extend speed = iff(req_duration_ms >= 50, 'slow', 'fast') | summarize count() by speed",
        rows: [
          { speed: 'fast', count_: 4 },
          { speed: 'slow', count_: 2 },
        ],
      },
    ],
  },
  {
    name: 'case',
    summary: 'The value paired with the first true condition, else the last argument.',
    params: [boolean('condition'), anyValue('then'), anyValue('else')],
    variadic: 129,
    returns: {
      of: (args, site) => {
        if (args.length % 2 === 0) fail('wrong_arity', 'case() takes condition/value pairs and a final else value: an odd number of arguments', site.node);
        const values: number[] = [];
        for (let i = 0; i < args.length - 1; i += 2) {
          expectArg(args, i, ['bool'], site);
          values.push(i + 1);
        }
        values.push(args.length - 1);
        return unifyTypes(args, site, values);
      },
      doc: 'the type of the values',
    },
    sql: (c) => {
      const branches: string[] = [];
      for (let i = 0; i + 1 < c.call.args.length; i += 2) branches.push(`WHEN ${c.arg(i, 'predicate')} THEN ${c.cast(i + 1)}`);
      return `CASE ${branches.join(' ')} ELSE ${c.cast(c.call.args.length - 1)} END`;
    },
    examples: [
      { apl: 'case(req_duration_ms < 10, "fast", req_duration_ms < 100, "normal", "slow")', result: 'normal', type: 'string' },
      { apl: 'case(false, 1, false, 2, 3)', result: 3 },
      { apl: 'case(true, 1, 2, 3)', error: 'case() takes condition/value pairs and a final else value: an odd number of arguments' },
      {
        query:
          "['sample-http-logs'] | extend class = case(status startswith '2', 'success', status startswith '3', 'redirect', status startswith '4', 'client error', 'server error') | summarize count() by class",
        rows: [
          { class: 'success', count_: 3 },
          { class: 'client error', count_: 1 },
          { class: 'redirect', count_: 1 },
          { class: 'server error', count_: 1 },
        ],
      },
    ],
  },
];
