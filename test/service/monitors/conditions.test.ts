import { describe, expect, it } from 'vitest';
import {
  crosses,
  describeValue,
  matchedEvents,
  MonitorResultError,
  observeThreshold,
  type QueryTable,
} from '../../../src/service/monitors/conditions.js';

/** A result table from rows, the way the engine answers: column-major. */
function table(name: string, fields: string[], rows: unknown[][], groups: string[] = []): QueryTable {
  return {
    name,
    fields: fields.map((field) => ({ name: field })),
    groups: groups.map((group) => ({ name: group })),
    columns: fields.map((_, index) => rows.map((row) => row[index])),
  };
}

const above10 = { operator: 'Above' as const, threshold: 10, notifyByGroup: false };

describe('threshold observation', () => {
  it('compares the single aggregate of a summarize', () => {
    expect(observeThreshold({ tables: [table('0', ['count_'], [[14]])] }, above10)).toEqual({
      kind: 'values',
      valueField: 'count_',
      groups: [{ groupKeys: [], groupValues: [], value: 14 }],
    });
  });

  it('reads the _totals table of a time-binned query: the aggregate over the whole range', () => {
    const series = table('0', ['_time', 'count_'], [['2024-01-01T00:00:00Z', 6], ['2024-01-01T00:01:00Z', 7]], ['_time']);
    const totals = table('_totals', ['count_'], [[13]]);
    const observed = observeThreshold({ tables: [series, totals] }, above10);
    expect(observed).toMatchObject({ kind: 'values', groups: [{ value: 13 }] });
  });

  it('takes the last column as the value, after the group keys', () => {
    const result = { tables: [table('0', ['service', 'errors', 'total', 'ratio'], [['checkout', 3, 10, 30]], ['service'])] };
    expect(observeThreshold(result, above10)).toMatchObject({ valueField: 'ratio', groups: [{ value: 30 }] });
  });

  it('keeps each group apart with notifyByGroup, and names its keys', () => {
    const result = { tables: [table('0', ['service', 'region', 'count_'], [['checkout', 'eu', 12], ['search', 'us', 3]], ['service', 'region'])] };
    expect(observeThreshold(result, { ...above10, notifyByGroup: true })).toEqual({
      kind: 'values',
      valueField: 'count_',
      groups: [
        { groupKeys: ['service', 'region'], groupValues: ['checkout', 'eu'], value: 12 },
        { groupKeys: ['service', 'region'], groupValues: ['search', 'us'], value: 3 },
      ],
    });
  });

  it('folds groups into one episode valued at the most extreme row without notifyByGroup', () => {
    const rows = [['a', 3], ['b', 12], ['c', 7]];
    const result = { tables: [table('0', ['service', 'count_'], rows, ['service'])] };
    expect(observeThreshold(result, above10)).toMatchObject({ groups: [{ groupKeys: [], groupValues: [], value: 12 }] });
    expect(observeThreshold(result, { ...above10, operator: 'Below' })).toMatchObject({ groups: [{ value: 3 }] });
    expect(observeThreshold(result, { ...above10, operator: 'AboveOrBelow', threshold: 8 })).toMatchObject({ groups: [{ value: 3 }] });
  });

  it('sees no data in an empty result or in null values only', () => {
    expect(observeThreshold({ tables: [table('0', ['service', 'count_'], [], ['service'])] }, above10)).toEqual({ kind: 'no-data' });
    expect(observeThreshold({ tables: [table('0', ['avg_latency'], [[null]])] }, above10)).toEqual({ kind: 'no-data' });
    expect(observeThreshold({ tables: [] }, above10)).toEqual({ kind: 'no-data' });
  });

  it('reads 64-bit integers that arrive as strings', () => {
    expect(observeThreshold({ tables: [table('0', ['sum_bytes'], [['9007199254740993']])] }, above10)).toMatchObject({
      groups: [{ value: 9007199254740992 }],
    });
  });

  it('refuses a value column that does not hold numbers, naming it', () => {
    const result = { tables: [table('0', ['service'], [['checkout']])] };
    expect(() => observeThreshold(result, above10)).toThrow(MonitorResultError);
    expect(() => observeThreshold(result, above10)).toThrow(/Column service holds "checkout"/);
  });

  it('refuses a result with only group keys and no value column', () => {
    const result = { tables: [table('0', ['service'], [['checkout']], ['service'])] };
    expect(() => observeThreshold(result, above10)).toThrow(/no value column/);
  });
});

describe('threshold operators', () => {
  it.each([
    ['Above', 10, false],
    ['Above', 11, true],
    ['AboveOrEqual', 10, true],
    ['AboveOrEqual', 9, false],
    ['Below', 10, false],
    ['Below', 9, true],
    ['BelowOrEqual', 10, true],
    ['BelowOrEqual', 11, false],
    ['AboveOrBelow', 10, false],
    ['AboveOrBelow', 10.5, true],
    ['AboveOrBelow', 2, true],
  ] as const)('%s 10: %s crosses = %s', (operator, value, expected) => {
    expect(crosses(value, { operator, threshold: 10 })).toBe(expected);
  });

  it('words the Open and Closed bodies as Axiom does', () => {
    expect(describeValue(14.2, { operator: 'AboveOrEqual', threshold: 10 })).toBe('Current value of 14.2 is above or equal to the threshold value of 10');
    expect(describeValue(2.1, { operator: 'AboveOrEqual', threshold: 10 })).toBe('Current value of 2.1 is below the threshold value of 10');
    expect(describeValue(null, { operator: 'Below', threshold: 1 })).toBe('The query returned no data.');
  });
});

describe('matched events', () => {
  it('turns each row into an event, oldest first, with a stable identity', () => {
    const result = {
      tables: [
        table(
          '0',
          ['_sysTime', '_time', 'message'],
          [
            ['2024-01-01T00:02:01Z', '2024-01-01T00:02:00Z', 'panic: b'],
            ['2024-01-01T00:01:01Z', '2024-01-01T00:01:00Z', 'panic: a'],
          ],
        ),
      ],
    };
    const events = matchedEvents(result);
    expect(events.map((event) => event.event.message)).toEqual(['panic: a', 'panic: b']);
    expect(events[0]?.timeMs).toBe(Date.parse('2024-01-01T00:01:00Z'));
    expect(matchedEvents(result).map((event) => event.hash)).toEqual(events.map((event) => event.hash));
    expect(new Set(events.map((event) => event.hash)).size).toBe(2);
  });
});
