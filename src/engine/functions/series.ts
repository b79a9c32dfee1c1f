import type { ScalarType } from '../plan/types.js';
import { reuse } from '../sql/reuse.js';
import { FOURIER_UDF, SERIES_IIR_UDF } from '../sql/udfs.js';
import { boolean, dynamic, oneOf } from './bind.js';
import { jsonElements, jsonText } from './lowering.js';
import type { Example, FunctionDef, SqlCall } from './types.js';

/**
 * Time series functions (scalar-functions/time-series): element-wise arithmetic, statistics
 * and filters over dynamic arrays of numbers, such as `make-series` produces. An array becomes
 * a DuckDB DOUBLE[] (elements that are not numbers become null), is worked on with list
 * functions and lambdas, and goes back as a JSON array in which non-finite results (a division
 * by zero, a logarithm of 0) are null: JSON has no NaN or infinity. A dynamic argument that is
 * not an array makes the result null.
 */

const NUMERIC_JSON = "('BIGINT', 'UBIGINT', 'DOUBLE')";
const SERIES_OR_NUMBER: readonly ScalarType[] = ['dynamic', 'long', 'real'];

/** The elements of a dynamic array as DOUBLE[]; null for anything but an array. */
function numbers(sql: string): string {
  return `list_transform(${jsonElements(sql)}, e -> CASE WHEN json_type(e) IN ${NUMERIC_JSON} THEN TRY_CAST(e AS DOUBLE) END)`;
}

/** A DOUBLE[] as a dynamic array, non-finite values as null. */
function realArray(list: string): string {
  return jsonText(`list_transform(${list}, v -> CASE WHEN isfinite(v) THEN v END)`);
}

/** A real result, null where it is not finite. */
function finite(sql: string): string {
  return reuse(sql, 'fv', (v) => `CASE WHEN isfinite(${v}) THEN ${v} END`);
}

/** `body` given argument `index` as DOUBLE[], computed once per row. */
function withSeries(c: SqlCall, index: number, name: string, body: (series: string) => string): string {
  return reuse(numbers(c.arg(index)), name, body);
}

