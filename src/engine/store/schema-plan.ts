import { FIELD_TYPE_ORDER, widenStorage, type FieldSchema, type FieldType, type StorageType } from '../schema.js';
import type { StagedPart } from './staged-batch.js';

/** What loading a batch changes in a dataset's schema, worked out before any SQL runs. */
export interface SchemaPlan {
  /** The dataset's fields after the batch: existing ones (possibly widened), then new ones. */
  readonly fields: readonly FieldSchema[];
  /** New columns to add. */
  readonly added: readonly FieldSchema[];
  /** Columns whose SQL type changes, with the storage they had. */
  readonly widened: readonly { readonly field: FieldSchema; readonly from: StorageType }[];
  /** Whether any field's storage label or reported types change (a catalog write). */
  readonly catalogChanged: boolean;
  /** Parts of fields the dataset has no room for: events carrying them fail. */
  readonly rejected: readonly StagedPart[];
  /** For each column the batch writes, the parts that feed it. */
  readonly sources: ReadonlyMap<string, readonly StagedPart[]>;
  /** The column counter after the batch. */
  readonly nextColumn: number;
}

export function planSchema(current: readonly FieldSchema[], parts: readonly StagedPart[], limits: { maxFields: number; nextColumn: number }): SchemaPlan {
  const byName = new Map(current.map((field) => [field.name, field]));
  const partsByField = new Map<string, StagedPart[]>();
  for (const part of parts) {
    const list = partsByField.get(part.field);
    if (list) list.push(part);
    else partsByField.set(part.field, [part]);
  }

  const changed = new Map<string, FieldSchema>();
  const added: FieldSchema[] = [];
  const widened: { field: FieldSchema; from: StorageType }[] = [];
  const rejected: StagedPart[] = [];
  let nextColumn = limits.nextColumn;
  let fieldCount = current.length;

  for (const [name, fieldParts] of partsByField) {
    const existing = byName.get(name);
    if (existing?.storage === 'timestamp') {
      throw new Error(`A staged batch names the reserved field ${JSON.stringify(name)}; the decoder must have renamed or consumed it.`);
    }
    const incomingStorage = fieldParts.map((part) => part.storage).reduce(widenStorage);
    const incomingTypes = fieldParts.flatMap((part) => part.types);
    if (!existing) {
      if (fieldCount >= limits.maxFields) {
        rejected.push(...fieldParts);
        continue;
      }
      fieldCount++;
      const field: FieldSchema = { name, column: `f${nextColumn++}`, storage: incomingStorage, types: orderTypes(incomingTypes) };
      added.push(field);
      continue;
    }
    const storage = widenStorage(existing.storage, incomingStorage);
    const types = orderTypes([...existing.types, ...incomingTypes]);
    if (storage === existing.storage && types.length === existing.types.length) continue;
    const field: FieldSchema = { ...existing, storage, types };
    changed.set(name, field);
    if (storage !== existing.storage) widened.push({ field, from: existing.storage });
  }

  const fields = [...current.map((field) => changed.get(field.name) ?? field), ...added];
  const columnOf = new Map(fields.map((field) => [field.name, field.column]));
  const rejectedKeys = new Set(rejected.map((part) => part.key));
  const sources = new Map<string, StagedPart[]>();
  for (const part of parts) {
    if (rejectedKeys.has(part.key)) continue;
    const column = columnOf.get(part.field) as string;
    const list = sources.get(column);
    if (list) list.push(part);
    else sources.set(column, [part]);
  }
  return { fields, added, widened, catalogChanged: changed.size > 0 || added.length > 0, rejected, sources, nextColumn };
}

function orderTypes(types: readonly FieldType[]): FieldType[] {
  const seen = new Set(types);
  return FIELD_TYPE_ORDER.filter((type) => seen.has(type));
}
