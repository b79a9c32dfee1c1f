import { afterEach, describe, expect, it } from 'vitest';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import type { EventReader } from '../../../src/engine/store/types.js';
import { openTestStore, type TestEventStore } from '../../helpers/event-store.js';

/**
 * `rowsExamined` from the store's table extents (src/engine/store/table-extents.ts): a query
 * whose window takes in the whole table, or none of it, leaves the window's count out of its
 * statement once the extent is known. The counters stay exact, also when a commit comes between.
 */

const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 0, 1);
const COVERING = { startTime: '2023-12-31T00:00:00Z', endTime: '2024-01-03T00:00:00Z' };
/** Cuts through the rows: the first 10 hours of the 40. */
const CUTTING = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-01T10:00:00Z' };
const MISSING = { startTime: '2025-01-01T00:00:00Z', endTime: '2025-01-02T00:00:00Z' };

/** 40 events an hour apart; every fourth has x = 1. */
function events(count = 40, offset = 0): unknown[] {
  return Array.from({ length: count }, (_, i) => ({ _time: new Date(T0 + (offset + i) * HOUR).toISOString(), x: (offset + i) % 4 === 0 ? 1 : 0 }));
}

/** Whether a statement counts the window itself: the `rowsExamined` column. */
const countsWindow = (sql: string): boolean => sql.includes('AS "x"');

/** The store as the engine sees it, recording each statement; `unchanged` can say a commit came between. */
function recording(store: EventReader, unchanged?: () => boolean): { reader: EventReader; statements: string[] } {
  const statements: string[] = [];
  const reader: EventReader = {
    schema: (dataset) => store.schema(dataset),
    read: (budget, work) =>
      store.read(budget, (run) =>
        work((sql, params) => {
          statements.push(sql);
          return run(sql, params);
        }),
      ),
    readOne: (budget, sql, params) => {
      statements.push(sql);
      return store.readOne(budget, sql, params);
    },
    windowRows: (table, start, end) => store.windowRows(table, start, end),
    unchangedSince: (version) => (unchanged ? unchanged() : store.unchangedSince(version)),
  };
  return { reader, statements };
}

async function run(reader: EventReader, apl: string, window: { startTime: string; endTime: string }) {
  const { result } = await runApl({ apl, format: 'tabular', ...window }, { reader });
  const tabular = result as TabularResult;
  return { value: tabular.tables[0]?.columns[0]?.[0], rowCount: tabular.tables[0]?.columns[0]?.length ?? 0, status: tabular.status };
}

