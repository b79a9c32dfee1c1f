import { ORDERED, expectType, nameFor, single } from './helpers.js';
import type { AggregationDef } from './types.js';

/** Counting aggregations. */
export const COUNT_AGGREGATIONS: readonly AggregationDef[] = [
  {
    name: 'count',
    syntax: 'count([expr])',
    summary: 'The number of rows, or of rows where `expr` is not null.',
    min: 0,
    max: 1,
    wire: 'count',
    conditional: { name: 'countif', wire: 'countif', predicate: 0, max: 1 },
    bind: (args, site) => single({ name: 'count' }, site, args, { args: args.map((arg) => arg.expr), params: [], type: 'long' }, `${site.name}_`),
    sql: (c) => (c.call.args.length > 0 ? `count(${c.arg(0)})${c.filter()}` : `count(*)${c.filter()}`),
    examples: [
      { query: "['sample-http-logs'] | summarize count()", rows: [{ count_: 6 }] },
      { query: "['sample-http-logs'] | summarize count(message)", rows: [{ count_: 5 }] },
      { query: "['sample-http-logs'] | summarize countif(status == '200')", rows: [{ countif_: 2 }] },
    ],
  },
  {
    name: 'dcount',
    syntax: 'dcount(expr[, accuracy])',
    summary: 'The number of distinct values of `expr` (exact; the accuracy argument is accepted and ignored).',
    min: 1,
    max: 2,
    wire: 'distinct',
    conditional: { name: 'dcountif', wire: 'distinctif', predicate: 1 },
    bind: (args, site) => {
      const value = expectType(args, 0, [...ORDERED, 'dynamic'], site);
      return single({ name: 'dcount' }, site, args.slice(0, 1), { args: [value], params: [], type: 'long' }, nameFor(site.name, args[0]));
    },
    sql: (c) => `count(DISTINCT ${c.arg(0)})${c.filter()}`,
    examples: [
      { query: "['sample-http-logs'] | summarize dcount(method)", rows: [{ dcount_method: 4 }] },
      { query: "['sample-http-logs'] | summarize dcountif(method, is_tls)", rows: [{ dcountif_method: 4 }] },
      { query: "['sample-http-logs'] | summarize dcountif(server_datacenter, status == '200')", rows: [{ dcountif_server_datacenter: 1 }] },
    ],
  },
];
