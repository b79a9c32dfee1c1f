/**
 * Time parsing shared by the service, the client, the CLI and the action.
 *
 * Two grammars exist on purpose: the wire accepts only RFC 3339 / ISO 8601 timestamps
 * (what the hosted service accepts), while people and CI scripts may also write
 * `now`, `now-5m`, Unix seconds or milliseconds.
 */

import { InputError } from './errors.js';
import { previewJson } from './json-preview.js';

export class TimeParseError extends InputError {
  constructor(message: string) {
    super(message, { code: 'invalid_time' });
  }
}

/** `0001-01-01T00:00:00Z`: the zero time that older Go clients send for "not set". */
export const ZERO_TIME_MS = -62_135_596_800_000;

const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

const RELATIVE_PATTERN = /^now(?:\s*([+-])\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w))?$/i;

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Seconds below this magnitude are seconds; above it, milliseconds (1e11 s is the year 5138). */
const EPOCH_SECONDS_LIMIT = 1e11;

const EXPECTED_ISO = 'an ISO 8601 / RFC 3339 timestamp such as 2024-05-01T12:00:00Z';
const EXPECTED_ANY = `${EXPECTED_ISO}, Unix seconds or milliseconds, "now", or a relative time such as "now-5m"`;

/**
 * The parts of an ISO 8601 / RFC 3339 timestamp: the whole milliseconds of its second (offset
 * applied; years 0–99 kept as they are) and its fraction digits; undefined when the text is not
 * of that form. A timestamp without an offset, or a bare date, is read as UTC.
 */
function isoParts(text: string): { wholeMs: number; fraction: string } | undefined {
  const match = ISO_PATTERN.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', offset = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, keeps years 0–99 as they are (the Go zero time is year 1).
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, Math.min(second, 59), 0);
  return { wholeMs: date.getTime() - offsetMinutes(offset) * 60_000, fraction };
}

/**
 * Parses an ISO 8601 / RFC 3339 timestamp to epoch milliseconds. Accepts any offset and any
 * number of fractional digits (nanoseconds are truncated to milliseconds). Returns undefined
 * when the text is not of that form.
 */
export function parseIsoTimestamp(text: string): number | undefined {
  const parts = isoParts(text);
  return parts && parts.wholeMs + Number((parts.fraction + '000').slice(0, 3));
}

/** The same grammar as parseIsoTimestamp, to epoch nanoseconds, exactly (digits past the ninth are dropped). */
export function parseIsoTimestampNs(text: string): bigint | undefined {
  const parts = isoParts(text);
  return parts && BigInt(parts.wholeMs) * 1_000_000n + BigInt((parts.fraction + '000000000').slice(0, 9));
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

function offsetMinutes(offset: string): number {
  if (offset === 'Z' || offset === 'z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  return sign * (hours * 60 + minutes);
}

/**
 * Parses a timestamp as the wire carries it. Returns undefined for the zero time (= not set);
 * throws TimeParseError naming `field` when the text is not a timestamp.
 */
export function parseWireTime(field: string, text: string): number | undefined {
  const ms = parseIsoTimestamp(text);
  if (ms === undefined || !Number.isFinite(ms)) {
    throw new TimeParseError(`Invalid ${field} ${previewJson(text)}. Expected ${EXPECTED_ISO}.`);
  }
  return ms === ZERO_TIME_MS ? undefined : ms;
}

/**
 * Parses a time written by a person or a CI script: ISO 8601 with any offset, Unix seconds or
 * milliseconds, `now`, or `now±N<unit>` (units ms, s, m, h, d, w). `label` names the input in errors.
 */
export function parseTimeInput(label: string, text: string, now: number = Date.now()): number {
  const trimmed = text.trim();
  const relative = RELATIVE_PATTERN.exec(trimmed);
  if (relative) {
    const [, sign, amount, unit] = relative;
    if (!sign || !amount || !unit) return now;
    const delta = Number(amount) * (UNIT_MS[unit.toLowerCase()] ?? 0);
    return Math.round(sign === '-' ? now - delta : now + delta);
  }
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const value = Number(trimmed);
    return Math.round(value < EPOCH_SECONDS_LIMIT ? value * 1000 : value);
  }
  const iso = parseIsoTimestamp(trimmed);
  if (iso !== undefined && Number.isFinite(iso)) return iso;
  throw new TimeParseError(`Invalid ${label} ${previewJson(text)}. Expected ${EXPECTED_ANY}.`);
}

/** Formats epoch milliseconds as the wire answers: RFC 3339, UTC, millisecond precision. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}
