import { rmSync } from 'node:fs';
import { ingestEvents, type IngestEventsOptions } from '../../src/engine/ingest/ingest-events.js';
import { openEventStore, type EventStore, type EventStoreOptions } from '../../src/engine/store/event-store.js';
import { aroundTests } from './around-tests.js';
import { makeTempDir } from './local-service.js';

export interface TestEventStore {
  store: EventStore;
  dataDir: string;
  /** Loads events through the ingest rules (flattening, `_time`, reserved names) and fails on any failure. */
  load(dataset: string, events: Iterable<unknown>, options?: IngestEventsOptions): Promise<void>;
  /** Runs one SQL statement in a read transaction, columns as the store returns them. */
  query(sql: string, params?: readonly (string | number | bigint | boolean | null)[]): Promise<Record<string, unknown>[]>;
  /** Closes the store; removes the data dir unless `keep`. */
  close(options?: { keep?: boolean }): Promise<void>;
}

/** Opens a real event store (DuckDB) in a fresh temporary data dir, or in `dataDir`. */
export async function openTestStore(options: Partial<EventStoreOptions> = {}): Promise<TestEventStore> {
  const dataDir = options.dataDir ?? makeTempDir('events');
  const store = await openEventStore({ ...options, dataDir });
  return {
    store,
    dataDir,
    load: async (dataset, events, ingestOptions) => {
      const result = await ingestEvents(store, dataset, events, ingestOptions);
      const failures = [...result.decodeFailures.map((failure) => failure.error), ...result.failures.map((failure) => failure.error)];
      if (failures.length > 0) throw new Error(`Loading ${dataset} failed for ${failures.length} events: ${failures.slice(0, 3).join(' | ')}`);
    },
    query: (sql, params = []) =>
      store.read({ timeoutMs: 30_000, maxRows: 1_000_000 }, async (run) => {
        const rows = await run(sql, params);
        return Array.from({ length: rows.rowCount }, (_, row) => Object.fromEntries(rows.columnNames.map((name, column) => [name, rows.columns[column]?.[row]])));
      }),
    close: async ({ keep = false } = {}) => {
      await store.close();
      if (!keep && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A real event store for the tests of a file: opened and given its datasets by `load` before
 * them, closed and removed after them. Read its members inside tests and hooks, once it is open.
 */
export function useTestStore(load: (fixture: TestEventStore) => Promise<void>, options: { loadTimeoutMs?: number } = {}): TestEventStore {
  const current = aroundTests(
    'The test store',
    async () => {
      const opened = await openTestStore();
      try {
        await load(opened);
      } catch (error) {
        await opened.close();
        throw error;
      }
      return opened;
    },
    (opened) => opened.close(),
    options.loadTimeoutMs,
  );
  return {
    get store() {
      return current().store;
    },
    get dataDir() {
      return current().dataDir;
    },
    load: (dataset, events, ingestOptions) => current().load(dataset, events, ingestOptions),
    query: (sql, params) => current().query(sql, params),
    close: (closeOptions) => current().close(closeOptions),
  };
}
