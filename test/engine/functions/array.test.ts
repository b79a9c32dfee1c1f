import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, expectClose, runQuery, useExampleStore } from '../helpers/examples.js';
import { tableRows } from '../helpers/reference.js';

/**
 * Array and bag functions beyond their registry examples: generated arrays through every
 * function at once, against the same operation in plain JavaScript; nulls, non-arrays, result
 * types, and where APL's reference differs from Kusto.
 */

const store = useExampleStore();
const value = async (apl: string): Promise<unknown> => (await evaluate(store, apl)).value;

type Element = number | string | boolean | null;

/** Arrays of small integers, short strings, bools and nulls (what JSON arrays in events hold). */
const ARRAYS: Element[][] = fc.sample(
  fc.array(fc.oneof(fc.integer({ min: -20, max: 20 }), fc.constantFrom('a', 'b', 'x', 'é'), fc.boolean(), fc.constant(null)), { maxLength: 8 }),
  { numRuns: 40, seed: 18 },
);
const SHIFTS = fc.sample(fc.integer({ min: -10, max: 10 }), { numRuns: 40, seed: 5 });

/** Python-style modulo: the rotation of an empty array is itself. */
const rotateLeft = (a: Element[], n: number): Element[] => {
  if (a.length === 0) return a;
  const k = ((n % a.length) + a.length) % a.length;
  return [...a.slice(k), ...a.slice(0, k)];
};
/** Shifted left by `n` (right when negative), the emptied places holding `fill`. */
const shiftLeft = (a: Element[], n: number, fill: Element = null): Element[] => {
  const m = Math.min(Math.abs(n), a.length);
  const fills = Array.from({ length: m }, () => fill);
  return n >= 0 ? [...a.slice(m), ...fills] : [...fills, ...a.slice(0, a.length - m)];
};
/** An index counted from the end when negative, clamped to the array. */
const clamp = (i: number, length: number): number => Math.min(Math.max(i < 0 ? length + i : i, 0), length);
const text = (e: Element): string => (e === null ? '' : String(e));
const numbers = (a: Element[]): number[] => a.filter((e): e is number => typeof e === 'number');

describe('against JavaScript, on generated arrays', () => {
  it.each(ARRAYS.map((array, i) => [JSON.stringify(array), array, SHIFTS[i] ?? 0] as const))('%s', async (_label, array, n) => {
    const literal = `dynamic(${JSON.stringify(array)})`;
    const calls: Record<string, [string, unknown]> = {
      length: [`array_length(${literal})`, array.length],
      len: [`len(${literal})`, array.length],
      reversed: [`array_reverse(${literal})`, [...array].reverse()],
      rotated: [`array_rotate_left(${literal}, ${n})`, rotateLeft(array, n)],
      rotatedRight: [`array_rotate_right(${literal}, ${n})`, rotateLeft(array, -n)],
      shifted: [`array_shift_left(${literal}, ${n})`, shiftLeft(array, n)],
      shiftedRight: [`array_shift_right(${literal}, ${n}, 0)`, shiftLeft(array, -n, 0)],
      sliced: [`array_slice(${literal}, ${n}, ${n + 3})`, array.slice(clamp(n, array.length), Math.max(clamp(n, array.length), clamp(n + 3, array.length)))],
      indexOfA: [`array_index_of(${literal}, 'a')`, array.indexOf('a')],
      indexOf1: [`array_index_of(${literal}, 1)`, array.indexOf(1)],
      sum: [`array_sum(${literal})`, numbers(array).length === 0 ? null : numbers(array).reduce((s, x) => s + x, 0)],
      joined: [`strcat_array(${literal}, ',')`, array.map(text).join(',')],
      concat: [`array_concat(${literal}, dynamic([0]), ${literal})`, [...array, 0, ...array]],
      split: [`array_split(${literal}, ${n})`, [array.slice(0, clamp(n, array.length)), array.slice(clamp(n, array.length))]],
      packed: [`array_length(pack_array(${literal}, 1))`, 2],
      isArray: [`isarray(${literal})`, true],
    };
    const names = Object.keys(calls);
    const table = (await runQuery(store, `['sample-http-logs'] | take 1 | project ${names.map((name) => `${name} = ${calls[name]?.[0]}`).join(', ')}`)).tables[0];
    const [row] = tableRows(table as never);
    expectClose(row, Object.fromEntries(names.map((name) => [name, calls[name]?.[1]])), `${JSON.stringify(array)} shifted by ${n}`);
  });

  it('sorts numbers numerically, then bools and strings, nulls last (first when asked)', async () => {
    for (const array of ARRAYS) {
      const literal = `dynamic(${JSON.stringify(array)})`;
      const rank = (e: Element): number => (e === null ? 9 : typeof e === 'number' ? 0 : typeof e === 'boolean' ? 1 : 2);
      const ascending = [...array].sort((a, b) => rank(a) - rank(b) || (a === null || b === null ? 0 : a < b ? -1 : a > b ? 1 : 0));
      const nonNull = ascending.filter((e) => e !== null);
      const nulls = ascending.filter((e) => e === null);
      expect(await value(`array_sort_asc(${literal})`), JSON.stringify(array)).toEqual(ascending);
      expect(await value(`array_sort_asc(${literal}, false)`), JSON.stringify(array)).toEqual([...nulls, ...nonNull]);
      expect(await value(`array_sort_desc(${literal})`), JSON.stringify(array)).toEqual([...[...nonNull].reverse(), ...nulls]);
    }
  });
});

