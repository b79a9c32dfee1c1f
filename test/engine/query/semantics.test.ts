import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AplError } from '../../../src/engine/apl/errors.js';
import { runApl } from '../../../src/engine/query/run-apl.js';
import type { LegacyResult } from '../../../src/engine/results/legacy.js';
import type { TabularResult } from '../../../src/engine/results/tabular.js';
import { useTestStore } from '../../helpers/event-store.js';
import { tableRows } from '../helpers/reference.js';

/**
 * The decided semantics of apl.md, one rule a test, over five hand-made events
 * (test/fixtures/engine/edge-events.json); the expected values are written out by hand.
 */

const EVENTS: unknown[] = JSON.parse(readFileSync(new URL('../../fixtures/engine/edge-events.json', import.meta.url), 'utf8')) as unknown[];
const NOW = 1_706_745_600_000_000_000n; // 2024-02-01T00:00:00Z
const WINDOW = { startTime: '1969-01-01T00:00:00Z', endTime: '2025-01-01T00:00:00Z' };

const fixture = useTestStore((store) => store.load('edge', EVENTS));

async function result(apl: string, format: 'tabular' | 'legacy' = 'tabular'): Promise<TabularResult> {
  const { result: r } = await runApl({ apl, format, ...WINDOW }, { reader: fixture.store, now: () => NOW });
  return r as TabularResult;
}

async function rows(apl: string): Promise<Record<string, unknown>[]> {
  return tableRows((await result(apl)).tables[0] as never);
}

/** One column of the rows in ingest order (the fixture's order), for per-row expectations. */
async function column(expression: string): Promise<unknown[]> {
  const out = await rows(`edge | extend v = ${expression} | sort by _time asc | project v`);
  // Ingest order is the file's order: times ascending except the last, which is the oldest.
  const values = out.map((row) => row.v);
  return [...values.slice(1), values[0]];
}

async function count(apl: string): Promise<number> {
  return (await rows(`${apl} | count`))[0]?.count as number;
}

describe('string operators', () => {
  it('has matches whole terms: letters and digits make terms, _ - . separate them', async () => {
    expect(await column('s has "alpha"')).toEqual([true, true, false, true, false]);
    expect(await column('s has "gamma"')).toEqual([false, true, false, false, false]);
    expect(await column('s has "BETA"')).toEqual([true, true, false, false, false]);
    expect(await column('s has_cs "Beta"')).toEqual([false, true, false, false, false]);
    expect(await column('s !has "alpha"')).toEqual([false, false, true, false, true]);
    expect(await column('s hasprefix "alph"')).toEqual([true, true, true, true, false]);
    expect(await column('s hassuffix "bet"')).toEqual([false, false, true, false, false]);
  });

  it('treats % and _ in contains, startswith and endswith as characters, not patterns', async () => {
    expect(await column('pct contains "%"')).toEqual([true, false, false, false, false]);
    expect(await column('under contains "_"')).toEqual([true, false, true, false, false]);
    expect(await column('under startswith "a_"')).toEqual([true, false, true, false, false]);
    expect(await column('under endswith "_c"')).toEqual([false, false, true, false, false]);
  });

  it('compares case-insensitively with =~ and case-sensitively with ==, in and in~', async () => {
    expect(await column('opt == "v1"')).toEqual([true, false, false, false, false]);
    expect(await column('opt =~ "v1"')).toEqual([true, false, false, true, false]);
    expect(await column('opt in ("V1")')).toEqual([false, false, false, true, false]);
    expect(await column('opt in~ ("V1")')).toEqual([true, false, false, true, false]);
    expect(await column('s contains "ÀLPHA"')).toEqual([false, false, false, false, true]);
    expect(await column('s contains "àlpha"')).toEqual([false, false, false, false, true]);
  });

  it('matches regular expressions unanchored and case-sensitively', async () => {
    expect(await column('s matches regex "a.p"')).toEqual([true, false, true, true, false]);
    expect(await column('s matches regex "lph"')).toEqual([true, true, true, true, false]);
    expect(await column('s matches regex "^A"')).toEqual([false, true, false, false, false]);
  });
});