/** Runs the query until the store knows the table's extent (measured in the background after the first query). */
async function untilKnown(reader: EventReader, statements: string[], apl: string, window: { startTime: string; endTime: string }) {
  for (let attempt = 0; attempt < 100; attempt++) {
    statements.length = 0;
    const answer = await run(reader, apl, window);
    if (!statements.some(countsWindow)) return answer;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('The store never came to know the extent.');
}

let opened: TestEventStore | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe('rowsExamined from the table extent', () => {
  it('leaves the window count out once the extent is known, with the same counters', async () => {
    opened = await openTestStore();
    await opened.load('ext', events());
    const { reader, statements } = recording(opened.store);
    const apl = "['ext'] | where x == 1 | count";

    const first = await run(reader, apl, COVERING);
    expect(first).toMatchObject({ value: 10, status: { rowsExamined: 40, rowsMatched: 10 } });
    expect(statements.some(countsWindow)).toBe(true);

    expect(await untilKnown(reader, statements, apl, COVERING)).toMatchObject({ value: 10, status: { rowsExamined: 40, rowsMatched: 10 } });
    // Raw rows (a limit at the root) and a filter that leaves nothing: the counters still come out right.
    statements.length = 0;
    expect(await run(reader, "['ext'] | take 3", COVERING)).toMatchObject({ rowCount: 3, status: { rowsExamined: 40, rowsMatched: 40 } });
    expect(await run(reader, "['ext'] | where x == 7", COVERING)).toMatchObject({ rowCount: 0, status: { rowsExamined: 40, rowsMatched: 0 } });
    expect(statements.some(countsWindow)).toBe(false);

    // A window that misses the table: nothing examined, without counting.
    expect(await run(reader, apl, MISSING)).toMatchObject({ value: 0, status: { rowsExamined: 0, rowsMatched: 0 } });
    expect(statements.some(countsWindow)).toBe(false);

    // One that cuts through it is counted by the statement, as before.
    statements.length = 0;
    expect(await run(reader, apl, CUTTING)).toMatchObject({ value: 3, status: { rowsExamined: 10, rowsMatched: 3 } });
    expect(statements.some(countsWindow)).toBe(true);
  });

  it('counts the window again after a load, a trim and a drop', async () => {
    opened = await openTestStore();
    await opened.load('ext', events());
    const { reader, statements } = recording(opened.store);
    const apl = "['ext'] | where x == 1 | count";
    await untilKnown(reader, statements, apl, COVERING);

    await opened.load('ext', events(8, 40));
    statements.length = 0;
    expect(await run(reader, apl, COVERING)).toMatchObject({ value: 12, status: { rowsExamined: 48, rowsMatched: 12 } });
    expect(statements.some(countsWindow)).toBe(true);
    expect(await untilKnown(reader, statements, apl, COVERING)).toMatchObject({ value: 12, status: { rowsExamined: 48 } });

    // Trimming the first 20 hours: the extent's first time moves, and the count with it.
    await opened.store.trim('ext', BigInt(T0 + 20 * HOUR) * 1_000_000n);
    expect(await run(reader, apl, COVERING)).toMatchObject({ value: 7, status: { rowsExamined: 28, rowsMatched: 7 } });
    expect(await untilKnown(reader, statements, apl, COVERING)).toMatchObject({ value: 7, status: { rowsExamined: 28 } });

    await opened.store.dropDataset('ext');
    await opened.load('ext', events(4));
    expect(await untilKnown(reader, statements, apl, COVERING)).toMatchObject({ value: 1, status: { rowsExamined: 4, rowsMatched: 1 } });
  });

  it('reads again with the count in the statement when a commit came between', async () => {
    opened = await openTestStore();
    await opened.load('ext', events());
    const plain = recording(opened.store);
    await untilKnown(plain.reader, plain.statements, "['ext'] | where x == 1 | count", COVERING);

    const raced = recording(opened.store, () => false);
    expect(await run(raced.reader, "['ext'] | where x == 1 | count", COVERING)).toMatchObject({ value: 10, status: { rowsExamined: 40, rowsMatched: 10 } });
    expect(raced.statements.map(countsWindow)).toEqual([false, true]);
  });

  it('keeps the counters and the result in one version while loads commit beside the queries', async () => {
    opened = await openTestStore({ loadRows: 50, loadLingerMs: 0 });
    const store = opened;
    const batches = 30;
    const loading = (async () => {
      for (let batch = 0; batch < batches; batch++) await store.load('race', events(20, batch * 20));
    })();
    await store.load('race', events(20, batches * 20));
    const answers: { value: unknown; status: TabularResult['status'] }[] = [];
    let done = false;
    void loading.finally(() => (done = true));
    while (!done || answers.length < 20) {
      answers.push(await run(store.store, "['race'] | where x == 1 | count", { startTime: '2023-12-31T00:00:00Z', endTime: '2024-03-01T00:00:00Z' }));
    }
    await loading;
    answers.push(await run(store.store, "['race'] | where x == 1 | count", { startTime: '2023-12-31T00:00:00Z', endTime: '2024-03-01T00:00:00Z' }));
    for (const { value, status } of answers) {
      // Each batch holds 20 rows, 5 of them with x = 1: whatever version a query read, its counters and result agree.
      expect(status.rowsExamined % 20).toBe(0);
      expect(status.rowsMatched).toBe(status.rowsExamined / 4);
      expect(value).toBe(status.rowsMatched);
    }
    expect(answers.at(-1)?.status.rowsExamined).toBe((batches + 1) * 20);
  });
});
