import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { ROW_ID_COLUMN, SYS_TIME_FIELD, TIME_FIELD, type DatasetSchema, type FieldSchema, type FieldType, type StorageType } from '../schema.js';
import { quoteIdentifier } from '../sql/quote.js';
import { SQL_TYPE_OF } from './storage-sql.js';

/**
 * The catalog maps dataset and field names (user text, case-sensitive) to generated table and
 * column names. It lives in the same DuckDB file as the events, so a schema change and the
 * catalog rows describing it commit in one transaction. The store keeps a copy in memory (the
 * compiler asks for schemas synchronously) and changes it only after a commit.
 */
export interface CatalogEntry {
  readonly id: number;
  schema: DatasetSchema;
  /**
   * The `_rowid` of the next event: a per-dataset sequence in ingest order, never reused. Kept in
   * memory; at open it is one past the largest stored `_rowid`, or the catalog's `next_rowid`
   * (written before a trim deletes rows) when that is higher.
   */
  nextRowId: bigint;
  /** The number of the next generated column, `f<n>`. */
  nextColumn: number;
}

/** The physical column of `_time`, in every dataset table (nanoseconds, NOT NULL). */
export const TIME_COLUMN = '_time';

export const BASE_FIELDS: readonly FieldSchema[] = [
  { name: TIME_FIELD, column: TIME_COLUMN, storage: 'timestamp', types: ['datetime'] },
  { name: SYS_TIME_FIELD, column: '_systime', storage: 'timestamp', types: ['datetime'] },
];

/** Each entry upgrades the catalog by one version; entries are only ever appended. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE timemark_datasets (
     id          INTEGER NOT NULL,
     name        VARCHAR NOT NULL,
     table_name  VARCHAR NOT NULL,
     next_rowid  BIGINT  NOT NULL,
     next_column INTEGER NOT NULL
   );
   CREATE TABLE timemark_fields (
     dataset_id  INTEGER NOT NULL,
     position    INTEGER NOT NULL,
     name        VARCHAR NOT NULL,
     column_name VARCHAR NOT NULL,
     storage     VARCHAR NOT NULL,
     types       VARCHAR NOT NULL
   );`,
  // The ingest log's position (store/ingest-log.ts): batches numbered up to here are in the tables.
  `CREATE TABLE timemark_ingest_log (loaded_through BIGINT NOT NULL);
   INSERT INTO timemark_ingest_log VALUES (0);`,
  // Batches loaded past that position by loads that ran side by side (batch-loader.ts): each load
  // adds its own rows, since two transactions updating loaded_through would conflict.
  `CREATE TABLE timemark_loaded_batches (seq BIGINT NOT NULL);`,
];

export async function migrateCatalog(connection: DuckDBConnection): Promise<void> {
  await connection.run('CREATE TABLE IF NOT EXISTS timemark_catalog_version (version INTEGER NOT NULL)');
  const rows = (await connection.runAndReadAll('SELECT max(version) FROM timemark_catalog_version')).getRowsJS();
  const current = Number(rows[0]?.[0] ?? 0);
  if (current > MIGRATIONS.length) {
    throw new Error(
      `The events database was written by a newer Timemark (catalog version ${current}; this one knows ${MIGRATIONS.length}). Upgrade Timemark or use another --data-dir.`,
    );
  }
  if (current === MIGRATIONS.length) return;
  await connection.run('BEGIN');
  try {
    for (let version = current; version < MIGRATIONS.length; version++) await connection.run(MIGRATIONS[version] ?? '');
    await connection.run('DELETE FROM timemark_catalog_version');
    await connection.run('INSERT INTO timemark_catalog_version VALUES ($1)', [MIGRATIONS.length]);
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK');
    throw error;
  }
  await connection.run('CHECKPOINT');
}

export async function loadCatalog(connection: DuckDBConnection): Promise<Map<string, CatalogEntry>> {
  const datasets = (await connection.runAndReadAll('SELECT id, name, table_name, next_rowid, next_column FROM timemark_datasets ORDER BY id')).getRowObjectsJS();
  const fields = (
    await connection.runAndReadAll('SELECT dataset_id, name, column_name, storage, types FROM timemark_fields ORDER BY dataset_id, position')
  ).getRowObjectsJS();
  const fieldsOf = new Map<number, FieldSchema[]>();
  for (const row of fields) {
    const id = Number(row.dataset_id);
    const list = fieldsOf.get(id) ?? [];
    list.push({
      name: String(row.name),
      column: String(row.column_name),
      storage: String(row.storage) as StorageType,
      types: String(row.types).split('|') as FieldType[],
    });
    fieldsOf.set(id, list);
  }
  const catalog = new Map<string, CatalogEntry>();
  for (const row of datasets) {
    const id = Number(row.id);
    const name = String(row.name);
    const table = String(row.table_name);
    const largest = (await connection.runAndReadAll(`SELECT max(${quoteIdentifier(ROW_ID_COLUMN)}) FROM ${quoteIdentifier(table)}`)).getRowsJS()[0]?.[0];
    const recorded = BigInt(row.next_rowid as bigint);
    const afterLargest = largest === null || largest === undefined ? 0n : BigInt(largest as bigint) + 1n;
    catalog.set(name, {
      id,
      schema: { dataset: name, table, fields: [...BASE_FIELDS, ...(fieldsOf.get(id) ?? [])] },
      nextRowId: afterLargest > recorded ? afterLargest : recorded,
      nextColumn: Number(row.next_column),
    });
  }
  return catalog;
}

/** Which ingest-log batches are in the tables: all up to `through`, and `past` beyond it. */
export interface LoadedBatches {
  readonly through: bigint;
  readonly past: ReadonlySet<bigint>;
}