describe('nulls', () => {
  it('== with one null is false and != is true; two nulls are equal', async () => {
    expect(await column('opt == "v1"')).toEqual([true, false, false, false, false]);
    expect(await column('opt != "v1"')).toEqual([false, true, true, true, true]);
    expect(await column('x == real(null)')).toEqual([false, true, false, false, false]);
    expect(await column('x != real(null)')).toEqual([true, false, true, true, true]);
    expect(await count('edge | where opt != "v1"')).toBe(4);
  });

  it('keeps only true rows in where: an ordering with null is dropped either way', async () => {
    expect(await count('edge | where x > 0')).toBe(2);
    expect(await count('edge | where not(x > 0)')).toBe(2);
  });

  it('gives false for null in string predicates, in and between, and true for their negations', async () => {
    expect(await column('pct contains "1"')).toEqual([true, true, false, false, false]);
    expect(await column('pct !contains "1"')).toEqual([false, false, true, true, true]);
    expect(await column('x between (0 .. 2)')).toEqual([true, false, false, false, true]);
    expect(await column('x !between (0 .. 2)')).toEqual([false, true, true, true, false]);
    expect(await column('opt in ("v1", "V1")')).toEqual([true, false, false, true, false]);
    expect(await column('opt !in ("v1", "V1")')).toEqual([false, true, true, false, true]);
  });

  it('turns null into "" with tostring, and tells null from empty', async () => {
    expect(await column('tostring(opt)')).toEqual(['v1', '', '', 'V1', '']);
    expect(await column('isnull(b)')).toEqual([false, false, true, false, true]);
    expect(await column('isempty(pct)')).toEqual([false, false, true, true, true]);
    expect(await column('coalesce(opt, k)')).toEqual(['v1', 'q', 'p', 'V1', 'r']);
  });

  it('sorts nulls last descending and first ascending', async () => {
    expect((await rows('edge | sort by x | project x')).map((row) => row.x)).toEqual([2.5, 1.5, 0, -1.25, null]);
    expect((await rows('edge | sort by x asc | project x')).map((row) => row.x)).toEqual([null, -1.25, 0, 1.5, 2.5]);
    expect((await rows('edge | sort by x asc nulls last | project x')).map((row) => row.x)).toEqual([-1.25, 0, 1.5, 2.5, null]);
  });
});

describe('numbers', () => {
  it('truncates int / int toward zero and keeps the sign of the dividend in %', async () => {
    expect(await column('n / 2')).toEqual([2, -3, 1, 0, 4]);
    expect(await column('n % 2')).toEqual([1, -1, 0, 0, 1]);
    expect(await column('n / 2.0')).toEqual([2.5, -3.5, 1, 0, 4.5]);
  });

  it('floors bin to multiples of the size, below zero too', async () => {
    expect(await column('bin(n, 4)')).toEqual([4, -8, 0, 0, 8]);
    expect(await column('bin(25.73, 4)')).toEqual([24, 24, 24, 24, 24]);
    expect(await column('bin(x, 1)')).toEqual([1, null, 2, -2, 0]);
    expect(await column('bin(_time, 1s)')).toEqual(['2024-01-01T00:00:00Z', '2024-01-01T00:00:01Z', '2024-01-01T00:00:02Z', '2024-01-01T00:00:03Z', '1969-12-31T23:59:59Z']);
  });

  it('converts strictly with toint and loosely with todouble', async () => {
    expect(await column('toint("12")')).toEqual([12, 12, 12, 12, 12]);
    expect((await column('toint("12a")'))[0]).toBeNull();
    expect((await column('toint(" 12")'))[0]).toBeNull();
    expect((await column('toint("1.5")'))[0]).toBeNull();
    expect(await column('toint(x)')).toEqual([1, null, 2, -1, 0]);
    expect(await column('todouble(pct)')).toEqual([null, null, null, null, null]);
    expect((await column('todouble("2.5")'))[0]).toBe(2.5);
    expect((await column('tobool("TRUE")'))[0]).toBe(true);
  });

  it('rounds half away from zero, with digits', async () => {
    expect(await column('round(x)')).toEqual([2, null, 3, -1, 0]);
    expect((await column('round(1.2345, 2)'))[0]).toBe(1.23);
    expect(await column('abs(n)')).toEqual([5, 7, 2, 0, 9]);
    expect(await column('floor(x)')).toEqual([1, null, 2, -2, 0]);
    expect(await column('ceiling(x)')).toEqual([2, null, 3, -1, 0]);
  });
});

