/**
 * The SQLite store on a thread of its own. better-sqlite3 runs every statement, commit and fold
 * synchronously on the thread that calls it; on the main thread that is time no request is
 * served in (a fifth of a delivery's time under load, and a whole fold batch at once). Here the
 * main thread only posts each call and its answer, and the store (sqlite.ts, unchanged) runs on
 * the worker, in the same process: its one-process ownership of the data dir and its durability
 * are the same. Arguments and results are plain data, copied by structured clone; a delivery's
 * events go as the text of their rows (see packRecords).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DataDirError } from '../../../src/common/errors.js';
import { eventRecord, type EventRecord } from './ingest-group.js';
import { StoreUnavailableError, type BridgeStore } from './types.js';

export interface StoreThreadData {
  dataDir: string;
}

type StoreMethod = Exclude<keyof BridgeStore, 'kind' | 'recording'>;

export interface StoreCall {
  id: number;
  method: StoreMethod;
  args: unknown[];
}

/** An error as it crosses the thread boundary: its class by name, so the main thread can make it again. */
export interface TransferredStoreError {
  name: string;
  message: string;
}

/** Id 0 answers the opening of the store. */
export type StoreReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: TransferredStoreError };

const RECORD_FIELDS = ['source', 'dedupeKey', 'correlationKey', 'event', 'target'] as const;

/**
 * A delivery's event rows as one flat list of strings, for the store's thread. The rows' JSON is
 * made here, once: the thread binds it as it comes (it used to parse the events and serialise
 * them again, a tenth of its time), and a flat list is cloned without an object per event.
 */
export function packRecords(records: readonly EventRecord[]): string[] {
  return records.flatMap((record) => RECORD_FIELDS.map((field) => record[field]));
}

export function unpackRecords(packed: readonly string[]): EventRecord[] {
  const records: EventRecord[] = [];
  for (let at = 0; at < packed.length; at += RECORD_FIELDS.length) {
    const [source, dedupeKey, correlationKey, event, target] = packed.slice(at, at + RECORD_FIELDS.length) as [string, string, string, string, string];
    records.push({ source, dedupeKey, correlationKey, event, target });
  }
  return records;
}

export function transferStoreError(error: unknown): TransferredStoreError {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}

/** The error again, as the class the callers handle: a 503 for the store's, the data dir's own for a refusal to open. */
function revive(error: TransferredStoreError): Error {
  if (error.name === 'StoreUnavailableError') return new StoreUnavailableError(error.message);
  if (error.name === 'DataDirError') return new DataDirError(error.message);
  return Object.assign(new Error(error.message), { name: error.name });
}

/** Opens the SQLite store of `dataDir` on its own thread; resolves once it is open, or rejects as opening it in place would. */
export async function openSqliteStoreOnThread(dataDir: string): Promise<BridgeStore> {
  const worker = new Worker(workerFile(), { workerData: { dataDir } satisfies StoreThreadData, execArgv: [] });
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let ended: Error | undefined;
  let outgoing: StoreCall[] = [];

  const end = (error: Error): void => {
    ended ??= error;
    for (const { reject } of waiting.values()) reject(ended);
    waiting.clear();
  };
  worker.on('message', (replies: StoreReply[]) => {
    for (const reply of replies) {
      const caller = waiting.get(reply.id);
      if (!caller) continue;
      waiting.delete(reply.id);
      if (reply.ok) caller.resolve(reply.value);
      else caller.reject(revive(reply.error));
    }
  });
  // A thread that dies takes nothing acknowledged with it (each commit was on disk before its
  // answer was posted); what was in flight fails as the store being unavailable: senders retry.
  worker.on('error', (error) => end(new StoreUnavailableError(`The SQLite store's thread failed: ${error.message}`)));
  worker.on('exit', (code) => end(new StoreUnavailableError(`The SQLite store's thread stopped (exit code ${code}).`)));

  const opened = new Promise<unknown>((resolve, reject) => waiting.set(0, { resolve, reject }));
  try {
    await opened;
  } catch (error) {
    await worker.terminate();
    throw error;
  }

  // The calls made in one turn of the event loop go in one message: under load a message costs
  // the main thread more than the calls in it (it wakes the worker).
  function send(): void {
    const calls = outgoing;
    outgoing = [];
    worker.postMessage(calls);
  }
  const call = <T>(method: StoreMethod, args: unknown[]): Promise<T> => {
    if (ended) return Promise.reject(ended);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (outgoing.push({ id, method, args }) === 1) setImmediate(send);
    });
  };

  let recording = 0;
  let closing: Promise<void> | undefined;
  return {
    kind: 'sqlite',
    get recording() {
      return recording;
    },
    async ingest(events, receivedAt) {
      recording++;
      try {
        return await call('ingest', [packRecords(events.map(eventRecord)), receivedAt]);
      } finally {
        recording--;
      }
    },
    claimBatch: (owner, now, limit) => call('claimBatch', [owner, now, limit]),
    noteCreateAttempts: (attempts) => call('noteCreateAttempts', [attempts]),
    completeBatch: (owner, now, applied) => call('completeBatch', [owner, now, applied]),
    fail: (id, owner, failure) => call('fail', [id, owner, failure]),
    closeOverdue: (now, maxOpenMs) => call('closeOverdue', [now, maxOpenMs]),
    releaseLeases: (owner) => call('releaseLeases', owner === undefined ? [] : [owner]),
    deadLetters: (limit) => call('deadLetters', [limit]),
    retryDeadLetter: (id, now) => call('retryDeadLetter', [id, now]),
    episodes: (correlationKey) => call('episodes', [correlationKey]),
    fold: () => call('fold', []),
    counts: () => call('counts', []),
    purge: (before) => call('purge', [before]),
    ping: () => call('ping', []),
    close: () =>
      (closing ??= (async () => {
        try {
          if (!ended) await call('close', []);
        } finally {
          await worker.terminate();
        }
      })()),
  };
}

/** The compiled worker beside this module, or, when this module runs from source (the tests), the one "npm run build" made. */
function workerFile(): URL {
  const beside = new URL('./sqlite-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  const built = new URL('../../../build/webhook-server/src/store/sqlite-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new StoreUnavailableError(`The SQLite store's thread ${fileURLToPath(beside)} is missing. Run "npm run build" first.`);
}
