import type { ServiceDatabase } from '../database.js';
import { formatTime } from '../../common/time.js';

/** The kinds of dataset the hosted service knows; OTel datasets are made by the OTel endpoints. */
export const DATASET_KINDS = ['axiom:events:v1', 'otel:traces:v1', 'otel:logs:v1', 'otel:metrics:v1'] as const;
export type DatasetKind = (typeof DATASET_KINDS)[number];

export interface Dataset {
  id: string;
  name: string;
  kind: DatasetKind;
  description: string;
  who: string;
  created: string;
  /** Present once an update changed the dataset. */
  updatedAt?: string;
  canWrite: true;
  /** Present once set by a create or an update. */
  retentionDays?: number;
  useRetentionPeriod?: boolean;
  /** As the creating client sent them: recorded and returned, with no effect on a single machine. */
  region?: string;
  edgeDeployment?: string;
  /**
   * The fields whose objects are stored whole, as one value (map fields), in the order they were
   * declared; always present, as the hosted service answers it.
   */
  mapFields: string[];
}

/** What a create request may set besides the name. */
export interface NewDataset {
  name: string;
  description: string;
  who: string;
  kind?: DatasetKind;
  region?: string;
  edgeDeployment?: string;
  retentionDays?: number;
  useRetentionPeriod?: boolean;
  /** Map fields declared at creation (OTel trace datasets start with `attributes.custom`: map-fields.ts). */
  mapFields?: readonly string[];
}

export interface DatasetPatch {
  description?: string;
  retentionDays?: number;
  useRetentionPeriod?: boolean;
}

/** The datasets' metadata rows (name, description, creator) in the service's SQLite file. */
export interface DatasetStore {
  list(): Dataset[];
  get(name: string): Dataset | undefined;
  /** Undefined when a dataset of that name exists already. */
  create(input: NewDataset, nowMs: number): Dataset | undefined;
  /** Changes the given members; undefined when there is no such dataset. */
  update(name: string, patch: DatasetPatch, nowMs: number): Dataset | undefined;
  delete(name: string): boolean;
  /** Replaces the dataset's map fields; false when there is no such dataset. */
  setMapFields(name: string, mapFields: readonly string[]): boolean;
}

interface DatasetRow {
  name: string;
  description: string;
  who: string;
  created_ms: number;
  retention_days: number | null;
  use_retention_period: number | null;
  kind: string | null;
  region: string | null;
  edge_deployment: string | null;
  updated_ms: number | null;
  map_fields: string | null;
}

const COLUMNS = 'name, description, who, created_ms, retention_days, use_retention_period, kind, region, edge_deployment, updated_ms, map_fields';

export function createDatasetStore(db: ServiceDatabase): DatasetStore {
  const selectAll = db.prepare<[], DatasetRow>(`SELECT ${COLUMNS} FROM datasets ORDER BY name`);
  const selectOne = db.prepare<[string], DatasetRow>(`SELECT ${COLUMNS} FROM datasets WHERE name = ?`);
  const insert = db.prepare(
    `INSERT INTO datasets (name, description, who, created_ms, retention_days, use_retention_period, kind, region, edge_deployment, map_fields)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
  );
  const patchRow = db.prepare<[string | null, number | null, number | null, number, string]>(
    `UPDATE datasets SET description = coalesce(?, description), retention_days = coalesce(?, retention_days),
       use_retention_period = coalesce(?, use_retention_period), updated_ms = ? WHERE name = ?`,
  );
  const remove = db.prepare('DELETE FROM datasets WHERE name = ?');
  const setMapFields = db.prepare<[string | null, string]>('UPDATE datasets SET map_fields = ? WHERE name = ?');

  return {
    list: () => selectAll.all().map(toDataset),
    get: (name) => {
      const row = selectOne.get(name);
      return row ? toDataset(row) : undefined;
    },
    create: (input, nowMs) => {
      const row: DatasetRow = {
        name: input.name,
        description: input.description,
        who: input.who,
        created_ms: nowMs,
        retention_days: input.retentionDays ?? null,
        use_retention_period: flag(input.useRetentionPeriod),
        kind: input.kind ?? null,
        region: input.region ?? null,
        edge_deployment: input.edgeDeployment ?? null,
        updated_ms: null,
        map_fields: mapFieldsText(input.mapFields ?? []),
      };
      const { name, description, who, created_ms, retention_days, use_retention_period, kind, region, edge_deployment, map_fields } = row;
      if (insert.run(name, description, who, created_ms, retention_days, use_retention_period, kind, region, edge_deployment, map_fields).changes === 0) return undefined;
      return toDataset(row);
    },
    update: (name, patch, nowMs) => {
      if (patchRow.run(patch.description ?? null, patch.retentionDays ?? null, flag(patch.useRetentionPeriod), nowMs, name).changes === 0) return undefined;
      const row = selectOne.get(name);
      return row ? toDataset(row) : undefined;
    },
    delete: (name) => remove.run(name).changes > 0,
    setMapFields: (name, mapFields) => setMapFields.run(mapFieldsText(mapFields), name).changes > 0,
  };
}

function mapFieldsText(mapFields: readonly string[]): string | null {
  return mapFields.length === 0 ? null : JSON.stringify(mapFields);
}

function flag(value: boolean | undefined): number | null {
  return value === undefined ? null : value ? 1 : 0;
}

function toDataset(row: DatasetRow): Dataset {
  const dataset: Dataset = {
    id: row.name,
    name: row.name,
    kind: (row.kind as DatasetKind | null) ?? 'axiom:events:v1',
    description: row.description,
    who: row.who,
    created: formatTime(row.created_ms),
    canWrite: true,
    mapFields: row.map_fields === null ? [] : (JSON.parse(row.map_fields) as string[]),
  };
  if (row.updated_ms !== null) dataset.updatedAt = formatTime(row.updated_ms);
  if (row.retention_days !== null) dataset.retentionDays = row.retention_days;
  if (row.use_retention_period !== null) dataset.useRetentionPeriod = row.use_retention_period === 1;
  if (row.region !== null) dataset.region = row.region;
  if (row.edge_deployment !== null) dataset.edgeDeployment = row.edge_deployment;
  return dataset;
}
