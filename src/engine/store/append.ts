import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { quoteIdentifier, quoteString } from '../sql/quote.js';
import { ROW_ID_COLUMN } from '../schema.js';
import { TIME_COLUMN } from './catalog.js';
import type { SchemaPlan } from './schema-plan.js';
import { STAGED_FILE_COLUMN, STAGED_KEYS, type StagedBatch, type StagedPart } from './staged-batch.js';
import { convertStorage, SQL_TYPE_OF } from './storage-sql.js';

/** read_json's default; it allocates buffers of this size, so it only grows for batches with longer lines. */
const DEFAULT_MAXIMUM_OBJECT_BYTES = 16 * 1024 * 1024;

/**
 * `read_json` of staged files (`$1`: one path, or a list of paths of batches laid out alike) with
 * every key typed, so nothing is guessed from the data. With `fileColumn`, each row also carries
 * the path of its file (STAGED_FILE_COLUMN), to join it with its batch's row ids.
 */
function readStaged(batch: StagedBatch, maxLineBytes: number, fileColumn: boolean): string {
  const { parts } = batch;
  const maximumObjectSize = Math.max(DEFAULT_MAXIMUM_OBJECT_BYTES, maxLineBytes + 1);
  const filename = fileColumn ? `, filename = ${quoteString(STAGED_FILE_COLUMN)}` : '';
  if (batch.raw) {
    const read = `read_json($1, format = 'newline_delimited', records = true, maximum_object_size = ${maximumObjectSize}${filename}, columns = {${batch.raw.columns.join(', ')}})`;
    return `(SELECT ${[...batch.raw.select, ...(fileColumn ? [quoteIdentifier(STAGED_FILE_COLUMN)] : [])].join(', ')} FROM ${read})`;
  }
  const columns = [
    `${quoteString(STAGED_KEYS.index)}: 'BIGINT'`,
    `${quoteString(STAGED_KEYS.timeMs)}: 'BIGINT'`,
    `${quoteString(STAGED_KEYS.timeSubMsNs)}: 'BIGINT'`,
    ...parts.map((part) => `${quoteString(part.key)}: ${quoteString(SQL_TYPE_OF[part.storage])}`),
  ];
  return `read_json($1, format = 'newline_delimited', records = true, maximum_object_size = ${maximumObjectSize}${filename}, columns = {${columns.join(', ')}})`;
}

/** A batch to insert and the `_rowid` of its first event. */
export interface StagedInsert {
  readonly batch: StagedBatch;
  readonly firstRowId: bigint;
}

/** The batch columns joined to the rows by their file. */
const BATCH_COLUMNS = { file: '__tm_batch_file', firstRowId: '__tm_batch_first_row', sysTime: '__tm_batch_sys_time' } as const;

/**
 * The INSERT statement for batches laid out like `batch` under `plan`: equal texts mean the
 * batches can share one statement. Only the longest line differs between alike batches; it is
 * left out here and given by `insertStaged`.
 */
export function insertStatement(table: string, batch: StagedBatch, plan: SchemaPlan, maxLineBytes = 0): string {
  const fieldOf = new Map(plan.fields.map((field) => [field.column, field]));
  const targets = [quoteIdentifier(TIME_COLUMN), quoteIdentifier('_systime'), quoteIdentifier(ROW_ID_COLUMN)];
  const values = [
    `${quoteIdentifier(STAGED_KEYS.timeMs)} * 1000000 + ${quoteIdentifier(STAGED_KEYS.timeSubMsNs)}`,
    quoteIdentifier(BATCH_COLUMNS.sysTime),
    `${quoteIdentifier(BATCH_COLUMNS.firstRowId)} + ${quoteIdentifier(STAGED_KEYS.index)}`,
  ];
  for (const [column, parts] of plan.sources) {
    const field = fieldOf.get(column);
    if (!field) throw new Error(`The schema plan feeds column ${column}, which it does not define.`);
    targets.push(quoteIdentifier(column));
    const converted = parts.map((part) => convertStorage(quoteIdentifier(part.key), part.storage, field.storage));
    values.push(converted.length === 1 ? (converted[0] as string) : `COALESCE(${converted.join(', ')})`);
  }
  const rejected = plan.rejected.map((part) => `${quoteIdentifier(part.key)} IS NULL`);
  // $1, the files read_json reads, is also the list their row-id starts ($2) and ingest times ($3) line up with.
  const batches = `(SELECT unnest($1::VARCHAR[]) AS ${quoteIdentifier(BATCH_COLUMNS.file)}, unnest($2::BIGINT[]) AS ${quoteIdentifier(BATCH_COLUMNS.firstRowId)}, unnest($3::BIGINT[]) AS ${quoteIdentifier(BATCH_COLUMNS.sysTime)})`;
  return `INSERT INTO ${quoteIdentifier(table)} (${targets.join(', ')})
    SELECT ${values.join(', ')} FROM ${readStaged(batch, maxLineBytes, true)} JOIN ${batches}
      ON ${quoteIdentifier(STAGED_FILE_COLUMN)} = ${quoteIdentifier(BATCH_COLUMNS.file)}${rejected.length > 0 ? ` WHERE ${rejected.join(' AND ')}` : ''}`;
}

/**
 * Inserts batches laid out alike (equal `insertStatement` texts under `plan`) in one statement,
 * inside the caller's transaction: times from the files, `_sysTime` and `_rowid` from each
 * batch, and each column from its parts converted to the column's storage. Rows carrying a
 * rejected part are left out. One statement over many files is what lets DuckDB read them on
 * all its threads at once; statement after statement, each file is read by one.
 */
export async function insertStaged(connection: DuckDBConnection, table: string, inserts: readonly StagedInsert[], plan: SchemaPlan): Promise<number> {
  const first = inserts[0];
  if (!first) return 0;
  const maxLineBytes = Math.max(...inserts.map((insert) => insert.batch.maxLineBytes));
  const result = await connection.run(insertStatement(table, first.batch, plan, maxLineBytes), [
    listValue(inserts.map((insert) => insert.batch.file)),
    listValue(inserts.map((insert) => insert.firstRowId)),
    listValue(inserts.map((insert) => insert.batch.sysTimeNs)),
  ]);
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
    FROM ${readStaged(batch, batch.maxLineBytes, false)} WHERE ${present.join(' OR ')} ORDER BY 1`;
  const rows = (await connection.runAndReadAll(sql, [batch.file])).getRowsJS();
  return rows.map(([index, timeNs, ...flags]) => ({
    index: Number(index),
    timeNs: BigInt(timeNs as bigint),
    fields: rejected.filter((_, position) => flags[position] === true).map((part) => part.field),
  }));
}
