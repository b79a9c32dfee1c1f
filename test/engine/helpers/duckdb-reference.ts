import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { makeTempDir } from '../../helpers/local-service.js';
import { EXAMPLE_DATASETS } from './examples.js';
import { ingestedRows } from './reference.js';

/** The example datasets as they are stored: flattened fields, `_time` as RFC 3339 text. */
function exampleTables(): Array<[string, Record<string, unknown>[]]> {
  return [...EXAMPLE_DATASETS].map(([name, events]) => [
    name,
    ingestedRows(events).map(({ _index, _timeNs, ...fields }) => ({ ...fields, _time: String(fields._time) })),
  ]);
}

/**
 * Tables in a plain in-memory DuckDB, one per name, one column per field named as the field,
 * `_time` a TIMESTAMP: the expected side of tests that check an APL result against SQL written by
 * hand, independently of the compiler. By default the example datasets. Rows come back in the
 * order the SQL gives them, BIGINT as number.
 */
export function useDuckDbReference(tables: () => Iterable<[string, readonly Record<string, unknown>[]]> = exampleTables): {
  rows(sql: string): Promise<Record<string, unknown>[]>;
} {
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = makeTempDir('duckdb-reference');
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
    for (const [name, rows] of tables()) {
      const file = join(dir, `${name}.ndjson`);
      writeFileSync(file, rows.map((row) => JSON.stringify(row)).join('\n'));
      // The file name is the test's own temp path and the table name a fixture's name: neither is user input.
      await connection.run(`CREATE TABLE "${name}" AS SELECT * REPLACE (CAST(_time AS TIMESTAMP) AS _time) FROM read_json_auto('${file}')`);
    }
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    async rows(sql) {
      if (!connection) throw new Error('The reference database is not open yet.');
      const reader = await connection.runAndReadAll(sql);
      return reader.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value])));
    },
  };
}
