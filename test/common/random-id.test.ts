import { describe, expect, it } from 'vitest';
import { pooledRandomBytes, randomId } from '../../src/common/random-id.js';

describe('random ids', () => {
  it('gives the prefix and that many base-32 characters, a different id each time', () => {
    const ids = Array.from({ length: 2_000 }, () => randomId('ann_', 20));
    for (const id of ids) expect(id).toMatch(/^ann_[a-z2-7]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('never hands out the same pooled bytes twice, across the refill of the pool', () => {
    // 600 draws of 8 bytes cross the 4 KiB page once: each draw's bytes are its own.
    const draws = Array.from({ length: 600 }, () => pooledRandomBytes(8).toString('hex'));
    expect(new Set(draws).size).toBe(draws.length);
    // A draw that does not fit in what is left of the page comes whole from a fresh one.
    expect(pooledRandomBytes(4096)).toHaveLength(4096);
    expect(() => pooledRandomBytes(4097)).toThrow(RangeError);
  });
});
