/**
 * The SQLite store's thread (see sqlite-thread.ts): opens the store named by workerData and runs
 * the calls the main thread posts, which come, and are answered, a turn's worth to a message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStore, syncInPlace } from './sqlite.js';
import { transferStoreError, type StoreCall, type StoreReply, type StoreThreadData } from './sqlite-thread.js';
import type { BridgeStore } from './types.js';

if (!parentPort) throw new Error('sqlite-worker.js runs as the SQLite store thread of the bridge.');
const port = parentPort;
const { dataDir } = workerData as StoreThreadData;

let store: BridgeStore | undefined;
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
  const opened = store as BridgeStore;
  for (const call of calls) {
    const method = opened[call.method] as (...args: unknown[]) => Promise<unknown>;
    // The main thread sends a delivery's events as JSON text (sqlite-thread.ts).
    if (call.method === 'ingest') call.args[0] = JSON.parse(call.args[0] as string);
    Promise.resolve()
      .then(() => method.apply(opened, call.args))
      .then(
        (value) => reply({ id: call.id, ok: true, value }),
        (error: unknown) => reply({ id: call.id, ok: false, error: transferStoreError(error) }),
      );
  }
});
