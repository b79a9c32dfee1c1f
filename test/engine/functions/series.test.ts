import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, expectClose, runQuery, useExampleStore } from '../helpers/examples.js';
import { tableRows } from '../helpers/reference.js';

/**
 * Time series functions beyond their registry examples: generated series (with gaps) through
 * every function at once, against the same computation written in plain JavaScript; lengths,
 * nulls, non-finite results and result types.
 */

const store = useExampleStore();
const value = async (apl: string): Promise<unknown> => (await evaluate(store, apl)).value;

type Series = (number | null)[];

const SERIES: Series[] = fc.sample(fc.array(fc.oneof({ weight: 4, arbitrary: fc.integer({ min: -50, max: 50 }) }, { weight: 1, arbitrary: fc.constant(null) }), { minLength: 1, maxLength: 12 }), {
  numRuns: 30,
  seed: 41,
});
const OTHERS: number[][] = fc.sample(fc.array(fc.integer({ min: -9, max: 9 }), { minLength: 1, maxLength: 12 }), { numRuns: 30, seed: 43 });
const KERNELS: number[][] = fc.sample(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 4 }), { numRuns: 30, seed: 47 });

const at = (s: Series, i: number): number | null => s[i] ?? null;
const present = (s: Series): number[] => s.filter((x): x is number => x !== null);
const finite = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? null : x);

function fillForward(s: Series): Series {
  let last: number | null = null;
  return s.map((x) => (x === null ? last : (last = x)));
}
function fillBackward(s: Series): Series {
  return fillForward([...s].reverse()).reverse();
}
function fillLinear(s: Series): Series {
  return s.map((x, i) => {
    if (x !== null) return x;
    let a = i;
    while (a >= 0 && s[a] === null) a--;
    let b = i;
    while (b < s.length && s[b] === null) b++;
    const left = a >= 0 ? (s[a] as number) : null;
    const right = b < s.length ? (s[b] as number) : null;
    if (left !== null && right !== null) return left + ((right - left) * (i - a)) / (b - a);
    return left ?? right;
  });
}
function fir(s: Series, kernel: number[], normalize: boolean, center: boolean): Series {
  const total = kernel.reduce((sum, k) => sum + k, 0);
  const scale = normalize && total !== 0 ? total : 1;
  const shift = center ? Math.floor(kernel.length / 2) : 0;
  return s.map((_, i) => finite(kernel.reduce((sum, k, j) => sum + k * (at(s, i - j + shift) ?? 0) * (i - j + shift >= 0 ? 1 : 0), 0) / scale));
}
function iir(s: Series, b: number[], a: number[]): Series {
  const y: number[] = [];
  s.forEach((_, n) => {
    let forward = 0;
    b.forEach((coefficient, k) => (forward += n - k >= 0 ? coefficient * (at(s, n - k) ?? 0) : 0));
    let feedback = 0;
    for (let k = 1; k < a.length; k++) feedback += n - k >= 0 ? (a[k] ?? 0) * (y[n - k] ?? 0) : 0;
    y.push((forward - feedback) / (a[0] as number));
  });
  return y.map(finite);
}
function stats(s: Series): (number | null)[] {
  const xs = present(s);
  if (xs.length === 0) return [null, null, null, null, null, null, null];
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  const avg = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const variance = xs.length > 1 ? xs.reduce((sum, x) => sum + (x - avg) ** 2, 0) / (xs.length - 1) : null;
  return [min, s.indexOf(min), max, s.indexOf(max), avg, variance, variance === null ? null : Math.sqrt(variance)];
}
function pairs(a: Series, b: Series): [number, number][] {
  return a.slice(0, Math.min(a.length, b.length)).flatMap((x, i) => (x !== null && b[i] !== null && b[i] !== undefined ? [[x, b[i]] as [number, number]] : []));
}
function pearson(a: Series, b: Series): number | null {
  const ps = pairs(a, b);
  const mx = ps.reduce((s, [x]) => s + x, 0) / ps.length;
  const my = ps.reduce((s, [, y]) => s + y, 0) / ps.length;
  const cov = ps.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const spread = Math.sqrt(ps.reduce((s, [x]) => s + (x - mx) ** 2, 0) * ps.reduce((s, [, y]) => s + (y - my) ** 2, 0));
  return spread === 0 || ps.length === 0 ? null : finite(cov / spread);
}
function cosine(a: Series, b: Series): number | null {
  const ps = pairs(a, b);
  const norm = Math.sqrt(ps.reduce((s, [x]) => s + x * x, 0)) * Math.sqrt(ps.reduce((s, [, y]) => s + y * y, 0));
  return norm === 0 ? null : ps.reduce((s, [x, y]) => s + x * y, 0) / norm;
}
/** An element-wise operation as long as the shorter (`min`) or the longer (`max`) series, missing elements null. */
function zip(a: Series, b: Series, length: 'min' | 'max', op: (x: number, y: number) => number | boolean): (number | boolean | null)[] {
  return Array.from({ length: Math[length](a.length, b.length) }, (_, i) => {
    const x = at(a, i);
    const y = at(b, i);
    if (x === null || y === null) return null;
    const result = op(x, y);
    return typeof result === 'number' ? finite(result) : result;
  });
}
function dft(re: number[], sign: -1 | 1): [number[], number[]] {
  const n = re.length;
  const real = re.map((_, k) => re.reduce((s, x, t) => s + x * Math.cos((sign * 2 * Math.PI * k * t) / n), 0) / (sign === 1 ? n : 1));
  const imag = re.map((_, k) => re.reduce((s, x, t) => s + x * Math.sin((sign * 2 * Math.PI * k * t) / n), 0) / (sign === 1 ? n : 1));
  return [real, imag];
}

