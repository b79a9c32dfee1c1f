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
}

export interface DatasetStore {
  list(): Dataset[];
  get(name: string): Dataset | undefined;
  /** Undefined when a dataset of that name exists already. */
  create(input: { name: string; description: string; who: string }, nowMs: number): Dataset | undefined;
  delete(name: string): boolean;
}

interface DatasetRow {
  name: string;
  description: string;
  who: string;
  created_ms: number;
}

export function createDatasetStore(db: ServiceDatabase): DatasetStore {
  const selectAll = db.prepare<[], DatasetRow>('SELECT name, description, who, created_ms FROM datasets ORDER BY name');
  const selectOne = db.prepare<[string], DatasetRow>('SELECT name, description, who, created_ms FROM datasets WHERE name = ?');
  const insert = db.prepare('INSERT INTO datasets (name, description, who, created_ms) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING');
  const remove = db.prepare('DELETE FROM datasets WHERE name = ?');

  return {
    list: () => selectAll.all().map(toDataset),
    get: (name) => {
      const row = selectOne.get(name);
      return row ? toDataset(row) : undefined;
    },
    create: ({ name, description, who }, nowMs) => {
      if (insert.run(name, description, who, nowMs).changes === 0) return undefined;
      return toDataset({ name, description, who, created_ms: nowMs });
    },
    delete: (name) => remove.run(name).changes > 0,
  };
}

function toDataset(row: DatasetRow): Dataset {
  return {
    id: row.name,
    name: row.name,
    kind: 'axiom:events:v1',
    description: row.description,
    who: row.who,
    created: formatTime(row.created_ms),
    canWrite: true,
  };
}
