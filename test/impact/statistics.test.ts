import { describe, expect, it } from 'vitest';
import { compareProportions, compareSamples, fisherExact, normalUpperTail } from '../../src/impact/statistics.js';

/** Reference values computed independently (Python's math.erfc and exact binomial coefficients). */

describe('compareProportions', () => {
  it('uses the pooled z-test when every expected count is at least 5', () => {
    const result = compareProportions(60, 3000, 120, 3000);
    expect(result.test).toBe('z-test');
    expect(result.pValue).toBeCloseTo(5.605018896192733e-6, 9);
    expect(compareProportions(200, 10_000, 220, 10_000).pValue).toBeCloseTo(0.32398038106229154, 6);
  });

  it("uses Fisher's exact test when an expected count is below 5", () => {
    const result = compareProportions(0, 1000, 8, 1000);
    expect(result.test).toBe("Fisher's exact test");
    expect(result.pValue).toBeCloseTo(0.007703480851083897, 9);
    expect(compareProportions(1, 100, 8, 100)).toEqual({ test: "Fisher's exact test", pValue: expect.closeTo(0.03489915197211575, 9) });
  });

  it('finds no difference between two windows without a single match, or with nothing but matches', () => {
    expect(compareProportions(0, 500, 0, 700)).toEqual({ test: 'z-test', pValue: 1 });
    expect(compareProportions(500, 500, 700, 700)).toEqual({ test: 'z-test', pValue: 1 });
  });
});

describe('fisherExact', () => {
  it('gives the lady tasting tea her textbook p-value', () => {
    expect(fisherExact(3, 4, 1, 4)).toBeCloseTo(0.4857142857142857, 12);
    expect(fisherExact(0, 1000, 4, 1000)).toBeCloseTo(0.12462490634400826, 9);
  });
});

describe('compareSamples (exact Mann–Whitney U)', () => {
  it('counts every split of the pooled values', () => {
    expect(compareSamples([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).pValue).toBeCloseTo(2 / 252, 12);
    expect(compareSamples([1, 2, 3], [4, 5, 6]).pValue).toBeCloseTo(2 / 20, 12);
    expect(compareSamples([1, 3, 5], [2, 4, 6]).pValue).toBeCloseTo(14 / 20, 12);
  });

  it('stays exact with ties, which get mid-ranks', () => {
    expect(compareSamples([5, 5, 5, 5], [5, 5, 5, 5]).pValue).toBe(1);
    // Ranks 1.5, 1.5, 3 | 4, 5.5, 5.5: only this split and its mirror are as extreme.
    expect(compareSamples([1, 1, 2], [3, 4, 4]).pValue).toBeCloseTo(2 / 20, 12);
  });

  it('reaches the small p-values a verdict needs with ten buckets a side', () => {
    const before = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
    const after = before.map((value) => value + 100);
    expect(compareSamples(before, after).pValue).toBeCloseTo(2 / 184_756, 15);
  });
});

describe('normalUpperTail', () => {
  it('matches the standard normal distribution', () => {
    expect(normalUpperTail(0)).toBeCloseTo(0.5, 7);
    expect(normalUpperTail(1.959963984540054)).toBeCloseTo(0.025, 7);
    expect(normalUpperTail(-1)).toBeCloseTo(0.8413447460685429, 7);
  });
});
