import { describe, expect, it } from 'vitest';
import { TableExtents, type Extent } from '../../../src/engine/store/table-extents.js';

/** A measuring function whose answers the test hands out one at a time. */
function measurements() {
  const calls: { table: string; answer: (extent: Extent) => void; fail: (error: Error) => void }[] = [];
  const measure = (table: string) =>
    new Promise<Extent>((resolve, reject) => {
      calls.push({ table, answer: resolve, fail: reject });
    });
  return { calls, measure };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function knownExtent(extent: Extent, table = 'ds_1') {
  const { calls, measure } = measurements();
  const errors: unknown[] = [];
  const extents = new TableExtents(measure, (error) => errors.push(error));
  expect(extents.windowRows(table, 0n, 100n)).toBeUndefined();
  calls[0]?.answer(extent);
  await settle();
  return { extents, calls, errors };
}

describe('TableExtents', () => {
  it('knows nothing at first, and measures a table once however many queries ask meanwhile', () => {
    const { calls, measure } = measurements();
    const extents = new TableExtents(measure, () => undefined);
    expect(extents.windowRows('ds_1', 0n, 100n)).toBeUndefined();
    expect(extents.windowRows('ds_1', 0n, 100n)).toBeUndefined();
    expect(extents.windowRows('ds_2', 0n, 100n)).toBeUndefined();
    expect(calls.map((call) => call.table)).toEqual(['ds_1', 'ds_2']);
  });

  it('answers a window that takes in the whole table with its rows, one that misses it with 0, and not one that cuts through it', async () => {
    const { extents } = await knownExtent({ rows: 42, first: 10n, last: 20n });
    const version = extents.windowRows('ds_1', 10n, 21n)?.version;
    expect(version).toBeTypeOf('number');
    expect(extents.windowRows('ds_1', 10n, 21n)).toEqual({ rows: 42, version });
    expect(extents.windowRows('ds_1', -5n, 1000n)).toEqual({ rows: 42, version });
    // The window's end is exclusive, its start inclusive.
    expect(extents.windowRows('ds_1', 10n, 20n)).toBeUndefined();
    expect(extents.windowRows('ds_1', 11n, 21n)).toBeUndefined();
    expect(extents.windowRows('ds_1', 0n, 10n)).toEqual({ rows: 0, version });
    expect(extents.windowRows('ds_1', 21n, 30n)).toEqual({ rows: 0, version });
    expect(extents.windowRows('ds_1', 20n, 30n)).toBeUndefined();
  });

  it('answers 0 for any window over an empty table', async () => {
    const { extents } = await knownExtent({ rows: 0, first: 0n, last: 0n });
    expect(extents.windowRows('ds_1', 5n, 6n)?.rows).toBe(0);
  });

  it('answers nothing while a commit is in flight, and measures again after it', async () => {
    const { extents, calls } = await knownExtent({ rows: 42, first: 10n, last: 20n });
    const known = extents.windowRows('ds_1', 0n, 100n);
    let finishCommit = (): void => undefined;
    const committed = extents.commit(() => new Promise<void>((resolve) => (finishCommit = resolve)));
    expect(extents.windowRows('ds_1', 0n, 100n)).toBeUndefined();
    expect(extents.unchangedSince(known?.version ?? -1)).toBe(false);
    finishCommit();
    await committed;
    expect(extents.windowRows('ds_1', 0n, 100n)).toBeUndefined();
    expect(calls).toHaveLength(2);
    calls[1]?.answer({ rows: 50, first: 10n, last: 30n });
    await settle();
    expect(extents.windowRows('ds_1', 0n, 100n)?.rows).toBe(50);
  });

  it('counts a failed commit as a change too', async () => {
    const { extents } = await knownExtent({ rows: 1, first: 1n, last: 1n });
    const version = extents.windowRows('ds_1', 0n, 100n)?.version ?? -1;
    await expect(extents.commit(() => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    expect(extents.unchangedSince(version)).toBe(false);
    expect(extents.windowRows('ds_1', 0n, 100n)).toBeUndefined();
  });

  it('drops a measurement that a commit overlapped: it may have read either version', async () => {
    const { calls, measure } = measurements();
    const extents = new TableExtents(measure, () => undefined);
    expect(extents.windowRows('ds_1', 0n, 100n)).toBeUndefined();
    await extents.commit(async () => undefined);
    calls[0]?.answer({ rows: 7, first: 1n, last: 2n });
    await settle();
    expect(extents.windowRows('ds_1', 0n, 100n)).toBeUndefined();
    // That query started the next measurement, of the version as it is now.
    calls[1]?.answer({ rows: 9, first: 1n, last: 3n });
    await settle();
    expect(extents.windowRows('ds_1', 0n, 100n)?.rows).toBe(9);
  });

  it('stays unchanged while nothing commits', async () => {
    const { extents } = await knownExtent({ rows: 3, first: 1n, last: 3n });
    const known = extents.windowRows('ds_1', 0n, 100n);
    expect(known && extents.unchangedSince(known.version)).toBe(true);
  });

  it('reports a failed measurement and tries again at the next query', async () => {
    const { calls, measure } = measurements();
    const errors: unknown[] = [];
    const extents = new TableExtents(measure, (error, table) => errors.push([table, error]));
    extents.windowRows('ds_1', 0n, 100n);
    calls[0]?.fail(new Error('interrupted'));
    await settle();
    expect(errors).toEqual([['ds_1', new Error('interrupted')]]);
    expect(extents.windowRows('ds_1', 0n, 100n)).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it('forgets a dropped table', async () => {
    const { extents, calls } = await knownExtent({ rows: 3, first: 1n, last: 3n });
    extents.forget('ds_1');
    expect(extents.windowRows('ds_1', 0n, 100n)).toBeUndefined();
    expect(calls).toHaveLength(2);
  });
});
