/**
 * The decode worker's entry: decodes request bodies off the service's main thread, so that
 * parsing a large batch never stalls other requests. Messages are DecodeJob in, DecodeReply out
 * (see decode-pool.ts).
 */
import { parentPort } from 'node:worker_threads';
import { decodeBody } from './decode.js';
import type { DecodeJob, DecodeReply } from './decode-pool.js';
import { transferIngestError } from './errors.js';

if (!parentPort) throw new Error('decode-worker.js runs as a worker thread of the decode pool.');
const port = parentPort;

port.on('message', (job: DecodeJob) => {
  let reply: DecodeReply;
  try {
    reply = { id: job.id, ok: true, result: decodeBody(job.body, job.options, { file: job.file, nowMs: job.nowMs, limits: job.limits }) };
  } catch (error) {
    const refused = transferIngestError(error);
    reply = refused
      ? { id: job.id, ok: false, refused }
      : { id: job.id, ok: false, fault: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  port.postMessage(reply);
});
