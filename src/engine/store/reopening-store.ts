/**
 * The event store, opened again in place when DuckDB gives up on its database. DuckDB marks a
 * database invalid after some failed writes — a checkpoint that hit a full disk is the one seen
 * in practice — and then refuses everything until the instance is opened again. Opening again is
 * what a restart does: the database file and its WAL hold every committed load, and the ingest
 * log every acknowledged batch not loaded yet, so nothing acknowledged is lost (event-store.ts).
 * This does that without the restart, when the caller says the cause has gone (`resume`).
 */
import { openEventStore, type EventStore, type EventStoreOptions } from './event-store.js';

/** DuckDB's words for a database it will not use again until it is opened again. */
const INVALIDATED = /database has been invalidated|must be restarted prior to being used again/i;

function invalidated(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (INVALIDATED.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

export async function openReopeningEventStore(options: EventStoreOptions): Promise<EventStore> {
  /** Opens a store whose background errors stop being reported once it is retired (closed as broken: they are expected). */
  async function open(): Promise<{ store: EventStore; retire: () => void }> {
    let retired = false;
    const store = await openEventStore({
      ...options,
      onBackgroundError: (error) => {
        if (!retired) options.onBackgroundError?.(error);
      },
    });
    return { store, retire: () => (retired = true) };
  }
  let opened = await open();
  let current = opened.store;
  let reopening: Promise<void> | undefined;

  async function reopen(): Promise<void> {
    const broken = current;
    try {
      await broken.check();
      // Still usable: only loads waiting on their pause need to start again.
      broken.resume();
      return;
    } catch (error) {
      if (!invalidated(error)) {
        broken.resume();
        return;
      }
    }
    opened.retire();
    await broken.close().catch(() => undefined);
    opened = await open();
    current = opened.store;
  }

  // Every member is the current store's, looked up at each use, so that holders of this object
  // (routes, monitors, readers) follow the store across a reopen.
  const forward: ProxyHandler<EventStore> = {
    get(_target, key) {
      if (key === 'resume') {
        return () => {
          reopening ??= reopen()
            .catch((error: unknown) => options.onBackgroundError?.(error))
            .finally(() => {
              reopening = undefined;
            });
        };
      }
      const value: unknown = Reflect.get(current, key, current);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  };
  return new Proxy(current, forward);
}