describe('property bags', () => {
  it('bag_zip, bag_keys, bag_has_key and bag_remove_keys agree with objects built in JavaScript', async () => {
    const keys = fc.sample(fc.array(fc.constantFrom('a', 'b', 'c.d', ''), { maxLength: 5 }), { numRuns: 20, seed: 9 });
    for (const [i, names] of keys.entries()) {
      const values = names.map((_, j) => i * 10 + j);
      const expected: Record<string, number | null> = {};
      names.forEach((name, j) => {
        if (!(name in expected)) expected[name] = values[j] ?? null;
      });
      const zipped = `bag_zip(dynamic(${JSON.stringify(names)}), dynamic(${JSON.stringify(values)}))`;
      expect(await value(zipped)).toEqual(expected);
      expect(await value(`bag_keys(${zipped})`)).toEqual(Object.keys(expected));
      expect(await value(`bag_has_key(${zipped}, 'c.d')`)).toBe('c.d' in expected);
      const kept = Object.fromEntries(Object.entries(expected).filter(([key]) => key !== 'a'));
      expect(await value(`bag_remove_keys(${zipped}, dynamic(['a']))`)).toEqual(kept);
    }
  });

  it('pack and bag_pack keep each value’s type; datetimes and timespans as their text', async () => {
    expect(await value("bag_pack('n', 1, 'r', 1.5, 's', 'x', 'b', false, 't', datetime(2024-01-02T03:04:05.5Z), 'd', 90s, 'z', string(null))")).toEqual({
      n: 1,
      r: 1.5,
      s: 'x',
      b: false,
      t: '2024-01-02T03:04:05.5Z',
      d: '1m30s',
      z: null,
    });
  });

  it('array_select_dict compares numbers as numbers and text as text', async () => {
    const list = "dynamic([{'id': '1', 'v': 'text'}, {'id': 1.0, 'v': 'number'}])";
    expect(await value(`array_select_dict(${list}, 'id', 1)`)).toEqual({ id: 1, v: 'number' });
    expect(await value(`array_select_dict(${list}, 'id', '1')`)).toEqual({ id: '1', v: 'text' });
  });
});

