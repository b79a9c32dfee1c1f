/**
 * Durations as people write them in flags, inputs and config files ("90m", "24h", "30d"), and
 * as they read them back: the bridge's maximum open time, the impact window, the DORA period.
 */
import { InputError } from './errors.js';

const UNITS_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A whole number and one unit (s, m, h, d), above zero, in milliseconds. `label` names the flag,
 * input or variable in the error; `errorType` lets a configuration loader throw its own kind.
 */
export function parseDuration(label: string, text: string, errorType: new (message: string) => InputError = InputError): number {
  const match = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  const amount = match ? Number(match[1]) * (UNITS_MS[match[2] ?? ''] ?? 0) : 0;
  if (!match || !(amount > 0) || !Number.isSafeInteger(amount)) {
    throw new errorType(`Invalid ${label} ${JSON.stringify(text)}. Expected a duration such as "90m", "24h" or "2d".`);
  }
  return amount;
}

/** The form parseDuration reads: "24h", "90m", "45s" (rounded to the second when it must be). */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 1000)}s`;
}

const READABLE_UNITS: readonly (readonly [string, number])[] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/** "2 h 5 min", "45 s", "3 d 4 h": the largest unit and the next one, for people to read. */
export function readableDuration(ms: number): string {
  for (let index = 0; index < READABLE_UNITS.length; index++) {
    const [unit, size] = READABLE_UNITS[index] ?? ['s', 1000];
    if (ms < size) continue;
    const whole = Math.floor(ms / size);
    const next = READABLE_UNITS[index + 1];
    const rest = next ? Math.floor((ms - whole * size) / next[1]) : 0;
    return next && rest > 0 ? `${whole} ${unit} ${rest} ${next[0]}` : `${whole} ${unit}`;
  }
  return `${Math.max(0, Math.round(ms))} ms`;
}
