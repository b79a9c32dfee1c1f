import { argNode, constantValue, fail, isNumeric } from '../check/context.js';
import type { ScalarType } from '../plan/types.js';
import { toText } from '../sql/convert.js';
import { sqlInteger, sqlReal } from '../sql/quote.js';
import { NUMERIC, ORDERED, SUMMABLE, constantNumber, expectType, nameFor, single } from './helpers.js';
import type { AggregateSite, AggregationDef, BoundArg } from './types.js';

const same = (type: ScalarType): ScalarType => type;

/** `sum`, `avg`, `min`… and their `…if` forms: one value argument of `allowed` types. */
function simple(
  name: string,
  spec: Pick<AggregationDef, 'summary' | 'sql' | 'examples'> & { allowed: readonly ScalarType[]; result: (type: ScalarType) => ScalarType },
): AggregationDef {
  return {
    name,
    syntax: `${name}(expr)`,
    summary: spec.summary,
    min: 1,
    max: 1,
    wire: name,
    conditional: { name: `${name}if`, wire: `${name}if`, predicate: 1 },
    bind: (args, site) => {
      const value = expectType(args, 0, spec.allowed, site);
      return single({ name }, site, args.slice(0, 1), { args: [value], params: [], type: spec.result(value.type) }, nameFor(site.name, args[0]));
    },
    ...(spec.sql ? { sql: spec.sql } : {}),
    examples: spec.examples,
  };
}

function percentileName(prefix: string, field: string | undefined, p: number): string {
  return `${prefix}_${field ?? ''}_${String(p).replace('.', '_')}`;
}

/** percentiles_array's percentiles: numbers after the value, or one constant dynamic array of them. */
function percentilesOf(args: readonly BoundArg[], site: AggregateSite): number[] {
  const first = args[1]?.expr;
  if (args.length === 2 && first?.type === 'dynamic') {
    const value = constantValue(first);
    const list: unknown = typeof value === 'string' ? JSON.parse(value) : undefined;
    if (!Array.isArray(list) || list.length === 0 || !list.every((p) => typeof p === 'number' && p >= 0 && p <= 100)) {
      fail('invalid_argument', `${site.name}() needs a constant array of percentiles between 0 and 100 as argument ${site.position(1) + 1}, such as dynamic([50, 95])`, argNode(site.node, site.position(1)));
    }
    return list as number[];
  }
  return args.slice(1).map((_, i) => constantNumber(args, i + 1, site, 'percentile', 0, 100));
}

const PERCENTILE_TYPES: readonly ScalarType[] = ['long', 'real', 'datetime', 'timespan'];

