import { describe, expect, it } from 'vitest';
import { judgeBuckets, judgePercentile, judgeRate, overallVerdict } from '../../src/impact/rules.js';

const ALPHA = 0.005;

describe('the rate rule', () => {
  it('needs 100 events in each window', () => {
    expect(judgeRate({ matching: 1, events: 99 }, { matching: 50, events: 1000 }, ALPHA)).toEqual({
      verdict: 'not enough data',
      reason: '99 before; the rule needs at least 100 events in each window.',
    });
  });

  it('calls a significant rise regressed and a significant fall improved', () => {
    expect(judgeRate({ matching: 60, events: 3000 }, { matching: 120, events: 3000 }, ALPHA)).toMatchObject({ verdict: 'regressed', change: 1 });
    expect(judgeRate({ matching: 120, events: 3000 }, { matching: 60, events: 3000 }, ALPHA)).toMatchObject({ verdict: 'improved', change: -0.5 });
  });

  it('calls a difference the test cannot tell from chance no change, and says so', () => {
    const judged = judgeRate({ matching: 20, events: 1000 }, { matching: 25, events: 1000 }, ALPHA);
    expect(judged.verdict).toBe('no change');
    expect(judged.reason).toMatch(/^p = 0\.\d+ is not below α = 0\.005\.$/);
  });

  it('calls a certain but small change no change (below the 10% minimum)', () => {
    const judged = judgeRate({ matching: 100_000, events: 1_000_000 }, { matching: 105_000, events: 1_000_000 }, ALPHA);
    expect(judged.pValue).toBeLessThan(1e-10);
    expect(judged).toMatchObject({ verdict: 'no change', reason: expect.stringMatching(/^the change is below the minimum of 10%/) });
  });

  it('calls errors appearing where there were none regressed once Fisher is sure', () => {
    expect(judgeRate({ matching: 0, events: 1000 }, { matching: 9, events: 1000 }, ALPHA)).toMatchObject({ verdict: 'regressed', test: "Fisher's exact test" });
    expect(judgeRate({ matching: 0, events: 1000 }, { matching: 3, events: 1000 }, ALPHA)).toMatchObject({ verdict: 'no change' });
  });
});

describe('the percentile rule', () => {
  it('needs enough values to expect 5 above the percentile', () => {
    expect(judgePercentile(99, { events: 400, value: 10, above: 4 }, { events: 600, value: 30, above: 60 }, ALPHA)).toMatchObject({
      verdict: 'not enough data',
      reason: '400 before; the rule needs at least 500 values in each window.',
    });
  });

  it('calls a rise of the share above the old percentile, with a higher percentile, regressed', () => {
    expect(judgePercentile(95, { events: 2000, value: 300, above: 100 }, { events: 2000, value: 450, above: 300 }, ALPHA)).toMatchObject({ verdict: 'regressed', change: 0.5 });
  });

  it('calls no change when the percentile and the share above it disagree', () => {
    expect(judgePercentile(95, { events: 2000, value: 300, above: 100 }, { events: 2000, value: 200, above: 300 }, ALPHA)).toMatchObject({
      verdict: 'no change',
      reason: 'the percentile and the share of values above it moved in opposite directions.',
    });
  });
});

describe('the bucket rule', () => {
  const steady = [10, 11, 9, 10, 12, 10, 11, 9, 10, 10];

  it('needs a value in 8 whole buckets of each window', () => {
    expect(judgeBuckets({ value: 100, buckets: steady }, { value: 100, buckets: steady.slice(0, 7) }, ALPHA)).toMatchObject({
      verdict: 'not enough data',
      reason: '7 after; the rule needs at least 8 buckets with a value (of 10) in each window.',
    });
  });

  it('compares the buckets, and reports the whole-window values', () => {
    const higher = steady.map((value) => value * 2);
    expect(judgeBuckets({ value: 102, buckets: steady }, { value: 204, buckets: higher }, ALPHA)).toMatchObject({ verdict: 'regressed', change: 1, test: 'Mann–Whitney U test (exact)' });
    expect(judgeBuckets({ value: 102, buckets: steady }, { value: 103, buckets: [...steady].reverse() }, ALPHA)).toMatchObject({ verdict: 'no change' });
  });
});

describe('the verdict of several signals', () => {
  it('is regressed if any signal regressed, then improved, then no change', () => {
    expect(overallVerdict(['no change', 'improved', 'regressed'])).toBe('regressed');
    expect(overallVerdict(['not enough data', 'improved', 'no change'])).toBe('improved');
    expect(overallVerdict(['not enough data', 'no change'])).toBe('no change');
    expect(overallVerdict(['not enough data'])).toBe('not enough data');
    expect(overallVerdict([])).toBe('not enough data');
  });
});
