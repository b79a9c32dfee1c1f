import type { Request } from 'express';
import { InputError, PayloadTooLargeError } from '../../common/errors.js';
import { formatBytes } from '../../engine/ingest/limits.js';

/**
 * Reads a request body as it was sent (compressed or not) into one buffer, refusing at once a
 * Content-Length over `maxBytes` and stopping as soon as the bytes received pass it.
 */
export function readRawBody(req: Request, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new PayloadTooLargeError(`The request body is larger than the limit of ${formatBytes(maxBytes)}. Expected at most ${formatBytes(maxBytes)} per request: split the events into several requests.`);
  const declared = Number(req.get('content-length') ?? 0);
  if (declared > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const finish = (error: Error | undefined): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (error) {
        // Stop reading; the reply (413) still goes out, and Node then closes the connection.
        req.pause();
        reject(error);
      } else {
        resolve(Buffer.concat(chunks, total));
      }
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > maxBytes) finish(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (error: Error): void => finish(new InputError(`The request body could not be read: ${error.message}.`));
    const onAborted = (): void => finish(new InputError('The client closed the connection before the request body was complete.'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}
