import { createHash } from 'node:crypto';
import { DuckDBScalarFunction, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';

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
}
