import { composeTime, parseWithLayout, type GoLayout, type ParsedTime } from './go-layout.js';

/** The instants a BIGINT of nanoseconds can hold (years 1677 to 2262), in milliseconds. */
const MIN_MS = -9_223_372_036_854;
const MAX_MS = 9_223_372_036_853;

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;
const EPOCH_DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?$/;

/**
 * Reads an event's time value: an RFC 3339 / ISO 8601 string (any offset, up to nanoseconds; no
 * offset means UTC), a string in `layout` when one is given, or an epoch number (or numeric
 * string) in seconds, milliseconds, microseconds or nanoseconds, told apart by magnitude.
 * Returns a sentence saying what was expected when the value is none of these.
 */
export function parseEventTime(value: unknown, field: string, layout: GoLayout | undefined, layoutText: string | undefined): ParsedTime | string {
  let parsed: ParsedTime | undefined;
  if (typeof value === 'number') {
    parsed = parseEpoch(String(value));
  } else if (typeof value === 'string') {
    const text = value.trim();
    parsed = layout ? parseWithLayout(text, layout) : undefined;
    parsed ??= parseRfc3339(text) ?? parseEpoch(text);
  } else {
    return `Field ${JSON.stringify(field)} is ${describe(value)}. Expected a time: an RFC 3339 string or an epoch number.`;
  }
  if (!parsed) {
    const expected = layoutText ? `a time in the layout ${JSON.stringify(layoutText)}, an RFC 3339 string or an epoch number` : 'an RFC 3339 string such as "2024-01-15T14:00:00Z" or an epoch number';
    return `Field ${JSON.stringify(field)} has the value ${JSON.stringify(value)}, which is not a time. Expected ${expected}.`;
  }
  if (parsed.ms < MIN_MS || parsed.ms > MAX_MS) {
    return `Field ${JSON.stringify(field)} has the time ${JSON.stringify(value)}, outside the range this service stores. Expected a time between 1677-09-22 and 2262-04-11.`;
  }
  return parsed;
}

export function parseRfc3339(text: string): ParsedTime | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zulu, sign, offsetHours, offsetMinutes] = match;
  const nanos = fraction ? Number(fraction.slice(0, 9).padEnd(9, '0')) : 0;
  const offset = zulu || !sign ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 3600 + Number(offsetMinutes ?? 0) * 60);
  return composeTime(Number(year), Number(month), Number(day), Number(hour ?? 0), Number(minute ?? 0), Number(second ?? 0), nanos, offset);
}

/**
 * An epoch in decimal text; the unit follows from the magnitude of the whole part: below 1e11
 * seconds (up to the year 5138), below 1e14 milliseconds, below 1e17 microseconds, else
 * nanoseconds. Exact: digits are shifted as text, never multiplied in floating point.
 */
export function parseEpoch(text: string): ParsedTime | undefined {
  const match = EPOCH_DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = ''] = match;
  const magnitude = whole.replace(/^0+/, '').length;
  const exponent = magnitude <= 11 && Number(whole) < 1e11 ? 9 : magnitude <= 14 && Number(whole) < 1e14 ? 6 : magnitude <= 17 && Number(whole) < 1e17 ? 3 : 0;
  if (magnitude > 19) return undefined;
  // Nanoseconds as a digit string: whole digits, then the first `exponent` fraction digits.
  const nanosText = (whole + fraction.slice(0, exponent).padEnd(exponent, '0')).replace(/^0+(?=\d)/, '');
  const nanos = BigInt(sign === '-' ? `-${nanosText}` : nanosText);
  const ms = nanos / 1_000_000n - (nanos % 1_000_000n < 0n ? 1n : 0n);
  return { ms: Number(ms), subMsNs: Number(nanos - ms * 1_000_000n) };
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `the ${typeof value} ${JSON.stringify(value)}`;
}
