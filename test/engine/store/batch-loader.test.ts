import { describe, expect, it, vi } from 'vitest';
import { BatchLoader, LoadFailedError, type BatchLoaderOptions, type Loadable } from '../../../src/engine/store/batch-loader.js';

/** A loader whose loads are recorded (and can be made to fail), with the options under test. */
function loader(options: Partial<BatchLoaderOptions<Loadable>> = {}) {
  const loads: bigint[][] = [];
  const errors: unknown[] = [];
  const state = { failNext: 0 };
  const instance = new BatchLoader<Loadable>({
    load: async (items) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (state.failNext > 0) {
        state.failNext--;
        throw new Error('disk full');
      }
      loads.push(items.map((item) => item.seq));
    },
    afterLoad: async () => undefined,
    onError: (error) => errors.push(error),
    minRows: 100,
    lingerMs: 20,
    maxRowsPerLoad: 300,
    maxWaitingRows: 1000,
    ...options,
  });
  return { instance, loads, errors, state };
}

const item = (seq: number, rows = 10): Loadable => ({ seq: BigInt(seq), rows });

/** Loads of one 100-row batch each, two at a time, never waiting for more. */
const ONE_BATCH_TWO_AT_ONCE = { onError: () => undefined, minRows: 100, lingerMs: 10_000, maxRowsPerLoad: 100, maxWaitingRows: 1000, concurrency: 2 } as const;

describe('the batch loader', () => {
  it('gathers waiting batches into one load after the linger, in order', async () => {
    const { instance, loads } = loader();
    for (let seq = 1; seq <= 5; seq++) instance.add(item(seq));
    expect(loads).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(loads).toEqual([[1n, 2n, 3n, 4n, 5n]]);
  });

  it('starts at once past minRows and never puts more than maxRowsPerLoad in one load', async () => {
    const { instance, loads } = loader({ lingerMs: 10_000 });
    for (let seq = 1; seq <= 7; seq++) instance.add(item(seq, 100));
    await instance.flush();
    expect(loads).toEqual([[1n], [2n, 3n, 4n], [5n, 6n, 7n]]);
  });

  it('sizes a load to end at a whole number of row groups when one fits', async () => {
    const { instance, loads } = loader({ lingerMs: 10_000, minRows: 10_000, maxRowsPerLoad: 100, alignRows: 30 });
    for (let seq = 1; seq <= 12; seq++) instance.add(item(seq, 10));
    await instance.flush();
    // 90 rows are three whole groups; 100 would leave 10 in a partial one.
    expect(loads).toEqual([[1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n], [10n, 11n, 12n]]);
  });

  it('loads what waits when a reader flushes, without waiting for the linger', async () => {
    const { instance, loads } = loader({ lingerMs: 10_000 });
    instance.add(item(1));
    instance.add(item(2));
    await instance.flush();
    expect(loads).toEqual([[1n, 2n]]);
    await expect(instance.flush()).resolves.toBeUndefined();
  });

  it('refuses batches out of order', () => {
    const { instance } = loader();
    instance.add(item(2));
    expect(() => instance.add(item(2))).toThrow('Batch 2 arrived after batch 2');
  });

  it('tells waiting readers why a load failed and retries it until it succeeds', async () => {
    const { instance, loads, errors, state } = loader({ lingerMs: 10_000 });
    state.failNext = 2;
    instance.add(item(1));
    const flushed = instance.flush();
    await expect(flushed).rejects.toBeInstanceOf(LoadFailedError);
    await expect(flushed).rejects.toThrow('Acknowledged events could not be loaded into the event store yet (retrying): disk full');
    expect(() => instance.check()).toThrow(LoadFailedError);
    // Retried after 200 ms, then 400 ms: the third attempt succeeds.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(loads).toEqual([[1n]]);
    expect(errors).toHaveLength(2);
    expect(() => instance.check()).not.toThrow();
    await expect(instance.flush()).resolves.toBeUndefined();
  });

  it('holds new ingests back while more than maxWaitingRows wait, and lets them go once a load catches up', async () => {
    const { instance } = loader({ lingerMs: 10_000, minRows: 10_000, maxWaitingRows: 250 });
    for (let seq = 1; seq <= 3; seq++) instance.add(item(seq, 100));
    let roomy = false;
    const room = instance.room().then(() => (roomy = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(roomy).toBe(false);
    await instance.flush();
    await room;
    expect(instance.waiting).toEqual({ batches: 0, rows: 0 });
  });

  it('loads everything still waiting when it closes', async () => {
    const { instance, loads } = loader({ lingerMs: 10_000, minRows: 10_000, maxRowsPerLoad: 20 });
    for (let seq = 1; seq <= 5; seq++) instance.add(item(seq));
    await instance.close();
    expect(loads).toEqual([[1n, 2n], [3n, 4n], [5n]]);
  });

  it('runs up to `concurrency` loads at once and counts as loaded only what lies below the oldest batch still loading', async () => {
    const release: Record<string, () => void> = {};
    const started: bigint[][] = [];
    const after: bigint[] = [];
    const instance = new BatchLoader<Loadable>({
      // Each load waits until the test lets it finish, so the second can finish first.
      load: (items) => {
        started.push(items.map((entry) => entry.seq));
        return new Promise<void>((resolve) => (release[String(items[0]?.seq)] = resolve));
      },
      afterLoad: async (_items, loadedThrough) => void after.push(loadedThrough),
      ...ONE_BATCH_TWO_AT_ONCE,
    });
    for (let seq = 1; seq <= 3; seq++) instance.add(item(seq, 100));
    await vi.waitFor(() => expect(started).toEqual([[1n], [2n]]));
    let flushed = false;
    const flush = instance.flush().then(() => (flushed = true));
    release['2']?.();
    await vi.waitFor(() => expect(after).toEqual([0n]));
    // Batch 2 is in, but batch 1 is not: nothing counts as loaded yet, and batch 3 takes the free slot.
    expect(instance.loadedThrough).toBe(0n);
    await vi.waitFor(() => expect(started).toEqual([[1n], [2n], [3n]]));
    release['1']?.();
    await vi.waitFor(() => expect(after).toEqual([0n, 2n]));
    expect(flushed).toBe(false);
    expect(instance.idle).toBe(false);
    release['3']?.();
    await flush;
    expect(instance.loadedThrough).toBe(3n);
    expect(instance.idle).toBe(true);
  });

  it('puts a failed load back in line ahead of later batches while a load beside it succeeds', async () => {
    const attempts: bigint[][] = [];
    let failFirst = true;
    const instance = new BatchLoader<Loadable>({
      load: async (items) => {
        attempts.push(items.map((entry) => entry.seq));
        await new Promise((resolve) => setTimeout(resolve, items[0]?.seq === 1n ? 20 : 5));
        if (items[0]?.seq === 1n && failFirst) {
          failFirst = false;
          throw new Error('disk full');
        }
      },
      afterLoad: async () => undefined,
      ...ONE_BATCH_TWO_AT_ONCE,
    });
    for (let seq = 1; seq <= 2; seq++) instance.add(item(seq, 100));
    await vi.waitFor(() => expect(() => instance.check()).toThrow(LoadFailedError));
    // Batch 2 loaded beside it, but batch 1 waits for its retry: nothing counts as loaded.
    expect(instance.loadedThrough).toBe(0n);
    await vi.waitFor(() => expect(instance.loadedThrough).toBe(2n), { timeout: 2000 });
    expect(attempts).toEqual([[1n], [2n], [1n]]);
    expect(() => instance.check()).not.toThrow();
  });
});