/** One series function applying `op` to each element (`x`, a DOUBLE). */
function unary(name: string, summary: string, op: (x: string) => string, examples: readonly Example[]): FunctionDef {
  return {
    name,
    summary,
    params: [dynamic('array')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => realArray(`list_transform(${numbers(c.arg(0))}, x -> ${op('x')})`),
    examples,
  };
}

/** The most coefficients a literal filter is written out term by term for; a longer one takes the general lowering. */
const FIR_LITERAL_TERMS = 64;

/**
 * `series_fir` with a literal filter (and literal or absent `normalize` and `center`), the usual
 * case (`dynamic([1, 1, 1, 1, 1])`), as one sum of terms per element: coefficient j times the
 * element it weighs. The general lowering builds, for every element, a list of the filter's
 * products and sums it; for a make-series of 1,440 bins that was half of the query's time, and
 * the sum written out takes about two thirds of it. The coefficients are normalized here as the
 * general lowering does in SQL (a non-number is 0; divided by their sum unless it is 0) and bound
 * as parameters. Undefined for anything else: the general lowering takes it.
 */
function literalFir(c: SqlCall): string | undefined {
  const flag = (index: number, absent: boolean): boolean | undefined => {
    if (c.call.args.length <= index) return absent;
    const value = c.value(index);
    return value === null ? absent : typeof value === 'boolean' ? value : undefined;
  };
  const normalize = flag(2, true);
  const center = flag(3, false);
  const text = c.type(1) === 'dynamic' ? c.value(1) : undefined;
  if (normalize === undefined || center === undefined || typeof text !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > FIR_LITERAL_TERMS) return undefined;
  const filter = parsed.map((value) => (typeof value === 'number' ? value : 0));
  const sum = filter.reduce((total, value) => total + value, 0);
  const scale = normalize && sum !== 0 ? sum : 1;
  const weights = filter.map((value) => value / scale);
  if (!weights.every(Number.isFinite)) return undefined;
  const shift = center ? Math.floor(filter.length / 2) : 0;
  return withSeries(c, 0, 'fx', (x) => {
    // Element i (from 0) weighs coefficient j (from 1) against element i + 1 + shift − j: the SQL
    // index i + shift − j + 2, whose element is 0 where it is null or past the end, and which is
    // guarded only where it can fall below 1 (a DuckDB index below 1 counts from the end).
    const terms = weights.flatMap((weight, position) => {
      if (weight === 0) return [];
      const offset = shift - (position + 1) + 2;
      const at = offset === 0 ? 'i' : offset > 0 ? `i + ${offset}` : `i - ${-offset}`;
      const element = `coalesce(${x}[${at}], 0)`;
      return [`${c.bind(weight, 'real')} * ${offset >= 1 ? element : `CASE WHEN ${at} >= 1 THEN ${element} ELSE 0 END`}`];
    });
    const element = terms.length === 0 ? '0.0' : terms.join(' + ');
    return `CASE WHEN ${x} IS NULL THEN NULL ELSE ${realArray(`list_transform(range(len(${x})), i -> ${element})`)} END`;
  });
}

/**
 * Argument `index` at position `i` (zero-based SQL): an array's element (null past its end) or,
 * for a number, the number itself at every position.
 */
function operand(c: SqlCall, index: number, series: string | undefined, i: string): string {
  return series === undefined ? `CAST(${c.arg(index)} AS DOUBLE)` : `${series}[${i} + 1]`;
}

/**
 * An element-wise function of two operands, each an array or a number. The result has the
 * length of the shorter array (`shorter`) or of the longer, the missing elements null.
 */
function binary(
  name: string,
  summary: string,
  spec: { op: (a: string, b: string) => string; length: 'shorter' | 'longer'; result: 'real' | 'bool'; second?: string },
  examples: readonly Example[],
): FunctionDef {
  return {
    name,
    summary,
    params: [oneOf('series1', SERIES_OR_NUMBER), oneOf(spec.second ?? 'series2', SERIES_OR_NUMBER)],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => elementWise(c, spec),
    examples,
  };
}

function elementWise(c: SqlCall, spec: { op: (a: string, b: string) => string; length: 'shorter' | 'longer'; result: 'real' | 'bool' }): string {
  const isSeries = (index: number): boolean => c.type(index) === 'dynamic';
  const build = (first: string | undefined, second: string | undefined): string => {
    const lengths = [first, second].filter((s): s is string => s !== undefined).map((s) => `len(${s})`);
    // Two numbers make a series of one element.
    const length = lengths.length === 0 ? '1' : lengths.length === 1 ? lengths[0] : `${spec.length === 'shorter' ? 'least' : 'greatest'}(${lengths.join(', ')})`;
    const nulls = [first, second].filter((s): s is string => s !== undefined).map((s) => `${s} IS NULL`);
    const list = `list_transform(range(${length}), i -> ${spec.op(operand(c, 0, first, 'i'), operand(c, 1, second, 'i'))})`;
    const array = spec.result === 'real' ? realArray(list) : jsonText(list);
    return nulls.length === 0 ? array : `CASE WHEN ${nulls.join(' OR ')} THEN NULL ELSE ${array} END`;
  };
  const first = (second: string | undefined): string => (isSeries(0) ? withSeries(c, 0, 's1', (s1) => build(s1, second)) : build(undefined, second));
  return isSeries(1) ? withSeries(c, 1, 's2', (s2) => first(s2)) : first(undefined);
}

/** Pairs of elements of two arrays where both are numbers, up to the shorter length. */
function pairs(a: string, b: string): string {
  return `list_filter(list_transform(range(least(len(${a}), len(${b}))), i -> {'x': ${a}[i + 1], 'y': ${b}[i + 1]}), p -> p.x IS NOT NULL AND p.y IS NOT NULL)`;
}

/** A real computed from two arrays (`series_dot_product`…). */
function twoSeries(c: SqlCall, body: (a: string, b: string) => string): string {
  return withSeries(c, 0, 'sa', (a) => withSeries(c, 1, 'sb', (b) => `CASE WHEN ${a} IS NULL OR ${b} IS NULL THEN NULL ELSE ${body(a, b)} END`));
}

/**
 * The statistics of `series_stats`, in its order: min, min_idx, max, max_idx, avg, variance,
 * stdev. The aggregates skip nulls; the indexes are positions in the series as given.
 */
function statistics(series: string): [string, string][] {
  const min = `list_min(${series})`;
  const max = `list_max(${series})`;
  return [
    ['min', min],
    ['min_idx', `CAST(list_position(${series}, ${min}) - 1 AS DOUBLE)`],
    ['max', max],
    ['max_idx', `CAST(list_position(${series}, ${max}) - 1 AS DOUBLE)`],
    ['avg', `list_avg(${series})`],
    ['variance', `list_var_samp(${series})`],
    ['stdev', `list_stddev_samp(${series})`],
  ];
}

/**
 * For each position of `series`, the position (zero-based) of the nearest non-null element at or
 * before it (`before`) or at or after it (`after`), null when there is none: O(n log n), one
 * sort. The non-null positions P and every position i are sorted together (an i after a P
 * equal to it for `before`, before it for `after`); the number of P sorted ahead of i is then
 * i's sorted place less the positions ahead of it, i itself — and that count picks i's neighbour
 * in P. A search per element would be O(n²): make-series gives series of many thousands.
 */
function nearest(series: string, direction: 'before' | 'after'): string {
  return reuse(`list_filter(range(len(${series})), i -> ${series}[i + 1] IS NOT NULL)`, 'np', (positions) => {
    const kind = direction === 'before' ? 1 : -1;
    const items = `list_concat(list_transform(${positions}, p -> {'p': p, 'k': 0}), list_transform(range(len(${series})), i -> {'p': i, 'k': ${kind}}))`;
    const places = `list_filter(list_transform(list_sort(${items}), (e, j) -> {'k': e.k, 'j': j}), e -> e.k = ${kind})`;
    const ahead = `list_transform(${places}, (e, i) -> e.j - i)`;
    return direction === 'before'
      ? `list_transform(${ahead}, c -> CASE WHEN c > 0 THEN ${positions}[c] END)`
      : `list_transform(${ahead}, c -> ${positions}[c + 1])`;
  });
}

/** Series functions (scalar-functions/time-series). */
export const SERIES_FUNCTIONS: readonly FunctionDef[] = [
  unary('series_abs', 'The absolute value of each element.', (x) => `abs(${x})`, [
    { apl: 'series_abs(dynamic([-10, 15, -20.5, null]))', result: [10, 15, 20.5, null], type: 'array' },
    { apl: "series_abs(dynamic({'a': 1}))", result: null },
  ]),
  unary('series_acos', 'The arc cosine of each element, in radians; null outside [-1, 1].', (x) => `CASE WHEN ${x} BETWEEN -1 AND 1 THEN acos(${x}) END`, [
    { apl: 'series_acos(dynamic([1, 0, 2]))', result: [0, Math.PI / 2, null], type: 'array' },
  ]),
  binary('series_add', 'The element-wise sum of two series (or a series and a number), as long as the shorter series.', { op: (a, b) => `(${a} + ${b})`, length: 'shorter', result: 'real' }, [
    { apl: 'series_add(dynamic([10, 20, 15]), dynamic([5, 10, 7.5]))', result: [15, 30, 22.5], type: 'array' },
    { apl: 'series_add(dynamic([1, 2, 3]), dynamic([1]))', result: [2] },
    { apl: 'series_add(dynamic([1, null, 3]), 10)', result: [11, null, 13] },
  ]),
  unary('series_asin', 'The arc sine of each element, in radians; null outside [-1, 1].', (x) => `CASE WHEN ${x} BETWEEN -1 AND 1 THEN asin(${x}) END`, [
    { apl: 'series_asin(dynamic([0, 1, -2]))', result: [0, Math.PI / 2, null], type: 'array' },
  ]),
  unary('series_atan', 'The arc tangent of each element, in radians.', (x) => `atan(${x})`, [
    { apl: 'series_atan(dynamic([0, 1]))', result: [0, Math.PI / 4], type: 'array' },
  ]),
  unary('series_ceiling', 'Each element rounded up to an integer.', (x) => `ceil(${x})`, [
    { apl: 'series_ceiling(dynamic([1.2, 3.4, -0.8]))', result: [2, 4, -0], type: 'array' },
  ]),
  unary('series_cos', 'The cosine of each element (radians).', (x) => `cos(${x})`, [
    { apl: 'series_cos(dynamic([0, 3.141592653589793]))', result: [1, -1], type: 'array' },
  ]),
  {
    name: 'series_cosine_similarity',
    summary: 'The cosine similarity of two series (up to the shorter length): their dot product over the product of their magnitudes; null when either is all zeros or empty.',
    params: [dynamic('series1'), dynamic('series2')],
    returns: 'real',
    sql: (c) =>
      twoSeries(c, (a, b) =>
        reuse(pairs(a, b), 'pp', (p) => {
          const dot = `list_sum(list_transform(${p}, q -> q.x * q.y))`;
          const norm = (field: string): string => `sqrt(list_sum(list_transform(${p}, q -> q.${field} * q.${field})))`;
          return finite(`${dot} / nullif(${norm('x')} * ${norm('y')}, 0)`);
        }),
      ),
    examples: [
      { apl: 'series_cosine_similarity(dynamic([1, 0]), dynamic([1, 1]))', result: Math.SQRT1_2, type: 'float' },
      { apl: 'series_cosine_similarity(dynamic([1, 2, 3]), dynamic([2, 4, 6]))', result: 1 },
      { apl: 'series_cosine_similarity(dynamic([0, 0]), dynamic([1, 1]))', result: null },
    ],
  },
  binary('series_divide', 'The element-wise quotient of two series (or a series and a number), as long as the shorter series; a division by zero is null.', { op: (a, b) => `(${a} / ${b})`, length: 'shorter', result: 'real' }, [
    { apl: 'series_divide(dynamic([10, 20, 30]), dynamic([2, 0, 4]))', result: [5, null, 7.5], type: 'array' },
    { apl: 'series_divide(dynamic([1, 2]), 4)', result: [0.25, 0.5] },
  ]),
  {
    name: 'series_dot_product',
    summary: 'The dot product of two series, up to the shorter length (elements that are not numbers are skipped).',
    params: [dynamic('series1'), dynamic('series2')],
    returns: 'real',
    sql: (c) => twoSeries(c, (a, b) => `coalesce(list_sum(list_transform(${pairs(a, b)}, q -> q.x * q.y)), 0)`),
    examples: [
      { apl: 'series_dot_product(dynamic([1, 2, 3]), dynamic([4, 5, 6]))', result: 32, type: 'float' },
      { apl: 'series_dot_product(dynamic([1, 2, 3]), dynamic([4]))', result: 4 },
      { apl: 'series_dot_product(dynamic([]), dynamic([]))', result: 0 },
    ],
  },
  binary('series_equals', 'Whether each element equals the corresponding element of the other series (or a number).', { op: (a, b) => `(${a} = ${b})`, length: 'longer', result: 'bool', second: 'value' }, [
    { apl: 'series_equals(dynamic([300, 500, 400]), 500)', result: [false, true, false], type: 'array' },
    { apl: 'series_equals(dynamic([1, 2]), dynamic([1, 3]))', result: [true, false] },
  ]),
  unary('series_exp', 'e raised to each element; null where that overflows.', (x) => `exp(${x})`, [
    { apl: 'series_exp(dynamic([0, 1, 1000]))', result: [1, Math.E, null], type: 'array' },
  ]),
  {
    name: 'series_fft',
    summary: 'The discrete Fourier transform of a series (real part, and optionally imaginary part): an array of two arrays, the real and the imaginary parts.',
    params: [dynamic('x_real'), dynamic('x_imaginary', { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => fourier(c, -1),
    examples: [
      { apl: 'series_fft(dynamic([1, 0, 0, 0]))', result: [[1, 1, 1, 1], [0, 0, 0, 0]], type: 'array' },
      { apl: 'series_fft(dynamic([1, 2, 3, 4]))[0]', result: [10, -2, -2, -2] },
    ],
  },
  {
    name: 'series_fill_backward',
    summary: 'The series with each null element replaced by the next non-null element after it; nulls at the end stay.',
    params: [dynamic('array')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => withSeries(c, 0, 'fb', (s) => reuse(nearest(s, 'after'), 'nb', (next) => realArray(`list_transform(range(len(${s})), i -> ${s}[${next}[i + 1] + 1])`))),
    examples: [
      { apl: 'series_fill_backward(dynamic([null, 150, null, 250, null]))', result: [150, 150, 250, 250, null], type: 'array' },
      { apl: 'series_fill_backward(dynamic([100, null, null, 400]))', result: [100, 400, 400, 400] },
    ],
  },
  {
    name: 'series_fill_const',
    summary: 'The series with each null element (and each element equal to `missing_value_placeholder`, if given) replaced by `constant_value`.',
    params: [dynamic('array'), oneOf('constant_value', ['long', 'real']), oneOf('missing_value_placeholder', ['long', 'real'], { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => {
      const missing = c.call.args.length > 2 ? ` OR x = ${c.arg(2)}` : '';
      return realArray(`list_transform(${numbers(c.arg(0))}, x -> CASE WHEN x IS NULL${missing} THEN CAST(${c.arg(1)} AS DOUBLE) ELSE x END)`);
    },
    examples: [
      { apl: 'series_fill_const(dynamic([null, 150, null, 250]), 0)', result: [0, 150, 0, 250], type: 'array' },
      { apl: 'series_fill_const(dynamic([1, -1, 3]), 2.5, -1)', result: [1, 2.5, 3] },
    ],
  },
  {
    name: 'series_fill_forward',
    summary: 'The series with each null element replaced by the last non-null element before it; nulls at the start stay.',
    params: [dynamic('array')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => withSeries(c, 0, 'ff', (s) => reuse(nearest(s, 'before'), 'nf', (previous) => realArray(`list_transform(range(len(${s})), i -> ${s}[${previous}[i + 1] + 1])`))),
    examples: [
      { apl: 'series_fill_forward(dynamic([150, null, null, 250]))', result: [150, 150, 150, 250], type: 'array' },
      { apl: 'series_fill_forward(dynamic([null, 100, null, 400]))', result: [null, 100, 100, 400] },
    ],
  },
  {
    name: 'series_fill_linear',
    summary: 'The series with null elements interpolated linearly between the non-null elements around them; nulls at either end take the nearest value.',
    params: [dynamic('array')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) =>
      withSeries(c, 0, 'fl', (s) =>
        reuse(nearest(s, 'before'), 'nf', (previous) =>
          reuse(nearest(s, 'after'), 'nb', (next) => {
            const [a, b] = [`${previous}[i + 1]`, `${next}[i + 1]`];
            const between = `${s}[${a} + 1] + (${s}[${b} + 1] - ${s}[${a} + 1]) * (i - ${a}) / (${b} - ${a})`;
            // Where the element is not null both neighbours are the element itself.
            const element = `CASE WHEN ${a} IS NOT NULL AND ${b} IS NOT NULL AND ${a} <> ${b} THEN ${between} ELSE coalesce(${s}[${a} + 1], ${s}[${b} + 1]) END`;
            return realArray(`list_transform(range(len(${s})), i -> ${element})`);
          }),
        ),
      ),
    examples: [
      { apl: 'series_fill_linear(dynamic([100, null, null, 250]))', result: [100, 150, 200, 250], type: 'array' },
      { apl: 'series_fill_linear(dynamic([null, 200, null, 400, null]))', result: [200, 200, 300, 400, 400] },
    ],
  },
  {
    name: 'series_fir',
    summary:
      'A finite impulse response filter: each element the sum of `filter`’s coefficients times the elements up to it (values before the start are 0); `normalize` (default true) divides by the coefficients’ sum, `center` centres the filter on the element.',
    params: [dynamic('array'), dynamic('filter'), boolean('normalize', { optional: true }), boolean('center', { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => {
      const unrolled = literalFir(c);
      if (unrolled !== undefined) return unrolled;
      const normalize = c.call.args.length > 2 ? `coalesce(${c.arg(2)}, true)` : 'true';
      const center = c.call.args.length > 3 ? `coalesce(${c.arg(3)}, false)` : 'false';
      return withSeries(c, 0, 'fx', (x) =>
        withSeries(c, 1, 'ff', (f) => {
          // The filter normalized and its offset, once per row rather than once per element.
          const scale = `CASE WHEN ${normalize} AND list_sum(${f}) <> 0 THEN list_sum(${f}) ELSE 1 END`;
          const prepared = `{'w': list_transform(${f}, v -> coalesce(v, 0) / ${scale}), 's': CASE WHEN ${center} THEN len(${f}) // 2 ELSE 0 END}`;
          return reuse(prepared, 'fp', (filter) => {
            const at = `i - j + 1 + ${filter}.s`;
            const term = `w * CASE WHEN ${at} >= 0 AND ${at} < len(${x}) THEN coalesce(${x}[${at} + 1], 0) ELSE 0 END`;
            const element = `list_sum(list_transform(${filter}.w, (w, j) -> ${term}))`;
            return `CASE WHEN ${x} IS NULL OR ${f} IS NULL THEN NULL ELSE ${realArray(`list_transform(range(len(${x})), i -> ${element})`)} END`;
          });
        }),
      );
    },
    examples: [
      { apl: 'series_fir(dynamic([1, 2, 3, 4, 5, 5, 5]), dynamic([1, 1, 1, 1, 1]), true, true)', result: [1.2, 2, 3, 3.8, 4.4, 3.8, 3], type: 'array' },
      { apl: 'series_fir(dynamic([100, 120, 110, 130]), dynamic([1, -1]))', result: [100, 20, -10, 20] },
      { apl: 'series_fir(dynamic([2, 4, 6]), dynamic([1, 1]))', result: [1, 3, 5] },
      // A computed filter takes the general lowering; a literal one the written-out sum: the same answers.
      { apl: 'series_fir(dynamic([1, 2, 3, 4, 5, 5, 5]), pack_array(1, 1, 1, 1, 1), true, true)', result: [1.2, 2, 3, 3.8, 4.4, 3.8, 3] },
      { apl: 'series_fir(dynamic([100, 120, 110, 130]), pack_array(1, -1))', result: [100, 20, -10, 20] },
      { apl: 'series_fir(dynamic([2, null, 6, 8]), dynamic([1, "x", 2]), false)', result: [2, 0, 10, 8] },
      { apl: 'series_fir(dynamic([2, null, 6, 8]), pack_array(1, "x", 2), false)', result: [2, 0, 10, 8] },
      { apl: 'series_fir(dynamic([1, 2, 3, 4]), dynamic([1, 2, 3, 4]), false, true)', result: [10, 20, 25, 24] },
      { apl: 'series_fir(dynamic([1, 2, 3, 4]), pack_array(1, 2, 3, 4), false, true)', result: [10, 20, 25, 24] },
      { apl: 'series_fir(dynamic([1, 2]), dynamic([0, 0]))', result: [0, 0] },
      { apl: 'series_fir(dynamic([1, 2]), dynamic([]))', result: [null, null] },
      {
        query: "['sample-http-logs'] | make-series n = count() default = 0 on _time from datetime(2024-05-01T12:00:00Z) to datetime(2024-05-01T12:00:06Z) step 1s | project smooth = series_fir(n, dynamic([1, 1]))",
        rows: [{ smooth: [0.5, 1, 1, 1, 1, 1] }],
      },
    ],
  },
  unary('series_floor', 'Each element rounded down to an integer.', (x) => `floor(${x})`, [
    { apl: 'series_floor(dynamic([150.7, -200.3]))', result: [150, -201], type: 'array' },
  ]),
  binary('series_greater', 'Whether each element is greater than the corresponding element of the other series (or a number).', { op: (a, b) => `(${a} > ${b})`, length: 'longer', result: 'bool' }, [
    { apl: 'series_greater(dynamic([1, 2, 3]), dynamic([2, 2, 2]))', result: [false, false, true], type: 'array' },
    { apl: 'series_greater(dynamic([1, 5]), 2)', result: [false, true] },
  ]),
  binary('series_greater_equals', 'Whether each element is greater than or equal to the corresponding element of the other series (or a number).', { op: (a, b) => `(${a} >= ${b})`, length: 'longer', result: 'bool' }, [
    { apl: 'series_greater_equals(dynamic([2, 4, 6]), dynamic([1, 4, 10]))', result: [true, true, false], type: 'array' },
  ]),
  {
    name: 'series_ifft',
    summary: 'The inverse discrete Fourier transform of a series (real part, and optionally imaginary part): an array of two arrays, the real and the imaginary parts.',
    params: [dynamic('fft_real'), dynamic('fft_imaginary', { optional: true })],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => fourier(c, 1),
    examples: [
      { apl: 'series_ifft(dynamic([10, -2, -2, -2]), dynamic([0, 2, 0, -2]))[0]', result: [1, 2, 3, 4] },
      { apl: 'series_ifft(dynamic([4, 0, 0, 0]))', result: [[1, 1, 1, 1], [0, 0, 0, 0]], type: 'array' },
    ],
  },
  {
    name: 'series_iir',
    summary:
      'An infinite impulse response filter: y[n] = (Σ numerator[i]·x[n−i] − Σ denominator[j]·y[n−j], j ≥ 1) / denominator[0], values before the start being 0.',
    params: [dynamic('array'), dynamic('numerator'), dynamic('denominator')],
    returns: 'dynamic',
    reported: 'array',
    // One pass in JavaScript (see SERIES_IIR_UDF): in SQL the recursion is a quadratic fold.
    sql: (c) =>
      withSeries(c, 0, 'ix', (x) =>
        withSeries(c, 1, 'ib', (b) =>
          withSeries(c, 2, 'ia', (a) => `CASE WHEN ${x} IS NULL OR ${b} IS NULL OR ${a} IS NULL THEN NULL ELSE ${realArray(`${SERIES_IIR_UDF}(${x}, ${b}, ${a})`)} END`),
        ),
      ),
    examples: [
      { apl: 'series_iir(dynamic([1, 1, 1, 1]), dynamic([1]), dynamic([1, -1]))', result: [1, 2, 3, 4], type: 'array' },
      { apl: 'series_iir(dynamic([2, 4, 6]), dynamic([0.5, 0.5]), dynamic([1]))', result: [1, 3, 5] },
    ],
  },
  binary('series_less', 'Whether each element is less than the corresponding element of the other series (or a number).', { op: (a, b) => `(${a} < ${b})`, length: 'longer', result: 'bool' }, [
    { apl: 'series_less(dynamic([1, 2, 3]), dynamic([2, 2, 2]))', result: [true, false, false], type: 'array' },
  ]),
  binary('series_less_equals', 'Whether each element is less than or equal to the corresponding element of the other series (or a number).', { op: (a, b) => `(${a} <= ${b})`, length: 'longer', result: 'bool' }, [
    { apl: 'series_less_equals(dynamic([1, 2, 3]), dynamic([2, 2, 2]))', result: [true, true, false], type: 'array' },
  ]),
  unary('series_log', 'The natural logarithm of each element; null for 0 and below.', (x) => `CASE WHEN ${x} > 0 THEN ln(${x}) END`, [
    { apl: 'series_log(dynamic([1, 2.718281828459045, 0, -1]))', result: [0, 1, null, null], type: 'array' },
  ]),
  {
    name: 'series_magnitude',
    summary: 'The Euclidean norm of a series: the square root of the sum of its squared elements (0 for an empty series).',
    params: [dynamic('array')],
    returns: 'real',
    sql: (c) => finite(`sqrt(coalesce(list_sum(list_transform(${numbers(c.arg(0))}, x -> x * x)), 0))`),
    examples: [
      { apl: 'series_magnitude(dynamic([3, 4]))', result: 5, type: 'float' },
      { apl: 'series_magnitude(dynamic([]))', result: 0 },
    ],
  },
  binary('series_max', 'The larger of each element and the corresponding element of the other series (or a number).', { op: (a, b) => `CASE WHEN ${a} IS NOT NULL AND ${b} IS NOT NULL THEN greatest(${a}, ${b}) END`, length: 'longer', result: 'real' }, [
    { apl: 'series_max(dynamic([120, 150, 100]), dynamic([180, 130, 190]))', result: [180, 150, 190], type: 'array' },
  ]),
  binary('series_min', 'The smaller of each element and the corresponding element of the other series (or a number).', { op: (a, b) => `CASE WHEN ${a} IS NOT NULL AND ${b} IS NOT NULL THEN least(${a}, ${b}) END`, length: 'longer', result: 'real' }, [
    { apl: 'series_min(dynamic([120, 150, 100]), dynamic([180, 130, 190]))', result: [120, 130, 100], type: 'array' },
  ]),
  binary('series_multiply', 'The element-wise product of two series (or a series and a number), as long as the longer series; missing elements are null.', { op: (a, b) => `(${a} * ${b})`, length: 'longer', result: 'real' }, [
    { apl: 'series_multiply(dynamic([50, 55, 48]), dynamic([1.0, 3.0, 2.0]))', result: [50, 165, 96], type: 'array' },
    { apl: 'series_multiply(dynamic([1, 2, 3]), dynamic([2]))', result: [2, null, null] },
  ]),
  binary('series_not_equals', 'Whether each element differs from the corresponding element of the other series (or a number).', { op: (a, b) => `(${a} <> ${b})`, length: 'longer', result: 'bool' }, [
    { apl: 'series_not_equals(dynamic([1, 2, 3]), dynamic([1, 5, 3]))', result: [false, true, false], type: 'array' },
  ]),
  {
    name: 'series_pearson_correlation',
    summary: 'The Pearson correlation coefficient of two series (pairs up to the shorter length where both are numbers), from -1 to 1; null when either does not vary.',
    params: [dynamic('series1'), dynamic('series2')],
    returns: 'real',
    sql: (c) =>
      twoSeries(c, (a, b) =>
        reuse(pairs(a, b), 'pp', (p) =>
          reuse(`{'mx': list_avg(list_transform(${p}, q -> q.x)), 'my': list_avg(list_transform(${p}, q -> q.y))}`, 'mm', (m) => {
            const sum = (expr: string): string => `list_sum(list_transform(${p}, q -> ${expr}))`;
            const covariance = sum(`(q.x - ${m}.mx) * (q.y - ${m}.my)`);
            const spread = `sqrt(${sum(`(q.x - ${m}.mx) * (q.x - ${m}.mx)`)} * ${sum(`(q.y - ${m}.my) * (q.y - ${m}.my)`)})`;
            return finite(`${covariance} / nullif(${spread}, 0)`);
          }),
        ),
      ),
    examples: [
      { apl: 'series_pearson_correlation(dynamic([1, 2, 3, 4]), dynamic([2, 4, 6, 8]))', result: 1, type: 'float' },
      { apl: 'series_pearson_correlation(dynamic([1, 2, 3]), dynamic([3, 2, 1]))', result: -1 },
      { apl: 'series_pearson_correlation(dynamic([1, 2, 3]), dynamic([1, 3, 2]))', result: 0.5 },
      { apl: 'series_pearson_correlation(dynamic([1, 1]), dynamic([1, 2]))', result: null },
    ],
  },
  binary('series_pow', 'Each element raised to `power` (or to the corresponding element of another series); null where the result is not a real number.', { op: (a, b) => `pow(${a}, ${b})`, length: 'longer', result: 'real', second: 'power' }, [
    { apl: 'series_pow(dynamic([2, 3, -8]), 2)', result: [4, 9, 64], type: 'array' },
    { apl: 'series_pow(dynamic([4, -4]), 0.5)', result: [2, null] },
  ]),
  unary('series_sign', 'The sign of each element: -1, 0 or 1.', (x) => `sign(${x})`, [
    { apl: 'series_sign(dynamic([-5, 0, 2.5]))', result: [-1, 0, 1], type: 'array' },
  ]),
  unary('series_sin', 'The sine of each element (radians).', (x) => `sin(${x})`, [
    { apl: 'series_sin(dynamic([0, 1.5707963267948966]))', result: [0, 1], type: 'array' },
  ]),
  {
    name: 'series_stats',
    summary: 'The statistics of a series as an array: [min, min_idx, max, max_idx, avg, variance, stdev] (sample variance and deviation; indexes zero-based, of the first occurrence).',
    params: [dynamic('array')],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => withSeries(c, 0, 'st', (s) => `CASE WHEN ${s} IS NOT NULL THEN ${realArray(`[${statistics(s).map(([, sql]) => sql).join(', ')}]`)} END`),
    examples: [
      { apl: 'series_stats(dynamic([4, 1, 7, 7, null]))', result: [1, 1, 7, 2, 4.75, 8.25, Math.sqrt(8.25)], type: 'array' },
      { apl: 'series_stats(dynamic([]))', result: [null, null, null, null, null, null, null] },
    ],
  },
  {
    name: 'series_stats_dynamic',
    summary: 'The statistics of a series as a property bag: min, min_idx, max, max_idx, avg, variance, stdev (as `series_stats`).',
    params: [dynamic('array')],
    returns: 'dynamic',
    reported: 'object',
    sql: (c) =>
      withSeries(c, 0, 'st', (s) => {
        const fields = statistics(s).map(([name, sql]) => `'${name}', ${finite(sql)}`);
        return `CASE WHEN ${s} IS NOT NULL THEN CAST(json_object(${fields.join(', ')}) AS VARCHAR) END`;
      }),
    examples: [
      { apl: 'series_stats_dynamic(dynamic([4, 1, 7]))', result: { min: 1, min_idx: 1, max: 7, max_idx: 2, avg: 4, variance: 9, stdev: 3 }, type: 'object' },
      { apl: "series_stats_dynamic(dynamic([4, 1, 7]))['max_idx']", result: 2 },
    ],
  },
  binary('series_subtract', 'The element-wise difference of two series (or a series and a number), as long as the longer series; missing elements are null.', { op: (a, b) => `(${a} - ${b})`, length: 'longer', result: 'real' }, [
    { apl: 'series_subtract(dynamic([46, 51, 49]), dynamic([45, 50, 48]))', result: [1, 1, 1], type: 'array' },
    { apl: 'series_subtract(dynamic([10, 20]), 5)', result: [5, 15] },
  ]),
  {
    name: 'series_sum',
    summary: 'The sum of the numeric elements of a series (0 for an empty series).',
    params: [dynamic('array')],
    returns: 'real',
    sql: (c) => reuse(numbers(c.arg(0)), 'ss', (s) => `CASE WHEN ${s} IS NOT NULL THEN coalesce(${finite(`list_sum(${s})`)}, 0) END`),
    examples: [
      { apl: 'series_sum(dynamic([100, 300, 50]))', result: 450, type: 'float' },
      { apl: 'series_sum(dynamic([]))', result: 0 },
      { query: "['sample-http-logs'] | summarize sizes = make_list(resp_body_size_bytes) | project total = series_sum(sizes)", rows: [{ total: 6848 }] },
    ],
  },
  unary('series_tan', 'The tangent of each element (radians).', (x) => `tan(${x})`, [
    { apl: 'series_tan(dynamic([0, 0.7853981633974483]))', result: [0, 1], type: 'array' },
  ]),
];

/**
 * The discrete Fourier transform (`sign` -1) or its inverse (`sign` 1, divided by the length)
 * of a complex series given as real and imaginary parts, computed directly: O(n²).
 */
function fourier(c: SqlCall, sign: -1 | 1): string {
  // An FFT in JavaScript (see FOURIER_UDF): in SQL only the O(n²) defining sum can be written.
  return withSeries(c, 0, 're', (re) => {
    const body = (im: string): string => {
      const both = `${FOURIER_UDF}(${re}, ${im}, ${sign})`;
      return reuse(both, 'ft', (ft) => `CASE WHEN ${re} IS NULL THEN NULL ELSE concat('[', ${realArray(`list_slice(${ft}, 1, len(${re}))`)}, ',', ${realArray(`list_slice(${ft}, len(${re}) + 1, 2 * len(${re}))`)}, ']') END`);
    };
    // A missing or null imaginary part is zeros.
    return c.call.args.length > 1 ? withSeries(c, 1, 'im', (im) => body(`coalesce(${im}, CAST([] AS DOUBLE[]))`)) : body('CAST([] AS DOUBLE[])');
  });
}
