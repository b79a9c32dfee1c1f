import { createHash } from 'node:crypto';
import { DOUBLE, DuckDBListValue, DuckDBScalarFunction, INTEGER, LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';

/**
 * Scalar functions the compiled SQL may call that DuckDB does not have, written in JavaScript
 * and registered on the store's DuckDB instance when it opens. Each is here only because neither
 * a DuckDB function nor SQL, lambdas or list functions will do: a call crosses from DuckDB's
 * threads into Node's for every chunk of rows, which costs more than a native function.
 */

/**
 * SHA-512 of text, as lower-case hexadecimal (`hash_sha512`). DuckDB has MD5, SHA-1 and SHA-256
 * but no SHA-512, and SHA-512's 80 rounds of 64-bit additions and rotations per block in SQL
 * would be a statement DuckDB takes longer to bind than to run.
 */
export const SHA512_UDF = 'timemark_sha512';

/**
 * An infinite impulse response filter over a series (`series_iir`): y[n] = (Σ b[k]·x[n−k] −
 * Σ a[j]·y[n−j], j ≥ 1) / a[0], values before the start and null elements being 0. Each output
 * depends on the ones before it, which SQL can only write as a fold that copies what it has built
 * at every step (quadratic in the series' length: a second for 10,000 bins); here it is one pass.
 */
export const SERIES_IIR_UDF = 'timemark_series_iir';

/** The numbers of a DOUBLE[] value, a null element read as 0. */
function numbersOf(value: unknown): number[] {
  return (value as DuckDBListValue).items.map((item) => (typeof item === 'number' ? item : 0));
}

export function seriesIir(x: readonly number[], b: readonly number[], a: readonly number[]): number[] {
  const y: number[] = [];
  for (let n = 0; n < x.length; n++) {
    let sum = 0;
    for (let k = 0; k < b.length && k <= n; k++) sum += (b[k] as number) * (x[n - k] as number);
    for (let j = 1; j < a.length && j <= n; j++) sum -= (a[j] as number) * (y[n - j] as number);
    y.push(sum / (a[0] ?? Number.NaN));
  }
  return y;
}

/**
 * The discrete Fourier transform of a complex series (`series_fft`, `series_ifft`): X[k] =
 * Σ x[t]·e^(sign·2πi·kt/n), divided by n for the inverse (sign 1). In SQL it could only be the
 * defining double sum, O(n²): minutes for a day of 1-second bins. Here it is an FFT, O(n log n):
 * radix 2 for a power of two, Bluestein's chirp-z transform (a convolution done by radix-2 FFTs)
 * for any other length. The result is the real parts, then the imaginary parts.
 */
export const FOURIER_UDF = 'timemark_fourier';

export function fourier(real: readonly number[], imaginary: readonly number[], sign: 1 | -1): number[] {
  const n = real.length;
  const re = Float64Array.from(real);
  const im = Float64Array.from({ length: n }, (_, index) => imaginary[index] ?? 0);
  if (n === 0) return [];
  const [outRe, outIm] = (n & (n - 1)) === 0 ? (radix2(re, im, sign), [re, im]) : bluestein(re, im, sign);
  const scale = sign === 1 ? 1 / n : 1;
  return [...Array.from(outRe, (v) => v * scale), ...Array.from(outIm, (v) => v * scale)];
}

/** In-place iterative radix-2 FFT with twiddles e^(sign·2πi·k/len); `re.length` a power of two. */
function radix2(re: Float64Array, im: Float64Array, sign: number): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j] as number, re[i] as number];
      [im[i], im[j]] = [im[j] as number, im[i] as number];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    for (let k = 0; k < half; k++) {
      // Each twiddle computed on its own, not by repeated multiplication, which drifts.
      const angle = (sign * 2 * Math.PI * k) / len;
      const wr = Math.cos(angle);
      const wi = Math.sin(angle);
      for (let i = k; i < n; i += len) {
        const j = i + half;
        const vr = (re[j] as number) * wr - (im[j] as number) * wi;
        const vi = (re[j] as number) * wi + (im[j] as number) * wr;
        re[j] = (re[i] as number) - vr;
        im[j] = (im[i] as number) - vi;
        re[i] = (re[i] as number) + vr;
        im[i] = (im[i] as number) + vi;
      }
    }
  }
}

