import { randomFillSync } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * Random bytes drawn a page at a time: one call into OpenSSL per 4 KiB rather than one per id.
 * Under load a call per request (an annotation's id, a request's trace id) was a measurable share
 * of the work. No two callers share bytes, and a used page is refilled before it is read again.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** `count` (at most 4096) fresh random bytes, as a view of the pool: read them before the next call. */
export function pooledRandomBytes(count: number): Buffer {
  if (count > pool.length) throw new RangeError(`at most ${pool.length} random bytes at a time, not ${count}`);
  if (poolOffset + count > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

/** `prefix` and `length` lowercase base-32 characters (5 random bits each): safe in paths, URLs and shells. */
export function randomId(prefix: string, length: number): string {
  let id = prefix;
  for (const byte of pooledRandomBytes(length)) id += BASE32[byte & 31];
  return id;
}
