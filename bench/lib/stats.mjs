/** Small helpers shared by the benchmarks. */

export function percentile(sortedValues, p) {
  if (sortedValues.length === 0) return NaN;
  const index = Math.min(sortedValues.length - 1, Math.ceil((p / 100) * sortedValues.length) - 1);
  return sortedValues[Math.max(0, index)];
}

/**
 * The median: the middle value, or for an even count the mean of the two middle ones (a
 * nearest-rank 50th percentile would take the lower one, and flatter a suite of ratios).
 */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function summarize(latenciesMs) {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) };
}

export function fixed(value, digits = 2) {
  return Number.isFinite(value) ? value.toFixed(digits) : String(value);
}

/**
 * Reads `--name value` flags with defaults. With `positional`, the other arguments are allowed
 * too and come back, in order, as `positional`.
 */
export function flags(defaults, { positional = false } = {}) {
  const values = { ...defaults };
  const rest = [];
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i += 2) {
    if (positional && !args[i].startsWith('--')) {
      rest.push(args[i]);
      i--;
      continue;
    }
    const name = args[i]?.replace(/^--/, '');
    if (!name || !(name in defaults)) throw new Error(`Unknown flag ${args[i]}. Expected one of: ${Object.keys(defaults).map((key) => `--${key}`).join(', ')}.`);
    // A flag whose default is a boolean is a switch: it takes no value.
    if (typeof defaults[name] === 'boolean') {
      values[name] = true;
      i--;
      continue;
    }
    values[name] = typeof defaults[name] === 'number' ? Number(args[i + 1]) : args[i + 1];
  }
  return positional ? { ...values, positional: rest } : values;
}

/** Runs `task(i)` for i in [0, total) with `concurrency` workers in flight. */
export async function pool(total, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await task(next++);
    }),
  );
}