/** Any length n: kt = (k² + t² − (k−t)²)/2 turns the transform into a convolution with a chirp. */
function bluestein(re: Float64Array, im: Float64Array, sign: number): [Float64Array, Float64Array] {
  const n = re.length;
  let m = 1;
  while (m < 2 * n - 1) m <<= 1;
  // chirp[j] = e^(sign·πi·j²/n), with j² taken modulo 2n so that the angle stays exact.
  const chirpRe = new Float64Array(n);
  const chirpIm = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const angle = (sign * Math.PI * ((j * j) % (2 * n))) / n;
    chirpRe[j] = Math.cos(angle);
    chirpIm[j] = Math.sin(angle);
  }
  const aRe = new Float64Array(m);
  const aIm = new Float64Array(m);
  for (let t = 0; t < n; t++) {
    aRe[t] = (re[t] as number) * (chirpRe[t] as number) - (im[t] as number) * (chirpIm[t] as number);
    aIm[t] = (re[t] as number) * (chirpIm[t] as number) + (im[t] as number) * (chirpRe[t] as number);
  }
  const bRe = new Float64Array(m);
  const bIm = new Float64Array(m);
  for (let j = 0; j < n; j++) {
    bRe[j] = chirpRe[j] as number;
    bIm[j] = -(chirpIm[j] as number);
    if (j > 0) {
      bRe[m - j] = chirpRe[j] as number;
      bIm[m - j] = -(chirpIm[j] as number);
    }
  }
  radix2(aRe, aIm, -1);
  radix2(bRe, bIm, -1);
  for (let i = 0; i < m; i++) {
    const r = (aRe[i] as number) * (bRe[i] as number) - (aIm[i] as number) * (bIm[i] as number);
    aIm[i] = (aRe[i] as number) * (bIm[i] as number) + (aIm[i] as number) * (bRe[i] as number);
    aRe[i] = r;
  }
  radix2(aRe, aIm, 1);
  const outRe = new Float64Array(n);
  const outIm = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const cr = (aRe[k] as number) / m;
    const ci = (aIm[k] as number) / m;
    outRe[k] = cr * (chirpRe[k] as number) - ci * (chirpIm[k] as number);
    outIm[k] = cr * (chirpIm[k] as number) + ci * (chirpRe[k] as number);
  }
  return [outRe, outIm];
}

/** Registers the functions above; they stay registered for every connection of the instance. */
export function registerUdfs(connection: DuckDBConnection): void {
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: SHA512_UDF,
      returnType: VARCHAR,
      parameterTypes: [VARCHAR],
      mainFunction: (_info, input, output) => {
        const texts = input.getColumnVector(0);
        for (let row = 0; row < input.rowCount; row++) {
          const text = texts.getItem(row);
          output.setItem(row, typeof text === 'string' ? createHash('sha512').update(text, 'utf8').digest('hex') : null);
        }
        output.flush();
      },
    }),
  );
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: SERIES_IIR_UDF,
      returnType: LIST(DOUBLE),
      parameterTypes: [LIST(DOUBLE), LIST(DOUBLE), LIST(DOUBLE)],
      mainFunction: (_info, input, output) => {
        const [xs, bs, as] = [0, 1, 2].map((column) => input.getColumnVector(column));
        for (let row = 0; row < input.rowCount; row++) {
          const [x, b, a] = [xs, bs, as].map((vector) => vector?.getItem(row));
          output.setItem(row, x == null || b == null || a == null ? null : listValue(seriesIir(numbersOf(x), numbersOf(b), numbersOf(a))));
        }
        output.flush();
      },
    }),
  );
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: FOURIER_UDF,
      returnType: LIST(DOUBLE),
      parameterTypes: [LIST(DOUBLE), LIST(DOUBLE), INTEGER],
      mainFunction: (_info, input, output) => {
        const [reals, imaginaries, signs] = [0, 1, 2].map((column) => input.getColumnVector(column));
        for (let row = 0; row < input.rowCount; row++) {
          const [re, im, sign] = [reals, imaginaries, signs].map((vector) => vector?.getItem(row));
          output.setItem(row, re == null || im == null || sign == null ? null : listValue(fourier(numbersOf(re), numbersOf(im), sign === 1 ? 1 : -1)));
        }
        output.flush();
      },
    }),
  );
}