describe('strings', () => {
  it('counts characters, slices zero-based, and finds positions', async () => {
    expect((await column('strlen(s)'))[4]).toBe(12);
    expect((await column('substring(s, 6)'))[0]).toBe('beta');
    expect((await column('substring(s, 0, 5)'))[0]).toBe('alpha');
    expect((await column('indexof(s, "beta")'))[0]).toBe(6);
    expect((await column('indexof(s, "zeta")'))[0]).toBe(-1);
    expect((await column('toupper(k)'))[0]).toBe('P');
    expect((await column('strcat(k, "-", n, "-", opt)'))[1]).toBe('q--7-');
    expect((await column('replace_string("_", "+", under)'))[2]).toBe('a+b+c');
    expect((await column('split(under, "_")'))[2]).toEqual(['a', 'b', 'c']);
    expect((await column('split(under, "_", 1)'))[2]).toBe('b');
  });

  it('extracts a capture group, null when the pattern does not match', async () => {
    expect(await column('extract("([0-9]+)", 1, pct)')).toEqual(['100', '100', null, null, null]);
    expect(await column('extract("(a)(_)", 2, under)')).toEqual(['_', null, '_', null, null]);
  });

  it('chooses with iff and case', async () => {
    expect(await column('iff(n > 0, "pos", "not")')).toEqual(['pos', 'not', 'pos', 'not', 'pos']);
    expect(await column('case(n > 4, "big", n > 0, "small", "none")')).toEqual(['big', 'none', 'small', 'none', 'big']);
    expect(await column('iff(b, n, x)')).toEqual([5, null, 2.5, 0, 0]);
  });
});

describe('time', () => {
  it('prints datetimes in RFC 3339 UTC with nanoseconds trimmed', async () => {
    expect(await column('_time')).toEqual([
      '2024-01-01T00:00:00Z',
      '2024-01-01T00:00:01Z',
      '2024-01-01T00:00:02Z',
      '2024-01-01T00:00:03.123456789Z',
      '1969-12-31T23:59:59.5Z',
    ]);
    expect((await column('tostring(_time)'))[3]).toBe('2024-01-01T00:00:03.123456789Z');
  });

  it('does datetime and timespan arithmetic', async () => {
    expect((await column('_time - datetime(2024-01-01)'))[3]).toBe('00:00:03.123456789');
    expect((await column('datetime(2024-01-01) - _time'))[1]).toBe('-00:00:01');
    expect((await column('1h / 30m'))[0]).toBe(2);
    expect((await column('datetime(2024-01-01) + 1.5h'))[0]).toBe('2024-01-01T01:30:00Z');
    expect((await column('2d + 3h + 10min'))[0]).toBe('2.03:10:00');
    expect((await column('timespan(1.02:03:04)'))[0]).toBe('1.02:03:04');
  });

  it('answers now() and ago() from one instant per query', async () => {
    expect((await column('now()'))[0]).toBe('2024-02-01T00:00:00Z');
    expect((await column('ago(1d)'))[0]).toBe('2024-01-31T00:00:00Z');
  });

  it('computes calendar functions', async () => {
    expect((await column('startofday(datetime(2024-01-03T13:45:00Z))'))[0]).toBe('2024-01-03T00:00:00Z');
    // 2024-01-03 was a Wednesday; weeks start on Sunday.
    expect((await column('startofweek(datetime(2024-01-03T13:45:00Z))'))[0]).toBe('2023-12-31T00:00:00Z');
    expect((await column('startofmonth(datetime(2024-02-15T10:00:00Z))'))[0]).toBe('2024-02-01T00:00:00Z');
    // The APL reference returns the days since Sunday as an int (Kusto: a timespan).
    expect((await column('dayofweek(datetime(2024-01-03T13:45:00Z))'))[0]).toBe(3);
    expect((await column('hourofday(datetime(2024-01-03T13:45:00Z))'))[0]).toBe(13);
    expect((await column('datetime_diff("day", datetime(2024-01-03T01:00:00Z), datetime(2024-01-01T23:00:00Z))'))[0]).toBe(2);
    expect((await column('datetime_diff("month", datetime(2024-03-01), datetime(2023-12-31))'))[0]).toBe(3);
    expect((await column('todatetime("2024-01-15T14:00:00+02:00")'))[0]).toBe('2024-01-15T12:00:00Z');
    expect((await column('todatetime("not a time")'))[0]).toBeNull();
    expect((await column('totimespan("1.5h")'))[0]).toBe('01:30:00');
    expect((await column('totimespan("00:00:01.25")'))[0]).toBe('00:00:01.25');
  });
});

