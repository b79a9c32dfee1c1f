import { Decompress } from 'fzstd';
import { gunzipSync } from 'node:zlib';
import { ingestError } from './errors.js';
import { formatBytes } from './limits.js';
import type { IngestEncoding } from './options.js';

/** Compressed input is fed to zstd in slices, so the output cap is checked as it grows. */
const ZSTD_SLICE_BYTES = 64 * 1024;

/**
 * zlib's output chunk for gzip bodies. zlib fills chunks of this size and, when there are
 * several, copies them into one buffer: with its default (16 KiB) that is hundreds of chunks
 * and a copy of the whole body into freshly mapped memory (perf over a 1,000,000-event ingest
 * put 4% of the service's CPU in that copy and its page faults). The gzip trailer states the
 * decompressed size of the last member (ISIZE, modulo 2^32), so one chunk of that size usually
 * holds everything. The trailer is the client's word: it only sizes the chunk (never above
 * the limit); zlib still stops at maxOutputLength, and a body that claims too little takes
 * several chunks as before.
 */
function gzipChunkBytes(body: Uint8Array, maxBytes: number): number {
  const MIN_CHUNK = 16 * 1024;
  if (body.length < 18) return MIN_CHUNK;
  const end = body.length;
  const stated = ((body[end - 1] as number) * 2 ** 24) + ((body[end - 2] as number) << 16) + ((body[end - 3] as number) << 8) + (body[end - 4] as number);
  // One byte more than stated, so that zlib sees the end of the stream inside the first chunk.
  return Math.max(MIN_CHUNK, Math.min(stated + 1, maxBytes + 1));
}

class TooLarge extends Error {}

/**
 * Decompresses a request body, never producing more than `maxBytes`: a body that would is a
 * 413, decided while decompressing (a small gzip bomb never gets the chance to fill memory).
 * Undecodable input is a 400 that names the encoding.
 */
export function decompressBody(body: Uint8Array, encoding: IngestEncoding, maxBytes: number): Uint8Array {
  if (encoding === 'identity' || body.length === 0) return body;
  try {
    return encoding === 'gzip' ? gunzipSync(body, { maxOutputLength: maxBytes, chunkSize: gzipChunkBytes(body, maxBytes) }) : unzstd(body, maxBytes);
  } catch (error) {
    if (error instanceof TooLarge || (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw ingestError('too_large', 'body_too_large', `The decompressed request body is larger than the limit of ${formatBytes(maxBytes)}. Expected at most ${formatBytes(maxBytes)} of events per request: split them into several requests.`);
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw ingestError('invalid', 'invalid_encoding', `The request body is not valid ${encoding} data (${reason}). Expected a body compressed as its Content-Encoding header says, or no Content-Encoding for plain text.`);
  }
}

function unzstd(body: Uint8Array, maxBytes: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let ended = false;
  const stream = new Decompress((chunk, final) => {
    total += chunk.length;
    if (total > maxBytes) throw new TooLarge();
    chunks.push(chunk);
    if (final) ended = true;
  });
  for (let offset = 0; offset < body.length; offset += ZSTD_SLICE_BYTES) {
    const end = Math.min(offset + ZSTD_SLICE_BYTES, body.length);
    stream.push(body.subarray(offset, end), end === body.length);
  }
  if (!ended) throw new Error('the data ends before the end of its last frame');
  return Buffer.concat(chunks, total);
}
