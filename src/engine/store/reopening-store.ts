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

/** How long after a failed reopen the next one is tried. */
const REOPEN_RETRY_MS = 5_000;

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
  /** Set once the broken store is closed and until another one opens. */
  let closedBroken = false;
  let reopening: Promise<void> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let closing = false;

  async function reopen(): Promise<void> {
    if (!closedBroken) {
      try {
        await current.check();
        // Still usable: only loads waiting on their pause need to start again.
        current.resume();
        return;
      } catch (error) {
        if (!invalidated(error)) {
          current.resume();
          return;
        }
      }
      opened.retire();
      await current.close().catch(() => undefined);
      closedBroken = true;
    }
    opened = await open();
    current = opened.store;
    closedBroken = false;
  }

  function resume(): void {
    if (closing) return;
    clearTimeout(retryTimer);
    reopening ??= reopen()
      .catch((error: unknown) => {
        options.onBackgroundError?.(error);
        // A store that could not be opened again is tried again, as a restart would be.
        if (closedBroken && !closing) {
          retryTimer = setTimeout(resume, REOPEN_RETRY_MS);
          retryTimer.unref();
        }
      })
      .finally(() => {
        reopening = undefined;
      });
  }

  async function close(): Promise<void> {
    closing = true;
    clearTimeout(retryTimer);
    await reopening;
    if (!closedBroken) await current.close();
  }

  // Every member is the current store's, looked up at each use, so that holders of this object
  // (routes, monitors, readers) follow the store across a reopen.
  const forward: ProxyHandler<EventStore> = {
    get(_target, key) {
      if (key === 'resume') return resume;
      if (key === 'close') return close;
      const value: unknown = Reflect.get(current, key, current);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  };
  return new Proxy(current, forward);
}