describe('against JavaScript, on generated series', () => {
  it.each(SERIES.map((series, i) => [JSON.stringify(series), series, OTHERS[i] ?? [1], KERNELS[i] ?? [1]] as const))('%s', async (_label, s, other, kernel) => {
    const x = `dynamic(${JSON.stringify(s)})`;
    const y = `dynamic(${JSON.stringify(other)})`;
    const k = `dynamic(${JSON.stringify(kernel)})`;
    const denominator = [kernel[0] === 0 ? 1 : (kernel[0] as number), ...kernel.slice(1).map((c) => c / 4)];
    const calls: Record<string, [string, unknown]> = {
      forward: [`series_fill_forward(${x})`, fillForward(s)],
      backward: [`series_fill_backward(${x})`, fillBackward(s)],
      linear: [`series_fill_linear(${x})`, fillLinear(s)],
      constant: [`series_fill_const(${x}, 0.5)`, s.map((v) => v ?? 0.5)],
      fir: [`series_fir(${x}, ${k})`, fir(s, kernel, true, false)],
      firCentered: [`series_fir(${x}, ${k}, false, true)`, fir(s, kernel, false, true)],
      iir: [`series_iir(${x}, ${k}, dynamic(${JSON.stringify(denominator)}))`, iir(s, kernel, denominator)],
      stats: [`series_stats(${x})`, stats(s)],
      sum: [`series_sum(${x})`, present(s).reduce((sum, v) => sum + v, 0)],
      magnitude: [`series_magnitude(${x})`, Math.sqrt(present(s).reduce((sum, v) => sum + v * v, 0))],
      dot: [`series_dot_product(${x}, ${y})`, pairs(s, other).reduce((sum, [a, b]) => sum + a * b, 0)],
      cosine: [`series_cosine_similarity(${x}, ${y})`, cosine(s, other)],
      pearson: [`series_pearson_correlation(${x}, ${y})`, pearson(s, other)],
      add: [`series_add(${x}, ${y})`, zip(s, other, 'min', (a, b) => a + b)],
      divide: [`series_divide(${x}, ${y})`, zip(s, other, 'min', (a, b) => a / b)],
      multiply: [`series_multiply(${x}, ${y})`, zip(s, other, 'max', (a, b) => a * b)],
      subtract: [`series_subtract(${x}, ${y})`, zip(s, other, 'max', (a, b) => a - b)],
      greater: [`series_greater(${x}, ${y})`, zip(s, other, 'max', (a, b) => a > b)],
      lessEquals: [`series_less_equals(${x}, 0)`, s.map((v) => (v === null ? null : v <= 0))],
      maximum: [`series_max(${x}, ${y})`, zip(s, other, 'max', Math.max)],
      pow: [`series_pow(${x}, 2)`, s.map((v) => (v === null ? null : v * v))],
      sign: [`series_sign(${x})`, s.map((v) => (v === null ? null : Math.sign(v) + 0))],
      log: [`series_log(${x})`, s.map((v) => (v === null || v <= 0 ? null : Math.log(v)))],
      fft: [`series_fft(${y})`, dft(other, -1)],
      ifft: [`series_ifft(${y})`, dft(other, 1)],
    };
    const names = Object.keys(calls);
    const table = (await runQuery(store, `['sample-http-logs'] | take 1 | project ${names.map((name) => `${name} = ${calls[name]?.[0]}`).join(', ')}`)).tables[0];
    const [row] = tableRows(table as never);
    // A discrete Fourier transform's zeros come out as ±1e-15: compare those to 9 places.
    const rounded = (v: unknown): unknown => (Array.isArray(v) ? v.map(rounded) : typeof v === 'number' ? Math.round(v * 1e9) / 1e9 + 0 : v);
    // -0 and 0 are one number here: which one a sum of products lands on depends on its order.
    const unsigned = (v: unknown): unknown => (Array.isArray(v) ? v.map(unsigned) : v === 0 ? 0 : v);
    for (const name of names) {
      const [apl, expected] = calls[name] ?? [];
      const fourier = name === 'fft' || name === 'ifft';
      expectClose(unsigned(fourier ? rounded(row?.[name]) : row?.[name]), unsigned(fourier ? rounded(expected) : expected), `${name}: ${apl}`);
    }
  });
});

