import { describe, expect, it } from 'vitest';
import { createIngestQueue, type Delivery } from '../../../webhook-server/src/store/ingest-group.js';
import type { IngestResult } from '../../../webhook-server/src/store/types.js';

/** How deliveries become groups: one statement per group, whatever the store underneath. */

function delivery(receivedAt: number): Delivery {
  return { records: [], receivedAt };
}

function recorder(fail: (group: readonly Delivery[]) => boolean = () => false) {
  const groups: number[][] = [];
  const record = async (group: readonly Delivery[]): Promise<IngestResult[]> => {
    groups.push(group.map((item) => item.receivedAt));
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (fail(group)) throw new Error(`refused ${group.map((item) => item.receivedAt).join(',')}`);
    return group.map(() => ({ accepted: 1, duplicates: 0 }));
  };
  return { groups, record };
}

describe('the ingest queue', () => {
  it('writes the deliveries handed over in one turn as one group, even with no limit on groups', async () => {
    const { groups, record } = recorder();
    const queue = createIngestQueue(record, Number.POSITIVE_INFINITY);
    const first = [1, 2, 3].map((at) => queue.ingest(delivery(at)));
    await new Promise((resolve) => setImmediate(resolve));
    const second = [4, 5].map((at) => queue.ingest(delivery(at)));
    expect(await Promise.all([...first, ...second])).toEqual(Array(5).fill({ accepted: 1, duplicates: 0 }));
    // The second turn's deliveries did not wait for the first group: two groups, one per turn.
    expect(groups).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    await queue.idle();
    expect(queue.pending).toBe(0);
  });

  it('gathers what arrives while the groups in flight are at their limit into the next group', async () => {
    const { groups, record } = recorder();
    const queue = createIngestQueue(record, 1);
    const first = queue.ingest(delivery(1));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [2, 3, 4].map((at) => queue.ingest(delivery(at)));
    await Promise.all([first, ...later]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it('tries each delivery of a refused group alone, so that one refusal refuses only its own', async () => {
    const { groups, record } = recorder((group) => group.some((item) => item.receivedAt === 2));
    const queue = createIngestQueue(record, Number.POSITIVE_INFINITY);
    const results = await Promise.allSettled([1, 2, 3].map((at) => queue.ingest(delivery(at))));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(groups).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('is idle only once a group that was about to start has been written', async () => {
    const { groups, record } = recorder();
    const queue = createIngestQueue(record, Number.POSITIVE_INFINITY);
    const recorded = queue.ingest(delivery(1));
    await queue.idle();
    expect(groups).toEqual([[1]]);
    await recorded;
  });
});
