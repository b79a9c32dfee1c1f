import { InputError, TimemarkError, UnavailableError } from '../../common/errors.js';

/**
 * Errors of the event store, built on the shared kinds (src/common/errors.ts) so that a boundary
 * maps them like any other: a query over its budget is the caller's to narrow (400), a store
 * that is shutting down asks for a retry (503).
 */

/** The query ran past its time budget and was interrupted. HTTP 400. */
export class QueryTimeoutError extends InputError {
  constructor(readonly timeoutMs: number) {
    super(`The query did not finish within its time limit of ${timeoutMs} ms and was stopped. Narrow the time range or the filter, or aggregate more.`, {
      code: 'query_timeout',
    });
  }
}

/** The query needed more memory than the engine may use. HTTP 400. */
export class QueryMemoryError extends InputError {
  constructor(limit: string, cause: unknown) {
    super(`The query needed more memory than the limit of ${limit}. Narrow the time range or the filter, or group by fewer keys.`, {
      code: 'query_memory',
      cause,
    });
  }
}

/** The query was cancelled: the client went away, or the service is shutting down. */
export class QueryCancelledError extends TimemarkError {
  constructor() {
    super('query_cancelled', 'The query was cancelled before it finished.');
  }
}

/** The store is closed or closing; no new work is accepted. HTTP 503. */
export class StoreClosedError extends UnavailableError {
  constructor() {
    super('The event store is shutting down and accepts no new work.', { code: 'store_closed' });
  }
}

/** Another process holds the events database. */
export class StoreLockedError extends TimemarkError {
  constructor(message: string, cause: unknown) {
    super('store_locked', message, { cause });
  }
}
