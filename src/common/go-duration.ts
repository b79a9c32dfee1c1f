import { InputError } from './errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/**
 * A Go duration string (`1h`, `1h30m`, `90s`, `500ms`; `0` alone) in milliseconds, as the
 * hosted service takes `maxDuration`. Negative durations are refused: a trim keeps the recent past.
 */
export function parseGoDuration(label: string, text: string): number {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  if (!DURATION.test(trimmed)) {
    throw new InputError(`Invalid ${label} ${JSON.stringify(text)}. Expected a duration such as "1h", "30m", "1h30m" or "720h" (units ns, us, ms, s, m, h).`);
  }
  let ms = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) ms += Number(amount) * (UNIT_MS[unit as string] as number);
  return ms;
}
