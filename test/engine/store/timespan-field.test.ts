import { describe, expect, it } from 'vitest';
import { TimespanValue } from '../../../src/engine/ingest/timespan-value.js';
import { openEventStore } from '../../../src/engine/store/event-store.js';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { openTestStore } from '../../helpers/event-store.js';
import { tableRows } from '../helpers/reference.js';

/** Spans of one minute: 100 ms, 200 ms, 300 ms and 1.5 s, at 00:00:10, 00:00:20, 00:01:10, 00:01:20. */
const SPANS = [
  { _time: '2024-01-01T00:00:10Z', service: 'cart', duration: new TimespanValue(100_000_000n) },
  { _time: '2024-01-01T00:00:20Z', service: 'cart', duration: new TimespanValue(200_000_000n) },
  { _time: '2024-01-01T00:01:10Z', service: 'checkout', duration: new TimespanValue(300_000_000n) },
  { _time: '2024-01-01T00:01:20Z', service: 'checkout', duration: new TimespanValue(1_500_000_000n) },
];
const WINDOW = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };

describe('a timespan field', () => {
  it('is stored as a timespan, reported as one, and survives a reopen', async () => {
    const handle = await openTestStore();
    try {
      await handle.load('spans', SPANS);
      const field = handle.store.schema('spans')?.fields.find((f) => f.name === 'duration');
      expect(field).toMatchObject({ storage: 'timespan', types: ['timespan'] });
      await handle.store.close();
      const reopened = await openEventStore({ dataDir: handle.dataDir });
      try {
        expect(reopened.schema('spans')?.fields.find((f) => f.name === 'duration')).toMatchObject({ storage: 'timespan', types: ['timespan'] });
        const { result } = await runApl({ apl: 'spans | summarize total = sum(duration)', format: 'tabular', ...WINDOW }, { reader: reopened });
        expect(tableRows((result as TabularResult).tables[0] as never)).toEqual([{ total: '00:00:02.1' }]);
      } finally {
        await reopened.close();
      }
    } finally {
      await handle.close();
    }
  });

  it('sums, averages, takes percentiles and bins as timespans, and compares with timespan literals', async () => {
    const handle = await openTestStore();
    try {
      await handle.load('spans', SPANS);
      const run = async (apl: string): Promise<TabularResult> => (await runApl({ apl, format: 'tabular', ...WINDOW }, { reader: handle.store })).result as TabularResult;

      const summary = await run('spans | summarize total = sum(duration), mean = avg(duration), p50 = percentile(duration, 50), longest = max(duration) by service');
      const table = summary.tables[0];
      expect(table?.fields.map((f) => [f.name, f.type])).toEqual([
        ['service', 'string'],
        ['total', 'timespan'],
        ['mean', 'timespan'],
        ['p50', 'timespan'],
        ['longest', 'timespan'],
      ]);
      expect(tableRows(table as never)).toEqual([
        { service: 'checkout', total: '00:00:01.8', mean: '00:00:00.9', p50: '00:00:00.3', longest: '00:00:01.5' },
        { service: 'cart', total: '00:00:00.3', mean: '00:00:00.15', p50: '00:00:00.1', longest: '00:00:00.2' },
      ]);

      const binned = await run('spans | summarize count() by b = bin(duration, 1s) | sort by b asc');
      expect(tableRows(binned.tables[0] as never)).toEqual([
        { b: '00:00:00', count_: 3 },
        { b: '00:00:01', count_: 1 },
      ]);

      const slow = await run('spans | where duration > 250ms | summarize count()');
      expect(tableRows(slow.tables[0] as never)).toEqual([{ count_: 2 }]);
      const inMs = await run('spans | extend ms = duration / 1ms | summarize sum(ms)');
      expect(tableRows(inMs.tables[0] as never)).toEqual([{ sum_ms: 2100 }]);
    } finally {
      await handle.close();
    }
  });

  it('widens to string as tostring() writes it when another type arrives, keeping the old values readable', async () => {
    const handle = await openTestStore();
    try {
      await handle.load('spans', SPANS.slice(0, 2));
      await handle.load('spans', [{ _time: '2024-01-01T00:02:00Z', duration: 'slow' }]);
      const field = handle.store.schema('spans')?.fields.find((f) => f.name === 'duration');
      expect(field).toMatchObject({ storage: 'string', types: ['timespan', 'string'] });
      // A batch of timespans arriving after the widening is written as the same text.
      await handle.load('spans', [{ _time: '2024-01-01T00:03:00Z', duration: new TimespanValue(86_400_000_000_123n) }]);
      const { result } = await runApl({ apl: 'spans | sort by _time asc | project duration', format: 'tabular', ...WINDOW }, { reader: handle.store });
      expect(tableRows((result as TabularResult).tables[0] as never).map((row) => row.duration)).toEqual(['100ms', '200ms', 'slow', '24h0m0.000000123s']);
    } finally {
      await handle.close();
    }
  });
});