describe('shapes, nulls and results JSON cannot hold', () => {
  it.each([
    ['series_abs(dynamic(null))', null],
    ['series_add(dynamic("x"), dynamic([1]))', null],
    ['series_sum(dynamic([]))', 0],
    ['series_sum(dynamic({"a": 1}))', null],
    ['series_abs(dynamic([1, "x", true]))', [1, null, null]],
    ['series_divide(dynamic([1, -1, 0]), 0)', [null, null, null]],
    ['series_exp(dynamic([1000]))', [null]],
    ['series_stats_dynamic(dynamic([]))', { min: null, min_idx: null, max: null, max_idx: null, avg: null, variance: null, stdev: null }],
    ['series_add(2, 3)', [5]],
    ['series_fir(dynamic([1, 2]), dynamic([]))', [null, null]],
    ['series_max(dynamic([1, null, 3]), dynamic([2, 2]))', [2, null, null]],
  ])('%s is %j', async (apl, expected) => {
    expect(await value(apl)).toEqual(expected);
  });

  it('reports arrays for element-wise results and reals for reductions', async () => {
    expect((await evaluate(store, 'series_add(dynamic([1]), 1)')).type).toBe('array');
    expect((await evaluate(store, 'series_dot_product(dynamic([1]), dynamic([1]))')).type).toBe('float');
    expect((await evaluate(store, 'series_stats_dynamic(dynamic([1]))')).type).toBe('object');
  });

  it('works on the arrays make_list builds', async () => {
    const table = (await runQuery(store, "['sample-http-logs'] | summarize d = make_list(req_duration_ms), s = make_list(resp_body_size_bytes) | project r = series_pearson_correlation(d, s), m = series_stats_dynamic(d)['max']")).tables[0];
    const [row] = tableRows(table as never);
    expect(row?.m).toBe(950.5);
    expect(typeof row?.r).toBe('number');
  });

  it('refuses a string where a series is expected, before any row is read', async () => {
    await expect(evaluate(store, 'series_sum(uri)')).rejects.toThrow('series_sum() expects a dynamic as argument 1, got string');
    await expect(evaluate(store, 'series_add(uri, 1)')).rejects.toThrow('series_add() expects one of dynamic, long, real as argument 1, got string');
  });
});
