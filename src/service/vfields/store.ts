import { randomUUID } from 'node:crypto';
import type { VirtualFieldSchema } from '../../engine/schema.js';
import type { ServiceDatabase } from '../database.js';

/** A virtual field as the hosted API shows it (`axiom-go`'s VirtualFieldWithID); empty optional members are left out. */
export interface VirtualField {
  id: string;
  dataset: string;
  name: string;
  expression: string;
  description?: string;
  type?: string;
  unit?: string;
}

export type VirtualFieldInput = Omit<VirtualField, 'id'>;

export interface VirtualFieldStore {
  list(dataset: string): VirtualField[];
  get(id: string): VirtualField | undefined;
  /** Undefined when the dataset has a virtual field of that name already. */
  create(input: VirtualFieldInput, nowMs: number): VirtualField | undefined;
  /** Undefined when there is no such field; `conflict` when the new name is taken. */
  update(id: string, input: VirtualFieldInput): VirtualField | 'conflict' | undefined;
  delete(id: string): boolean;
  /** What the engine needs of a dataset's virtual fields, in the order they were made. */
  definitions(dataset: string): readonly VirtualFieldSchema[];
}

interface Row {
  id: string;
  dataset: string;
  name: string;
  expression: string;
  description: string;
  type: string;
  unit: string;
}

const COLUMNS = 'id, dataset, name, expression, description, type, unit';

/**
 * Virtual fields in the service's SQLite file; a dataset's go when it is deleted (ON DELETE
 * CASCADE). Every query reads its dataset's definitions, one indexed read (UNIQUE (dataset, name)).
 */
export function createVirtualFieldStore(db: ServiceDatabase): VirtualFieldStore {
  const byDataset = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM virtual_fields WHERE dataset = ? ORDER BY created_ms, id`);
  const byId = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM virtual_fields WHERE id = ?`);
  const insert = db.prepare(
    `INSERT INTO virtual_fields (id, dataset, name, expression, description, type, unit, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dataset, name) DO NOTHING`,
  );
  const change = db.prepare(`UPDATE OR IGNORE virtual_fields SET name = ?, expression = ?, description = ?, type = ?, unit = ? WHERE id = ?`);
  const remove = db.prepare<[string]>('DELETE FROM virtual_fields WHERE id = ?');

  return {
    list: (dataset) => byDataset.all(dataset).map(toVirtualField),
    get: (id) => {
      const row = byId.get(id);
      return row && toVirtualField(row);
    },
    create: (input, nowMs) => {
      const id = randomUUID();
      const changes = insert.run(id, input.dataset, input.name, input.expression, input.description ?? '', input.type ?? '', input.unit ?? '', nowMs).changes;
      return changes === 0 ? undefined : { id, ...input };
    },
    update: (id, input) => {
      const before = byId.get(id);
      if (!before) return undefined;
      const changes = change.run(input.name, input.expression, input.description ?? '', input.type ?? '', input.unit ?? '', id).changes;
      if (changes === 0) return 'conflict';
      const row = byId.get(id);
      return row && toVirtualField(row);
    },
    delete: (id) => remove.run(id).changes > 0,
    definitions: (dataset) => byDataset.all(dataset).map((row) => ({ name: row.name, expression: row.expression })),
  };
}

function toVirtualField(row: Row): VirtualField {
  const field: VirtualField = { id: row.id, dataset: row.dataset, name: row.name, expression: row.expression };
  if (row.description !== '') field.description = row.description;
  if (row.type !== '') field.type = row.type;
  if (row.unit !== '') field.unit = row.unit;
  return field;
}