describe('aggregations', () => {
  it('takes nearest-rank percentiles', async () => {
    const [row] = await rows('edge | summarize percentile(n, 0), percentile(n, 20), percentile(n, 21), percentile(n, 50), percentile(n, 100)');
    // Sorted n: -7 0 2 5 9. 20% of 5 is 1: the 1st; 21% needs the 2nd.
    expect(row).toEqual({ percentile_n_0: -7, percentile_n_20: -7, percentile_n_21: 0, percentile_n_50: 2, percentile_n_100: 9 });
    const [list] = await rows('edge | summarize percentiles_array(n, 50, 90)');
    expect(list).toEqual({ percentiles_n: [2, 9] });
  });

  it('keeps make_list in ingest order without nulls, and make_set first-seen and capped', async () => {
    const [row] = await rows('edge | summarize make_list(opt), make_set(k), make_set(k, 2), make_list_if(n, n > 0)');
    expect(row).toEqual({ make_list_opt: ['v1', 'V1'], make_set_k: ['p', 'q', 'r'], make_set_k_1: ['p', 'q'], make_list_if_n: [5, 2, 9] });
  });

  it('orders topk by count, ties by key', async () => {
    const [row] = await rows('edge | summarize topk(k, 2)');
    expect(row).toEqual({
      topk_k: [
        { key: 'p', count: 2, error: 0 },
        { key: 'q', count: 2, error: 0 },
      ],
    });
  });

  it('returns the extreme row with arg_min and arg_max, ignoring nulls', async () => {
    const [row] = await rows('edge | summarize arg_min(x, k), arg_max(x, s)');
    expect(row).toEqual({ x: -1.25, k: 'q', x_1: 2.5, s: 'alphabet' });
  });

  it('sums to 0 and averages to null over no values', async () => {
    expect(await rows('edge | summarize sumif(n, n > 100), avgif(n, n > 100), count(x), countif(b)')).toEqual([
      { sumif_n: 0, avgif_n: null, count_: 4, countif_: 2 },
    ]);
  });

  it('computes expressions of aggregates as computed columns', async () => {
    const result_ = await result('edge | summarize share = 100.0 * countif(n > 0) / count(), total = sum(n) by k');
    expect(tableRows(result_.tables[0] as never)).toEqual([
      { k: 'p', share: 100, total: 7 },
      { k: 'r', share: 100, total: 9 },
      { k: 'q', share: 0, total: -7 },
    ]);
    expect(result_.tables[0]?.fields.map((field) => field.agg?.name)).toEqual([undefined, 'computed', 'sum']);
  });

  it('counts rows with the count operator into a column named count', async () => {
    expect(await rows('edge | where n > 0 | count')).toEqual([{ count: 3 }]);
  });
});

