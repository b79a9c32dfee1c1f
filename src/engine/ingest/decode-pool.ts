import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DecodedBody } from './decode.js';
import { ingestError, type TransferredIngestError } from './errors.js';
import type { IngestLimits } from './limits.js';
import type { IngestOptions } from './options.js';

export interface DecodeJob {
  readonly id: number;
  readonly body: Uint8Array;
  readonly options: IngestOptions;
  readonly file: string;
  readonly nowMs: number;
  readonly limits: IngestLimits;
}

export type DecodeReply =
  | { readonly id: number; readonly ok: true; readonly result: DecodedBody }
  | { readonly id: number; readonly ok: false; readonly refused: TransferredIngestError }
  | { readonly id: number; readonly ok: false; readonly fault: string };

/** A decode worker failed in a way that is not the body's fault. */
export class DecodeFaultError extends Error {
  readonly code = 'decode_fault';
}

export interface DecodePool {
  /** Decodes a body on a worker thread; rejects with the same errors decodeBody throws. */
  decode(job: Omit<DecodeJob, 'id'>): Promise<DecodedBody>;
  close(): Promise<void>;
}

interface Pending {
  job: DecodeJob;
  resolve: (result: DecodedBody) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  current: Pending | undefined;
  /** Stops the worker when it has been idle for a while. */
  idle: NodeJS.Timeout | undefined;
}

/** How long a worker may sit idle before it is stopped, giving its heap back; the next body starts one again. */
export const DECODE_WORKER_IDLE_MS = 2000;

/**
 * Up to `size` worker threads that decode request bodies, one body at a time each, in arrival
 * order. Workers start when there is work and stop after DECODE_WORKER_IDLE_MS without any, so
 * an idle service holds no decoding heaps.
 */
export function createDecodePool(size: number, options: { idleMs?: number } = {}): DecodePool {
  const file = workerFile();
  const idleMs = options.idleMs ?? DECODE_WORKER_IDLE_MS;
  const queue: Pending[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;

  const retire = (slot: Slot): void => {
    const index = slots.indexOf(slot);
    if (index !== -1) slots.splice(index, 1);
  };

  const spawn = (): Slot => {
    // Not the parent's flags: some (--input-type, --eval's) make no sense for a worker's file.
    // A young generation large enough for a whole batch's short-lived objects keeps them from
    // being promoted, which costs far more collection time than the memory it takes.
    const slot: Slot = { worker: new Worker(file, { execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 64 } }), current: undefined, idle: undefined };
    slot.worker.on('message', (reply: DecodeReply) => {
      const pending = slot.current;
      slot.current = undefined;
      if (pending && pending.job.id === reply.id) {
        if (reply.ok) pending.resolve(reply.result);
        else if ('refused' in reply) pending.reject(ingestError(reply.refused.kind, reply.refused.code, reply.refused.message));
        else pending.reject(new DecodeFaultError(`Decoding the body failed: ${reply.fault}`));
      }
      pump();
      if (!slot.current) {
        // An idle worker must not keep the process alive; a busy one must (see pump).
        slot.worker.unref();
        slot.idle = setTimeout(() => {
          retire(slot);
          void slot.worker.terminate();
        }, idleMs);
        slot.idle.unref();
      }
    });
    slot.worker.on('error', (error) => {
      slot.current?.reject(new DecodeFaultError(`The decode worker failed: ${error.message}`));
      slot.current = undefined;
    });
    slot.worker.on('exit', () => {
      slot.current?.reject(new DecodeFaultError('The decode worker exited while decoding.'));
      slot.current = undefined;
      clearTimeout(slot.idle);
      retire(slot);
      if (!closed) pump();
    });
    slots.push(slot);
    return slot;
  };

  const pump = (): void => {
    while (queue.length > 0) {
      const slot = slots.find((candidate) => !candidate.current) ?? (slots.length < Math.max(1, size) ? spawn() : undefined);
      if (!slot) return;
      clearTimeout(slot.idle);
      const pending = queue.shift() as Pending;
      slot.current = pending;
      slot.worker.ref();
      slot.worker.postMessage(pending.job);
    }
  };

  return {
    decode: (job) =>
      new Promise((resolve, reject) => {
        if (closed) {
          reject(new DecodeFaultError('The decode pool is closed.'));
          return;
        }
        queue.push({ job: { ...job, id: nextId++ }, resolve, reject });
        pump();
      }),
    close: async () => {
      closed = true;
      for (const pending of queue.splice(0)) pending.reject(new DecodeFaultError('The decode pool is closed.'));
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}

/**
 * The compiled worker next to this module. Tests run the TypeScript sources, where no .js sits
 * beside this file and Node cannot run the .ts one in a worker: they use the build's copy
 * (`npm test` builds first).
 */
function workerFile(): URL {
  const beside = new URL('./decode-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  const built = new URL('../../../build/src/engine/ingest/decode-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new DecodeFaultError(`The decode worker ${fileURLToPath(beside)} is missing. Run "npm run build" first.`);
}
