import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdentifier, quoteString } from '../sql/quote.js';
import { ROW_ID_COLUMN } from '../schema.js';
import type { SchemaPlan } from './schema-plan.js';
import { STAGED_KEYS, type StagedBatch, type StagedPart } from './staged-batch.js';
import { convertStorage, SQL_TYPE_OF } from './storage-sql.js';

/** read_json's default; it allocates buffers of this size, so it only grows for batches with longer lines. */
const DEFAULT_MAXIMUM_OBJECT_BYTES = 16 * 1024 * 1024;

/** `read_json` of a staged file with every key typed, so nothing is guessed from the data. */
function readStaged(batch: StagedBatch): string {
  const { parts } = batch;
  const maximumObjectSize = Math.max(DEFAULT_MAXIMUM_OBJECT_BYTES, batch.maxLineBytes + 1);
  if (batch.raw) {
    const read = `read_json($1, format = 'newline_delimited', records = true, maximum_object_size = ${maximumObjectSize}, columns = {${batch.raw.columns.join(', ')}})`;
    return `(SELECT ${batch.raw.select.join(', ')} FROM ${read})`;
  }
  const columns = [
    `${quoteString(STAGED_KEYS.index)}: 'BIGINT'`,
    `${quoteString(STAGED_KEYS.timeMs)}: 'BIGINT'`,
    `${quoteString(STAGED_KEYS.timeSubMsNs)}: 'BIGINT'`,
    ...parts.map((part) => `${quoteString(part.key)}: ${quoteString(SQL_TYPE_OF[part.storage])}`),
  ];
  return `read_json($1, format = 'newline_delimited', records = true, maximum_object_size = ${maximumObjectSize}, columns = {${columns.join(', ')}})`;
}

/**
 * Inserts the batch's rows inside the caller's transaction: times from the file, `_sysTime`
 * and `_rowid` from the batch, and each column from its parts converted to the column's
 * storage. Rows carrying a rejected part are left out.
 */
export async function insertStaged(connection: DuckDBConnection, table: string, firstRowId: bigint, batch: StagedBatch, plan: SchemaPlan): Promise<number> {
  const fieldOf = new Map(plan.fields.map((field) => [field.column, field]));
  const targets = [quoteIdentifier('_time'), quoteIdentifier('_systime'), quoteIdentifier(ROW_ID_COLUMN)];
  const values = [
    `${quoteIdentifier(STAGED_KEYS.timeMs)} * 1000000 + ${quoteIdentifier(STAGED_KEYS.timeSubMsNs)}`,
    '$2',
    `$3 + ${quoteIdentifier(STAGED_KEYS.index)}`,
  ];
  for (const [column, parts] of plan.sources) {
    const field = fieldOf.get(column);
    if (!field) throw new Error(`The schema plan feeds column ${column}, which it does not define.`);
    targets.push(quoteIdentifier(column));
    const converted = parts.map((part) => convertStorage(quoteIdentifier(part.key), part.storage, field.storage));
    values.push(converted.length === 1 ? (converted[0] as string) : `COALESCE(${converted.join(', ')})`);
  }
  const rejected = plan.rejected.map((part) => `${quoteIdentifier(part.key)} IS NULL`);
  const sql = `INSERT INTO ${quoteIdentifier(table)} (${targets.join(', ')})
    SELECT ${values.join(', ')} FROM ${readStaged(batch)}${rejected.length > 0 ? ` WHERE ${rejected.join(' AND ')}` : ''}`;
  const result = await connection.run(sql, [batch.file, batch.sysTimeNs, firstRowId]);
  return Number(result.rowsChanged);
}

/** The rows of the batch that carry a rejected part: their index in the batch, their time and the fields left out. */
export async function readRejectedRows(
  connection: DuckDBConnection,
  batch: StagedBatch,
  rejected: readonly StagedPart[],
): Promise<{ index: number; timeNs: bigint; fields: string[] }[]> {
  const present = rejected.map((part) => `${quoteIdentifier(part.key)} IS NOT NULL`);
  const time = `${quoteIdentifier(STAGED_KEYS.timeMs)} * 1000000 + ${quoteIdentifier(STAGED_KEYS.timeSubMsNs)}`;
  const sql = `SELECT ${quoteIdentifier(STAGED_KEYS.index)}, ${time}, ${present.join(', ')}
    FROM ${readStaged(batch)} WHERE ${present.join(' OR ')} ORDER BY 1`;
  const rows = (await connection.runAndReadAll(sql, [batch.file])).getRowsJS();
  return rows.map(([index, timeNs, ...flags]) => ({
    index: Number(index),
    timeNs: BigInt(timeNs as bigint),
    fields: rejected.filter((_, position) => flags[position] === true).map((part) => part.field),
  }));
}
