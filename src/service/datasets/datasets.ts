import type { EventStore } from '../../engine/store/event-store.js';
import { initialMapFields } from './map-fields.js';
import type { Dataset, DatasetKind, DatasetPatch, DatasetStore, NewDataset } from './store.js';

/**
 * A dataset is a metadata row in the service's SQLite file and an events table in the DuckDB
 * file. The two files cannot commit together, so every change orders its steps such that a
 * crash between them leaves a state `reconcile` repairs at the next start: creation makes the
 * events table first, deletion drops the events first, and reconcile gives every events table a
 * row and every row an events table. No order of crash loses an acknowledged event. A failure
 * between the steps (a full disk) leaves at most an empty events table without a row, which the
 * client's retry of the same creation completes rather than refuses as a conflict.
 */
export interface Datasets {
  list(): Dataset[];
  get(name: string): Dataset | undefined;
  /** Undefined when it exists already. */
  create(input: NewDataset, nowMs: number): Promise<Dataset | undefined>;
  /**
   * Makes sure the dataset exists, creating it empty if needed (ingest into an unknown dataset),
   * of `kind` when given (the OTel endpoints make OTel datasets) and with the map fields of its
   * kind (map-fields.ts).
   */
  ensure(name: string, who: string, nowMs: number, kind?: DatasetKind): Promise<void>;
  update(name: string, patch: DatasetPatch, nowMs: number): Dataset | undefined;
  /** Replaces the dataset's map fields (map-fields.ts); false when there is no such dataset. */
  setMapFields(name: string, mapFields: readonly string[]): boolean;
  /** Deletes the dataset and its events; false when there was none. */
  delete(name: string): Promise<boolean>;
  /** Repairs what a crash between the two files left (see above). */
  reconcile(who: string, nowMs: number): Promise<void>;
}

export function createDatasets(metadata: DatasetStore, events: EventStore): Datasets {
  return {
    list: () => metadata.list(),
    get: (name) => metadata.get(name),
    create: async (input, nowMs) => {
      if (metadata.get(input.name)) return undefined;
      await events.createDataset(input.name);
      return metadata.create({ ...input, mapFields: input.mapFields ?? initialMapFields(input.kind) }, nowMs);
    },
    ensure: async (name, who, nowMs, kind) => {
      if (!metadata.get(name)) metadata.create({ name, description: '', who, ...(kind ? { kind } : {}), mapFields: initialMapFields(kind) }, nowMs);
      if (!events.schema(name)) await events.createDataset(name);
    },
    update: (name, patch, nowMs) => metadata.update(name, patch, nowMs),
    setMapFields: (name, mapFields) => metadata.setMapFields(name, mapFields),
    delete: async (name) => {
      const dropped = await events.dropDataset(name);
      return metadata.delete(name) || dropped;
    },
    reconcile: async (who, nowMs) => {
      for (const name of events.datasets()) {
        if (!metadata.get(name)) metadata.create({ name, description: '', who }, nowMs);
      }
      for (const dataset of metadata.list()) {
        if (!events.schema(dataset.name)) await events.createDataset(dataset.name);
      }
    },
  };
}
