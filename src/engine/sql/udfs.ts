import { createHash } from 'node:crypto';
import { DOUBLE, DuckDBListValue, DuckDBScalarFunction, LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';

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
}