describe('columns', () => {
  it('replaces an extended column of an existing name and moves it to the end', async () => {
    const out = await result('edge | project k, n, s | extend k = toupper(k) | take 1');
    expect(out.tables[0]?.fields.map((field) => field.name)).toEqual(['n', 's', 'k']);
  });

  it('projects away, keeps, renames and reorders with wildcards', async () => {
    const names = async (apl: string): Promise<string[]> => ((await result(`${apl} | take 1`)).tables[0]?.fields ?? []).map((field) => field.name);
    expect(await names('edge | project-away _*, s, p*')).toEqual(['b', 'k', 'n', 'opt', 'under', 'x']);
    expect(await names('edge | project-keep *t, k')).toEqual(['k', 'opt', 'pct']);
    expect(await names('edge | project k, n | project-rename key = k')).toEqual(['key', 'n']);
    expect(await names('edge | project k, n, s | project-reorder s, n')).toEqual(['s', 'n', 'k']);
  });

  it('uses let values and dynamic arrays in in()', async () => {
    expect(await count('let ks = dynamic(["p", "r"]); edge | where k in (ks)')).toBe(3);
    expect(await count('let limit_ = 3; edge | where n < limit_')).toBe(3);
  });
});

describe('errors while running', () => {
  it('answers an integer overflow as the query failing, not a fault', async () => {
    const error = await runApl({ apl: 'edge | extend v = n * 9223372036854775807', format: 'tabular', ...WINDOW }, { reader: fixture.store }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'apl_runtime' });
    expect((error as Error).message).toMatch(/Overflow/);
  });

  it('answers an invalid regular expression as the query failing', async () => {
    const error = await runApl({ apl: 'edge | where s matches regex "("', format: 'tabular', ...WINDOW }, { reader: fixture.store }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'apl_runtime' });
  });

  it('names an unknown dataset in a 404', async () => {
    const error = await runApl({ apl: "['no-such'] | count", format: 'tabular' }, { reader: fixture.store }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'not_found', message: 'Dataset "no-such" not found.' });
  });

  it('finds query errors before reading any row', async () => {
    let reads = 0;
    const refuse = (): Promise<never> => ((reads += 1), Promise.reject(new Error('no read expected')));
    const refuseNow = (): never => {
      reads += 1;
      throw new Error('no read expected');
    };
    const reader = { schema: (name: string) => fixture.store.schema(name), read: refuse, readOne: refuse, windowRows: refuseNow, unchangedSince: refuseNow };
    const error = await runApl({ apl: 'edge | where nn > 1', format: 'tabular' }, { reader }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AplError);
    expect((error as AplError).message).toBe("line 1, column 14: unknown field 'nn'; did you mean 'n'?");
    expect(reads).toBe(0);
  });
});

describe('legacy format', () => {
  it('returns raw rows as matches with _time, _sysTime, _rowId and data', async () => {
    const out = (await result('edge | where k == "q" | project-away _sysTime', 'legacy')) as unknown as LegacyResult;
    expect(out.matches.map((match) => [match._time, match.data.n])).toEqual([
      ['2024-01-01T00:00:03.123456789Z', 0],
      ['2024-01-01T00:00:01Z', -7],
    ]);
    expect(out.matches.map((match) => match._rowId)).toEqual([expect.stringMatching(/^1704067203123456789-\d+$/), expect.stringMatching(/^1704067201000000000-\d+$/)]);
    expect(out.matches[0]?.data).not.toHaveProperty('_time');
  });

  it('returns a time series as buckets.series and buckets.totals', async () => {
    const out = (await result('edge | where _time >= datetime(2024-01-01) | summarize count() by bin(_time, 2s), k', 'legacy')) as unknown as LegacyResult;
    expect(out.buckets.series.map((interval) => [interval.startTime, interval.endTime, interval.groups.map((group) => [group.group.k, group.aggregations[0]?.value])])).toEqual([
      ['2024-01-01T00:00:00Z', '2024-01-01T00:00:02Z', [['p', 1], ['q', 1]]],
      ['2024-01-01T00:00:02Z', '2024-01-01T00:00:04Z', [['p', 1], ['q', 1]]],
    ]);
    expect(out.buckets.totals.map((group) => [group.id, group.group, group.aggregations])).toEqual([
      [0, { k: 'p' }, [{ op: 'count_', value: 2 }]],
      [1, { k: 'q' }, [{ op: 'count_', value: 2 }]],
    ]);
  });
});
