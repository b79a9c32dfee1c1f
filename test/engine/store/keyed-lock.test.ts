import { describe, expect, it } from 'vitest';
import { KeyedLock } from '../../../src/engine/store/keyed-lock.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('keyed lock', () => {
  it('runs shared holders together and an exclusive holder alone, in arrival order', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const running = new Map<string, number>();
    const task = (name: string, key = 'a') => async () => {
      running.set(key, (running.get(key) ?? 0) + 1);
      log.push(`${name} starts with ${running.get(key)} running on ${key}`);
      await tick();
      running.set(key, (running.get(key) ?? 0) - 1);
    };
    await Promise.all([
      lock.shared('a', task('s1')),
      lock.shared('a', task('s2')),
      lock.exclusive('a', task('x1')),
      lock.shared('a', task('s3')),
      lock.exclusive('b', task('other key', 'b')),
    ]);
    expect(log).toEqual([
      's1 starts with 1 running on a',
      's2 starts with 2 running on a',
      'other key starts with 1 running on b',
      'x1 starts with 1 running on a',
      's3 starts with 1 running on a',
    ]);
  });

  it('releases the lock when a task fails, and drains', async () => {
    const lock = new KeyedLock();
    await expect(lock.exclusive('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lock.exclusive('a', async () => 'next')).toBe('next');
    let done = false;
    void lock.shared('a', async () => {
      await tick();
      done = true;
    });
    await lock.drain();
    expect(done).toBe(true);
  });
});
