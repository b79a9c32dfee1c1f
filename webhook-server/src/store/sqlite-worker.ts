/**
 * The SQLite store's thread (see sqlite-thread.ts): opens the store named by workerData and runs
 * the calls the main thread posts, which come, and are answered, a turn's worth to a message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStore, syncInPlace } from './sqlite.js';
import type { SqlBridgeStore } from './sql-store.js';
import { transferStoreError, unpackRecords, type StoreCall, type StoreReply, type StoreThreadData } from './sqlite-thread.js';

if (!parentPort) throw new Error('sqlite-worker.js runs as the SQLite store thread of the bridge.');
const port = parentPort;
const { dataDir } = workerData as StoreThreadData;

let store: SqlBridgeStore | undefined;
try {
  // This thread does nothing else: it flushes in place (see syncInPlace).
  store = openSqliteStore(dataDir, syncInPlace);
  port.postMessage([{ id: 0, ok: true, value: undefined }] satisfies StoreReply[]);
} catch (error) {
  port.postMessage([{ id: 0, ok: false, error: transferStoreError(error) }] satisfies StoreReply[]);
}

// Answers ready in one turn go back in one message, as the calls came.
let outgoing: StoreReply[] = [];
function reply(answer: StoreReply): void {
  if (outgoing.push(answer) > 1) return;
  setImmediate(() => {
    const answers = outgoing;
    outgoing = [];
    port.postMessage(answers);
  });
}

port.on('message', (calls: StoreCall[]) => {
  const opened = store as SqlBridgeStore;
  for (const call of calls) {
    // The main thread sends a delivery's events as their rows' text (packRecords).
    const run =
      call.method === 'ingest'
        ? () => opened.ingestRecords(unpackRecords(call.args[0] as string[]), call.args[1] as number)
        : () => (opened[call.method] as (...args: unknown[]) => Promise<unknown>).apply(opened, call.args);
    Promise.resolve()
      .then(run)
      .then(
        (value) => reply({ id: call.id, ok: true, value }),
        (error: unknown) => reply({ id: call.id, ok: false, error: transferStoreError(error) }),
      );
  }
});
