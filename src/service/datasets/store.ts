import type { ServiceDatabase } from '../database.js';
import { formatTime } from '../../common/time.js';

export interface Dataset {
  id: string;
  name: string;
  kind: 'axiom:events:v1';
  description: string;
  who: string;
  created: string;
  canWrite: true;
  /** Present once set by an update. */
  retentionDays?: number;
  useRetentionPeriod?: boolean;
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
  create(input: { name: string; description: string; who: string }, nowMs: number): Dataset | undefined;
  /** Changes the given members; undefined when there is no such dataset. */
  update(name: string, patch: DatasetPatch): Dataset | undefined;
  delete(name: string): boolean;
}

interface DatasetRow {
  name: string;
  description: string;
  who: string;
  created_ms: number;
  retention_days: number | null;
  use_retention_period: number | null;
}

const COLUMNS = 'name, description, who, created_ms, retention_days, use_retention_period';

export function createDatasetStore(db: ServiceDatabase): DatasetStore {
  const selectAll = db.prepare<[], DatasetRow>(`SELECT ${COLUMNS} FROM datasets ORDER BY name`);
  const selectOne = db.prepare<[string], DatasetRow>(`SELECT ${COLUMNS} FROM datasets WHERE name = ?`);
  const insert = db.prepare('INSERT INTO datasets (name, description, who, created_ms) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING');
  const patchRow = db.prepare<[string | null, number | null, number | null, string]>(
    `UPDATE datasets SET description = coalesce(?, description), retention_days = coalesce(?, retention_days),
       use_retention_period = coalesce(?, use_retention_period) WHERE name = ?`,
  );
  const remove = db.prepare('DELETE FROM datasets WHERE name = ?');

  return {
    list: () => selectAll.all().map(toDataset),
    get: (name) => {
      const row = selectOne.get(name);
      return row ? toDataset(row) : undefined;
    },
    create: ({ name, description, who }, nowMs) => {
      if (insert.run(name, description, who, nowMs).changes === 0) return undefined;
      return toDataset({ name, description, who, created_ms: nowMs, retention_days: null, use_retention_period: null });
    },
    update: (name, patch) => {
      const useRetention = patch.useRetentionPeriod === undefined ? null : patch.useRetentionPeriod ? 1 : 0;
      if (patchRow.run(patch.description ?? null, patch.retentionDays ?? null, useRetention, name).changes === 0) return undefined;
      const row = selectOne.get(name);
      return row ? toDataset(row) : undefined;
    },
    delete: (name) => remove.run(name).changes > 0,
  };
}

function toDataset(row: DatasetRow): Dataset {
  const dataset: Dataset = {
    id: row.name,
    name: row.name,
    kind: 'axiom:events:v1',
    description: row.description,
    who: row.who,
    created: formatTime(row.created_ms),
    canWrite: true,
  };
  if (row.retention_days !== null) dataset.retentionDays = row.retention_days;
  if (row.use_retention_period !== null) dataset.useRetentionPeriod = row.use_retention_period === 1;
  return dataset;
}
