/**
 * The rules that turn one signal's figures before and after a change into a verdict. Each rule
 * has a minimum sample (below it: "not enough data"), a statistical test at the verdict's
 * significance level, and a minimum size of change, so that a tiny but certain difference over
 * millions of events is not called a regression. The texts in RULES are what the CLI, the
 * action's summary, the dashboard and docs/impact-and-dora.md state.
 */
import { compareProportions, compareSamples } from './statistics.js';

export const VERDICTS = ['regressed', 'improved', 'no change', 'not enough data'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The chance, over all the signals of one verdict, of calling a regression or improvement that is not there. */
export const FAMILY_ALPHA = 0.01;
/** A change smaller than this (relative to the value before) is "no change", however certain. */
export const MIN_RELATIVE_CHANGE = 0.1;
/** Events (with the signal's field) needed in each window by the rate and percentile rules. */
export const MIN_EVENTS = 100;
/** Expected events above the percentile needed in each window by the percentile rule. */
export const MIN_EXPECTED_ABOVE = 5;
/** The bucket rule splits each window into this many buckets… */
export const BUCKETS = 10;
/** …and needs a value in at least this many whole buckets of each window. */
export const MIN_BUCKETS = 8;

export type RuleName = 'rate' | 'percentile' | 'buckets';

export const RULES: Readonly<Record<RuleName, string>> = {
  rate:
    `two-proportion test of the share of events that match (a z-test when every expected count is at least 5, else Fisher's exact test); ` +
    `at least ${MIN_EVENTS} events in each window`,
  percentile:
    `two-proportion test of the share of values above the before window's percentile (a z-test when every expected count is at least 5, else Fisher's exact test), ` +
    `and the percentile itself must move the same way; at least ${MIN_EVENTS} values in each window, and at least ${MIN_EXPECTED_ABOVE} expected above the percentile`,
  buckets:
    `exact Mann–Whitney U test of the aggregation over ${BUCKETS} equal buckets of each window (whole buckets only); ` + `a value in at least ${MIN_BUCKETS} buckets of each window`,
};

export interface Judgement {
  verdict: Verdict;
  /** The test that decided, when one ran. */
  test?: string;
  pValue?: number;
  /** (after − before) / |before|; absent when before is 0. */
  change?: number;
  /** One sentence: why this verdict. */
  reason: string;
}

export interface RateFigures {
  /** Events that match (the numerator). */
  matching: number;
  /** Events counted (the denominator). */
  events: number;
}

export function judgeRate(before: RateFigures, after: RateFigures, alpha: number): Judgement {
  const short = shortOf([before.events, after.events], MIN_EVENTS, 'events');
  if (short) return { verdict: 'not enough data', reason: short };
  const shareBefore = before.matching / before.events;
  const shareAfter = after.matching / after.events;
  const { test, pValue } = compareProportions(before.matching, before.events, after.matching, after.events);
  return decide({ before: shareBefore, after: shareAfter, test, pValue, alpha });
}

export interface PercentileFigures {
  /** Values present (not null). */
  events: number;
  /** The percentile of the window. */
  value: number | null;
  /** Values above the before window's percentile. */
  above: number;
}

export function judgePercentile(percentile: number, before: PercentileFigures, after: PercentileFigures, alpha: number): Judgement {
  const needed = Math.max(MIN_EVENTS, Math.ceil(MIN_EXPECTED_ABOVE / (1 - percentile / 100)));
  const short = shortOf([before.events, after.events], needed, 'values');
  if (short) return { verdict: 'not enough data', reason: short };
  if (before.value === null || after.value === null) return { verdict: 'not enough data', reason: 'the percentile has no value in a window.' };
  const { test, pValue } = compareProportions(before.above, before.events, after.above, after.events);
  const judged = decide({ before: before.value, after: after.value, test, pValue, alpha });
  // The share above the old percentile and the percentile must tell the same story.
  const shareRose = after.above / after.events > before.above / before.events;
  if ((judged.verdict === 'regressed' && !shareRose) || (judged.verdict === 'improved' && shareRose)) {
    return { ...judged, verdict: 'no change', reason: 'the percentile and the share of values above it moved in opposite directions.' };
  }
  return judged;
}

export interface BucketFigures {
  /** The aggregation over the whole window. */
  value: number | null;
  /** Its value in each whole bucket that has one. */
  buckets: readonly number[];
}

export function judgeBuckets(before: BucketFigures, after: BucketFigures, alpha: number): Judgement {
  const short = shortOf([before.buckets.length, after.buckets.length], MIN_BUCKETS, `buckets with a value (of ${BUCKETS})`);
  if (short) return { verdict: 'not enough data', reason: short };
  if (before.value === null || after.value === null) return { verdict: 'not enough data', reason: 'the aggregation has no value in a window.' };
  const { test, pValue } = compareSamples(before.buckets, after.buckets);
  return decide({ before: before.value, after: after.value, test, pValue, alpha });
}

/** The verdict of several signals: any regression wins, then any improvement, then no change. */
export function overallVerdict(verdicts: readonly Verdict[]): Verdict {
  for (const verdict of VERDICTS) if (verdicts.includes(verdict)) return verdict;
  return 'not enough data';
}

function decide(figures: { before: number; after: number; test: string; pValue: number; alpha: number }): Judgement {
  const { before, after, test, pValue, alpha } = figures;
  const change = before === 0 ? undefined : (after - before) / Math.abs(before);
  const base = { test, pValue, ...(change === undefined ? {} : { change }) };
  if (pValue >= alpha) return { ...base, verdict: 'no change', reason: `p = ${formatP(pValue)} is not below α = ${formatP(alpha)}.` };
  const large = change === undefined ? after !== before : Math.abs(change) >= MIN_RELATIVE_CHANGE;
  if (!large) {
    return { ...base, verdict: 'no change', reason: `the change is below the minimum of ${MIN_RELATIVE_CHANGE * 100}% (p = ${formatP(pValue)}).` };
  }
  const rose = after > before;
  return { ...base, verdict: rose ? 'regressed' : 'improved', reason: `it ${rose ? 'rose' : 'fell'} (p = ${formatP(pValue)} < α = ${formatP(alpha)}).` };
}

function shortOf(counts: readonly number[], needed: number, what: string): string | undefined {
  const [before = 0, after = 0] = counts;
  if (before >= needed && after >= needed) return undefined;
  const windows = [before < needed ? `${before} before` : '', after < needed ? `${after} after` : ''].filter(Boolean).join(' and ');
  return `${windows}; the rule needs at least ${needed} ${what} in each window.`;
}

/** p-values as people read them: 0.0312, 1.2e-7. */
export function formatP(value: number): string {
  if (value === 0) return '0';
  return value >= 0.001 ? String(Number(value.toPrecision(3))) : value.toExponential(1);
}