export async function readLoadedBatches(connection: DuckDBConnection): Promise<LoadedBatches> {
  const rows = (await connection.runAndReadAll('SELECT loaded_through FROM timemark_ingest_log')).getRowsJS();
  const through = BigInt((rows[0]?.[0] as bigint | undefined) ?? 0n);
  const past = (await connection.runAndReadAll('SELECT seq FROM timemark_loaded_batches WHERE seq > $1', [through])).getRowsJS();
  return { through, past: new Set(past.map(([seq]) => BigInt(seq as bigint))) };
}

/** Records, inside the caller's transaction that replays them in order, that batches up to `seq` are in the tables. */
export async function recordLoadedThrough(connection: DuckDBConnection, seq: bigint): Promise<void> {
  await connection.run('UPDATE timemark_ingest_log SET loaded_through = $1', [seq]);
}

/** Records, inside the caller's transaction that loads them, that these batches are in the tables (loads may run side by side). */
export async function recordLoaded(connection: DuckDBConnection, seqs: readonly bigint[]): Promise<void> {
  await connection.run('INSERT INTO timemark_loaded_batches SELECT unnest($1::BIGINT[])', [listValue([...seqs])]);
}

/** Folds the loads' records into the position once everything up to `through` is loaded; only one may run at a time. */
export async function compactLoaded(connection: DuckDBConnection, through: bigint): Promise<void> {
  await connection.run('UPDATE timemark_ingest_log SET loaded_through = $1 WHERE loaded_through < $1', [through]);
  await connection.run('DELETE FROM timemark_loaded_batches WHERE seq <= $1', [through]);
}

/** Creates the dataset's table and catalog row; runs inside the caller's transaction. */
export async function createDatasetTable(connection: DuckDBConnection, id: number, name: string): Promise<CatalogEntry> {
  const table = `ds_${id}`;
  await connection.run(
    `CREATE TABLE ${quoteIdentifier(table)} (${quoteIdentifier(TIME_COLUMN)} BIGINT NOT NULL, ${quoteIdentifier('_systime')} BIGINT NOT NULL, ${quoteIdentifier(ROW_ID_COLUMN)} BIGINT NOT NULL)`,
  );
  await connection.run('INSERT INTO timemark_datasets VALUES ($1, $2, $3, 0, 1)', [id, name, table]);
  return { id, schema: { dataset: name, table, fields: BASE_FIELDS }, nextRowId: 0n, nextColumn: 1 };
}

/** Drops the dataset's table and catalog rows; runs inside the caller's transaction. */
export async function dropDatasetTable(connection: DuckDBConnection, entry: CatalogEntry): Promise<void> {
  await connection.run(`DROP TABLE ${quoteIdentifier(entry.schema.table)}`);
  await connection.run('DELETE FROM timemark_fields WHERE dataset_id = $1', [entry.id]);
  await connection.run('DELETE FROM timemark_datasets WHERE id = $1', [entry.id]);
}

/** Adds columns, widens columns and records the fields, inside the caller's transaction. */
export async function applySchemaChange(
  connection: DuckDBConnection,
  entry: CatalogEntry,
  change: {
    readonly fields: readonly FieldSchema[];
    readonly added: readonly FieldSchema[];
    readonly widened: readonly { readonly field: FieldSchema; readonly from: StorageType }[];
    readonly nextColumn: number;
  },
  convert: (expression: string, from: StorageType, to: StorageType) => string,
): Promise<void> {
  const table = quoteIdentifier(entry.schema.table);
  for (const field of change.added) {
    await connection.run(`ALTER TABLE ${table} ADD COLUMN ${quoteIdentifier(field.column)} ${SQL_TYPE_OF[field.storage]}`);
  }
  for (const { field, from } of change.widened) {
    if (SQL_TYPE_OF[from] === SQL_TYPE_OF[field.storage]) continue;
    const column = quoteIdentifier(field.column);
    await connection.run(`ALTER TABLE ${table} ALTER COLUMN ${column} SET DATA TYPE ${SQL_TYPE_OF[field.storage]} USING ${convert(column, from, field.storage)}`);
  }
  const userFields = change.fields.slice(BASE_FIELDS.length);
  const addedNames = new Set(change.added.map((field) => field.name));
  const before = new Map(entry.schema.fields.map((field) => [field.name, field]));
  for (const [index, field] of userFields.entries()) {
    const types = field.types.join('|');
    if (addedNames.has(field.name)) {
      await connection.run('INSERT INTO timemark_fields VALUES ($1, $2, $3, $4, $5, $6)', [entry.id, index, field.name, field.column, field.storage, types]);
    } else if (before.get(field.name) !== field) {
      await connection.run('UPDATE timemark_fields SET storage = $1, types = $2 WHERE dataset_id = $3 AND column_name = $4', [field.storage, types, entry.id, field.column]);
    }
  }
  await connection.run('UPDATE timemark_datasets SET next_column = $1 WHERE id = $2', [change.nextColumn, entry.id]);
}
