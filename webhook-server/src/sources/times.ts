/**
 * Each sender's own time formats, parsed exactly to epoch milliseconds. A time that does not
 * parse is a malformed payload: guessing would put the annotation at the wrong place on the chart.
 */

import { parseIsoTimestamp, ZERO_TIME_MS } from '../../../src/common/time.js';
import { MalformedPayloadError } from './types.js';

function invalidTime(field: string, text: unknown, expected: string): MalformedPayloadError {
  return new MalformedPayloadError(`Field "${field}" is ${JSON.stringify(text) ?? 'missing'}. Expected ${expected}.`);
}

const RFC3339 = 'an RFC 3339 timestamp such as 2024-06-28T14:55:57Z';

/** RFC 3339 / ISO 8601 with any offset and any number of fractional digits. */
export function parseRfc3339(field: string, text: string): number {
  const ms = parseIsoTimestamp(text);
  if (ms === undefined || !Number.isFinite(ms)) throw invalidTime(field, text, RFC3339);
  return ms;
}

/** Go's zero time (`0001-01-01T00:00:00Z`) means "not set", e.g. the endsAt of an alert that is still firing. */
export function isZeroTime(ms: number): boolean {
  return ms === ZERO_TIME_MS;
}

const GITLAB_PATTERN = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) (?:([+-]\d{4})|UTC)$/;

/**
 * GitLab hooks write `2021-04-28 21:50:00 +0200` (not ISO 8601); older hooks write
 * `2021-04-28 19:50:00 UTC`. ISO 8601 is accepted as well for self-managed instances that changed it.
 */
export function parseGitlabTime(field: string, text: string): number {
  const match = GITLAB_PATTERN.exec(text.trim());
  if (match) {
    const [, date, time, offset = 'Z'] = match;
    const ms = parseIsoTimestamp(`${date}T${time}${offset}`);
    if (ms !== undefined) return ms;
  } else {
    const ms = parseIsoTimestamp(text);
    if (ms !== undefined && text.includes('T')) return ms;
  }
  throw invalidTime(field, text, 'a GitLab time such as 2021-04-28 21:50:00 +0200');
}

/**
 * Go's `time.Time.String()`: `2024-06-28 14:55:57.631364493 +0000 UTC`, with up to nine
 * fractional digits, a numeric offset, a zone abbreviation, and sometimes a monotonic clock
 * reading (` m=+0.000012`) that says nothing about wall time. Nanoseconds are truncated to ms.
 */
const GO_PATTERN = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?) ([+-]\d{4})(?: [A-Za-z0-9+-]+)?(?: m=[+-]\d+(?:\.\d+)?)?$/;

export function parseGoTime(field: string, text: string): number {
  const match = GO_PATTERN.exec(text.trim());
  if (match) {
    const [, date, time, offset] = match;
    const ms = parseIsoTimestamp(`${date}T${time}${offset}`);
    if (ms !== undefined) return ms;
  } else if (text.includes('T')) {
    const ms = parseIsoTimestamp(text);
    if (ms !== undefined) return ms;
  }
  throw invalidTime(field, text, 'a Go time such as 2024-06-28 14:55:57.631364493 +0000 UTC');
}

/** The largest instant a JavaScript Date can hold. */
const MAX_DATE_MS = 8.64e15;

/** Epoch milliseconds as a JSON number (Vercel's createdAt). */
export function parseEpochMs(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_DATE_MS) {
    throw invalidTime(field, value, 'epoch milliseconds as a number');
  }
  return Math.trunc(value);
}

/** A stable text form for keys: the same instant written differently still gives the same key. */
export function keyTime(ms: number): string {
  return new Date(ms).toISOString();
}