describe('dynamic literals', () => {
  it.each([
    ['dynamic(6)', 6],
    ["dynamic('x')", 'x'],
    ['dynamic(datetime(2024-01-01))', '2024-01-01T00:00:00Z'],
    ['dynamic([datetime(2024-01-01T10:00:00.5Z), timespan(1.02:03:04), 90m, -1.5s, datetime(null)])', ['2024-01-01T10:00:00.5Z', '26h3m4s', '1h30m0s', '-1.5s', null]],
    ["dynamic({'a' = 1, 'b': {'c' = [2]}})", { a: 1, b: { c: [2] } }],
  ])('%s is %j', async (apl, expected) => {
    expect(await value(apl)).toEqual(expected);
  });

  it('hold datetimes as pack_array does', async () => {
    expect(await value('dynamic([datetime(2024-05-01T12:00:05Z)]) == pack_array(_time)')).toBe(true);
  });

  it('are their text in a dynamic literal, exactly as pack_array writes them', async () => {
    const spans = [...fc.sample(fc.oneof(fc.bigInt({ min: -(10n ** 14n), max: 10n ** 14n }), fc.bigInt({ min: -5000n, max: 5000n })), { numRuns: 40, seed: 12 }), 0n, 999n, 1000n, 60_000_000_000n];
    const literals = spans.map((ns) => `${ns < 0n ? '-' : ''}${ns < 0n ? -ns : ns}ns`);
    const table = (await runQuery(store, `['sample-http-logs'] | take 1 | project d = dynamic([${literals.join(', ')}]), p = pack_array(${literals.join(', ')})`)).tables[0];
    const [row] = tableRows(table as never);
    expect(row?.d).toEqual(row?.p);
    expect((row?.d as string[]).slice(-4)).toEqual(['0s', '999ns', '1µs', '1m0s']);
  });
});

describe('nulls and values that are not arrays', () => {
  it.each([
    ['array_length(dynamic(null))', null],
    ['array_reverse(dynamic("x"))', null],
    ['array_concat(dynamic(null), dynamic([1]))', null],
    ['array_sum(dynamic(["a"]))', null],
    ['array_index_of(dynamic(null), 1)', null],
    ['array_index_of(dynamic([1]), 1, 0, -1, 0)', null],
    ['array_sort_asc(dynamic(null))', []],
    ['strcat_array(dynamic(null), ",")', ''],
    ['bag_keys(dynamic("x"))', null],
    ['bag_has_key(dynamic(null), "a")', false],
    ['bag_zip(dynamic(["a"]), dynamic(null))', null],
    ['isarray(dynamic(null))', false],
    ['len(dynamic({"a": 1}))', null],
    ['len(dynamic("abc"))', 3],
    ['array_iff(dynamic(null), 1, 2)', null],
    ['array_split(dynamic(null), 1)', null],
    ['array_extract(dynamic(null), "$[0]")', []],
  ])('%s is %j', async (apl, expected) => {
    expect(await value(apl)).toEqual(expected);
  });
});

describe('result types', () => {
  it.each([
    ['array_length(dynamic([1]))', 'integer'],
    ['array_sum(dynamic([1]))', 'float'],
    ['array_reverse(dynamic([1]))', 'array'],
    ['bag_pack("a", 1)', 'object'],
    ['bag_keys(dynamic({}))', 'array'],
    ['bag_has_key(dynamic({}), "a")', 'boolean'],
    ['strcat_array(dynamic([1]), "")', 'string'],
    ['array_select_dict(dynamic([]), "a", 1)', 'object'],
  ])('%s reports %s', async (apl, type) => {
    expect((await evaluate(store, apl)).type).toBe(type);
  });
});

describe('where the APL reference differs from Kusto, APL wins', () => {
  it('array_slice excludes its end index (Kusto includes it)', async () => {
    expect(await value('array_slice(dynamic([1, 2, 3, 4, 5]), 1, 3)')).toEqual([2, 3]);
  });

  it('array_sort_asc of something that is not an array is an empty array (Kusto: null)', async () => {
    expect(await value("array_sort_asc(dynamic({'a': 1}))")).toEqual([]);
  });

  it('bag_pack is also pack_dictionary and pack', async () => {
    expect(await value("pack_dictionary('a', 1)")).toEqual(await value("pack('a', 1)"));
  });
});

describe('errors are found before any row is read', () => {
  it.each([
    ['array_length(status)', 'array_length() expects a dynamic as argument 1, got string'],
    ['array_rotate_left(dynamic([1]), 1.5)', 'array_rotate_left() expects a long as argument 2, got real'],
    ["bag_pack('a', 1, 'b')", 'bag_pack() expects key and value pairs, got 3 arguments'],
    ["array_extract(dynamic([1]), strcat('$', '[0]'))", 'array_extract() needs a constant string JSON path as argument 2'],
    ['array_sum(dynamic([1]), 2)', 'array_sum() expects 1 argument, got 2'],
  ])('%s', async (apl, message) => {
    await expect(evaluate(store, apl)).rejects.toThrow(message);
  });
});
