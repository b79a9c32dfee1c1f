/**
 * The tests behind the impact rules (rules.ts), written out because they are small and exact:
 * two proportions (a z-test where the normal approximation holds, Fisher's exact test where it
 * does not) and two small samples (an exact Mann–Whitney U test, ties included). Pure
 * arithmetic, so the dashboard runs the same code in the browser.
 */

export interface ProportionTest {
  test: 'z-test' | "Fisher's exact test";
  /** Two-sided p-value. */
  pValue: number;
}

/** The expected count of every cell must reach this for the z-test's normal approximation. */
export const MIN_EXPECTED_CELL = 5;

/**
 * Are `x1` of `n1` and `x2` of `n2` the same proportion? The pooled two-proportion z-test when
 * every expected count of the 2×2 table is at least 5 (the textbook condition for its normal
 * approximation), else Fisher's exact test, which needs no approximation.
 */
export function compareProportions(x1: number, n1: number, x2: number, n2: number): ProportionTest {
  const total = n1 + n2;
  const pooled = (x1 + x2) / total;
  // Both all or both nothing: no difference to find.
  if (pooled === 0 || pooled === 1) return { test: 'z-test', pValue: 1 };
  const expected = [n1 * pooled, n1 * (1 - pooled), n2 * pooled, n2 * (1 - pooled)];
  if (expected.every((cell) => cell >= MIN_EXPECTED_CELL)) {
    const z = (x2 / n2 - x1 / n1) / Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
    return { test: 'z-test', pValue: Math.min(1, 2 * normalUpperTail(Math.abs(z))) };
  }
  return { test: "Fisher's exact test", pValue: fisherExact(x1, n1, x2, n2) };
}

/**
 * Fisher's exact test, two-sided: the probability, given the margins, of a table as likely as
 * the one seen or less likely (the usual definition, with a relative tolerance for ties of
 * floating-point probabilities).
 */
export function fisherExact(x1: number, n1: number, x2: number, n2: number): number {
  const successes = x1 + x2;
  const total = n1 + n2;
  const low = Math.max(0, successes - n1);
  const high = Math.min(successes, n2);
  const logDenominator = logChoose(total, n2);
  const logP = (k: number): number => logChoose(successes, k) + logChoose(total - successes, n2 - k) - logDenominator;
  const observed = logP(x2);
  let pValue = 0;
  for (let k = low; k <= high; k++) {
    const value = logP(k);
    if (value <= observed + 1e-7) pValue += Math.exp(value);
  }
  return Math.min(1, pValue);
}

export interface RankTest {
  test: 'Mann–Whitney U test (exact)';
  pValue: number;
}

/**
 * Do two small samples come from the same distribution? The exact Mann–Whitney U (Wilcoxon
 * rank-sum) test, two-sided: ties get mid-ranks, and the null distribution of the rank sum is
 * counted over every way of splitting the pooled values, so it stays exact with ties.
 */
export function compareSamples(before: readonly number[], after: readonly number[]): RankTest {
  const pooled = [...before.map((value) => ({ value, after: false })), ...after.map((value) => ({ value, after: true }))].sort((a, b) => a.value - b.value);
  const n = pooled.length;
  // Doubled mid-ranks are whole numbers, so sums can be counted exactly.
  const doubledRanks: number[] = new Array<number>(n);
  for (let start = 0; start < n; ) {
    let end = start;
    while (end + 1 < n && pooled[end + 1]?.value === pooled[start]?.value) end++;
    for (let index = start; index <= end; index++) doubledRanks[index] = start + end + 2;
    start = end + 1;
  }
  const m = after.length;
  const observed = pooled.reduce((sum, item, index) => sum + (item.after ? (doubledRanks[index] ?? 0) : 0), 0);
  const maxSum = doubledRanks.reduce((sum, rank) => sum + rank, 0);
  // ways[j][s]: the number of ways to pick j values whose doubled ranks sum to s.
  let ways: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(maxSum + 1).fill(0));
  (ways[0] as number[])[0] = 1;
  for (const rank of doubledRanks) {
    const next = ways.map((row) => [...row]);
    for (let j = 1; j <= m; j++) {
      const from = ways[j - 1] as number[];
      const to = next[j] as number[];
      for (let s = rank; s <= maxSum; s++) to[s] = (to[s] ?? 0) + (from[s - rank] ?? 0);
    }
    ways = next;
  }
  const counts = ways[m] as number[];
  const mean = (m * (n + 1)) as number;
  const distance = Math.abs(observed - mean);
  let extreme = 0;
  let all = 0;
  counts.forEach((count, sum) => {
    all += count;
    if (Math.abs(sum - mean) >= distance - 1e-9) extreme += count;
  });
  return { test: 'Mann–Whitney U test (exact)', pValue: all === 0 ? 1 : Math.min(1, extreme / all) };
}

/** P(Z > z) for a standard normal Z. */
export function normalUpperTail(z: number): number {
  return erfc(z / Math.SQRT2) / 2;
}

/** The complementary error function (Chebyshev fit, relative error below 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const polynomial =
    -z * z -
    1.26551223 +
    t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const value = t * Math.exp(polynomial);
  return x >= 0 ? value : 2 - value;
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7). */
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const shifted = x - 1;
  let sum = LANCZOS[0] as number;
  for (let index = 1; index < LANCZOS.length; index++) sum += (LANCZOS[index] as number) / (shifted + index);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}

function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}