/** Sums, averages, extremes, spreads, percentiles and histograms. */
export const STATISTICS_AGGREGATIONS: readonly AggregationDef[] = [
  simple('sum', {
    summary: 'The sum of `expr` (0 over no values); integers and timespans stay exact.',
    allowed: SUMMABLE,
    result: (type) => (type === 'real' ? 'real' : type),
    // No values sum to 0 (apl.md: sumif with no matches is 0); int64 sums stay int64.
    sql: (c) => (c.type(0) === 'real' ? `coalesce(sum(${c.arg(0)})${c.filter()}, 0)` : `CAST(coalesce(sum(${c.arg(0)})${c.filter()}, 0) AS BIGINT)`),
    examples: [
      { query: "['sample-http-logs'] | summarize sum(resp_body_size_bytes)", rows: [{ sum_resp_body_size_bytes: 6848 }] },
      { query: "['sample-http-logs'] | summarize sumif(resp_body_size_bytes, method == 'GET')", rows: [{ sumif_resp_body_size_bytes: 6144 }] },
      { query: "['sample-http-logs'] | summarize sumif(req_duration_ms, method == 'PATCH')", rows: [{ sumif_req_duration_ms: 0 }] },
    ],
  }),
  simple('avg', {
    summary: 'The mean of `expr` (null over no values).',
    allowed: SUMMABLE,
    result: (type) => (type === 'timespan' ? 'timespan' : 'real'),
    sql: (c) => (c.type(0) === 'timespan' ? `CAST(round(avg(${c.arg(0)})${c.filter()}) AS BIGINT)` : `avg(${c.arg(0)})${c.filter()}`),
    examples: [
      { query: "['sample-http-logs'] | summarize avg(resp_header_size_bytes)", rows: [{ avg_resp_header_size_bytes: 250 }] },
      { query: "['sample-http-logs'] | summarize avgif(resp_header_size_bytes, is_tls)", rows: [{ avgif_resp_header_size_bytes: 255 }] },
    ],
  }),
  simple('min', {
    summary: 'The smallest value of `expr`.',
    allowed: ORDERED,
    result: same,
    sql: (c) => `min(${c.arg(0)})${c.filter()}`,
    examples: [
      { query: "['sample-http-logs'] | summarize min(req_duration_ms)", rows: [{ min_req_duration_ms: 0.5 }] },
      { query: "['sample-http-logs'] | summarize minif(req_duration_ms, is_tls)", rows: [{ minif_req_duration_ms: 3 }] },
    ],
  }),
  simple('max', {
    summary: 'The largest value of `expr`.',
    allowed: ORDERED,
    result: same,
    sql: (c) => `max(${c.arg(0)})${c.filter()}`,
    examples: [
      { query: "['sample-http-logs'] | summarize max(uri)", rows: [{ max_uri: '/static/app.js' }] },
      { query: "['sample-http-logs'] | summarize maxif(req_duration_ms, method == 'GET')", rows: [{ maxif_req_duration_ms: 12.5 }] },
    ],
  }),
  simple('stdev', {
    summary: 'The sample standard deviation of `expr`; of timespans a timespan.',
    allowed: [...NUMERIC, 'timespan'],
    result: (type) => (type === 'timespan' ? 'timespan' : 'real'),
    sql: (c) => (c.type(0) === 'timespan' ? `CAST(round(stddev_samp(${c.arg(0)})${c.filter()}) AS BIGINT)` : `stddev_samp(${c.arg(0)})${c.filter()}`),
    examples: [
      { query: "['sample-http-logs'] | where method in ('POST', 'DELETE') | summarize stdev(resp_header_size_bytes)", rows: [{ stdev_resp_header_size_bytes: 63.63961030678928 }] },
      { query: "['sample-http-logs'] | where method in ('POST', 'DELETE') | summarize spread = stdev(resp_header_size_bytes * 1ms)", rows: [{ spread: '00:00:00.06363961' }] },
    ],
  }),
  simple('variance', {
    summary: 'The sample variance of `expr` (of timespans in squared nanoseconds).',
    allowed: [...NUMERIC, 'timespan'],
    result: () => 'real',
    sql: (c) => `var_samp(${c.arg(0)})${c.filter()}`,
    examples: [{ query: "['sample-http-logs'] | summarize varianceif(resp_header_size_bytes, method in ('POST', 'DELETE'))", rows: [{ varianceif_resp_header_size_bytes: 4050 }] }],
  }),
  {
    name: 'percentile',
    syntax: 'percentile(expr, percentile)',
    summary: 'The nearest-rank percentile of `expr`: the smallest value with at least `percentile`% of the values at or below it.',
    min: 2,
    max: 2,
    wire: 'percentiles',
    conditional: { name: 'percentileif', wire: 'percentilesif', predicate: 2 },
    bind: (args, site) => {
      const value = expectType(args, 0, PERCENTILE_TYPES, site);
      const p = constantNumber(args, 1, site, 'percentile', 0, 100);
      return single({ name: 'percentile' }, site, args.slice(0, 1), { args: [value], params: [p], type: value.type }, percentileName(site.name, args[0]?.field, p), { aggArgs: [p] });
    },
    // DuckDB's quantile_disc is the nearest-rank percentile: the smallest value with at least p% of values at or below it.
    sql: (c) => `quantile_disc(${c.arg(0)}, ${sqlReal(c.param(0) / 100)})${c.filter()}`,
    examples: [
      { query: "['sample-http-logs'] | summarize percentile(req_duration_ms, 50)", rows: [{ percentile_req_duration_ms_50: 3 }] },
      { query: "['sample-http-logs'] | summarize percentileif(req_duration_ms, 50, is_tls)", rows: [{ percentileif_req_duration_ms_50: 12.5 }] },
    ],
  },
  {
    name: 'percentiles_array',
    syntax: 'percentiles_array(expr, percentile1[, percentile2, …]) or percentiles_array(expr, dynamic([percentile1, …]))',
    summary: 'The nearest-rank percentiles of `expr`, as an array; the conditional form takes them as a dynamic array.',
    min: 2,
    max: 33,
    wire: 'percentiles',
    conditional: { name: 'percentiles_arrayif', wire: 'percentilesif', predicate: 2, max: 3 },
    bind: (args, site) => {
      const value = expectType(args, 0, PERCENTILE_TYPES, site);
      const ps = percentilesOf(args, site);
      return single({ name: 'percentiles_array' }, site, args.slice(0, 1), { args: [value], params: ps, type: 'dynamic' }, nameFor(site.name === 'percentiles_array' ? 'percentiles' : site.name, args[0]), {
        reportedType: 'array',
        aggArgs: ps,
      });
    },
    sql: (c) => {
      const list = `[${c.call.params.map((p) => sqlReal(p / 100)).join(', ')}]`;
      return `CAST(to_json(quantile_disc(${c.arg(0)}, ${list})${c.filter()}) AS VARCHAR)`;
    },
    examples: [
      { query: "['sample-http-logs'] | summarize percentiles_array(resp_body_size_bytes, 50, 100)", rows: [{ percentiles_resp_body_size_bytes: [128, 4096] }] },
      { query: "['sample-http-logs'] | summarize percentiles_array(req_duration_ms, dynamic([50, 100]))", rows: [{ percentiles_req_duration_ms: [3, 950.5] }] },
      { query: "['sample-http-logs'] | summarize percentiles_arrayif(req_duration_ms, dynamic([50, 100]), is_tls)", rows: [{ percentiles_arrayif_req_duration_ms: [12.5, 950.5] }] },
    ],
  },
  {
    name: 'histogram',
    syntax: 'histogram(expr, buckets)',
    summary:
      'Equal-width buckets from the smallest to the largest value, as `[{from, to, count}]` (the largest value in the last bucket; `[]` without values). Exact, where the hosted service estimates.',
    min: 2,
    max: 2,
    wire: 'histogram',
    conditional: { name: 'histogramif', wire: 'histogramif', predicate: 2 },
    bind: (args, site) => {
      const value = expectType(args, 0, [...NUMERIC, 'timespan'], site);
      const buckets = Math.floor(constantNumber(args, 1, site, 'number of buckets', 1, 100));
      return single({ name: 'histogram' }, site, args.slice(0, 1), { args: [value], params: [buckets], type: 'dynamic' }, nameFor(site.name, args[0]), {
        reportedType: 'array',
        aggArgs: [buckets],
      });
    },
    sql: (c) => {
      const buckets = c.param(0);
      const last = sqlInteger(buckets - 1);
      const present = c.filter([`${c.arg(0)} IS NOT NULL`]);
      const value = `CAST(${c.arg(0)} AS DOUBLE)`;
      const low = `min(${value})${present}`;
      const high = `max(${value})${present}`;
      const width = `((${high} - ${low}) / ${sqlInteger(buckets)})`;
      const bucketOf = `CASE WHEN ${high} = ${low} THEN 0 ELSE least(CAST(floor((v - ${low}) / ${width}) AS BIGINT), ${last}) END`;
      const counted = `length(list_filter(list(${value})${present}, v -> ${bucketOf} = i))`;
      // Timespan bounds are shown as timespans are inside dynamic values (`1.5s`).
      const bound = (sql: string): string => (c.type(0) === 'timespan' ? toText(`CAST(round(${sql}) AS BIGINT)`, 'timespan') : sql);
      const list = `list_transform(range(${sqlInteger(buckets)}), i -> {'from': ${bound(`${low} + i * ${width}`)}, 'to': ${bound(`CASE WHEN i = ${last} THEN ${high} ELSE ${low} + (i + 1) * ${width} END`)}, 'count': ${counted}})`;
      return `CASE WHEN count(${c.arg(0)})${c.filter()} = 0 THEN '[]' ELSE CAST(to_json(${list}) AS VARCHAR) END`;
    },
    examples: [
      {
        query: "['sample-http-logs'] | summarize histogram(resp_header_size_bytes, 2)",
        rows: [{ histogram_resp_header_size_bytes: [{ from: 180, to: 245, count: 3 }, { from: 245, to: 310, count: 3 }] }],
      },
      { query: "['sample-http-logs'] | summarize histogramif(resp_header_size_bytes, 3, method == 'PATCH')", rows: [{ histogramif_resp_header_size_bytes: [] }] },
      {
        query: "['sample-http-logs'] | summarize h = histogram(req_duration_ms * 1ms, 2)",
        rows: [{ h: [{ from: '500µs', to: '475.5ms', count: 5 }, { from: '475.5ms', to: '950.5ms', count: 1 }] }],
      },
    ],
  },
  {
    name: 'rate',
    syntax: 'rate(expr)',
    summary: 'The sum of `expr` per second: of each time bin, or of the whole window without one.',
    min: 1,
    max: 1,
    wire: 'rate',
    bind: (args, site) => {
      const value = expectType(args, 0, NUMERIC, site);
      return {
        ...single({ name: 'sum' }, site, args, { args: [value], params: [], type: isNumeric(value.type) ? value.type : 'real' }, nameFor('rate', args[0])),
        perSecond: true,
      };
    },
    examples: [{ query: "['sample-http-logs'] | summarize rate(resp_body_size_bytes)", rows: [{ rate_resp_body_size_bytes: 6848 / 86400 }] }],
  },
];
