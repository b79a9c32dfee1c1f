import { InputError } from '../../common/errors.js';
import { NS_PER, formatDatetime, parseDatetime } from '../apl/literals.js';

/** `0001-01-01T00:00:00Z`, which older Go clients send for "not set", in nanoseconds. */
const GO_ZERO_TIME = parseDatetime('0001-01-01T00:00:00Z') as bigint;

const RELATIVE = /^now\s*(?:([+-])\s*(\d+(?:\.\d+)?)\s*(ns|us|µs|ms|s|m|h|d|w))?$/;
const RELATIVE_UNITS: Readonly<Record<string, bigint>> = {
  ns: NS_PER.nanosecond,
  us: NS_PER.microsecond,
  µs: NS_PER.microsecond,
  ms: NS_PER.millisecond,
  s: NS_PER.second,
  m: NS_PER.minute,
  h: NS_PER.hour,
  d: NS_PER.day,
  w: 7n * NS_PER.day,
};

/**
 * A query's `startTime` or `endTime`: RFC 3339 with any offset and nanoseconds, or relative to
 * now (`now`, `now-1h`, `now-30m`, `now-7d`). Undefined when absent, empty, or the Go zero time.
 */
export function parseQueryTime(field: string, value: unknown, nowNs: bigint): bigint | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new InputError(`Invalid ${field} ${JSON.stringify(value)}. Expected an RFC 3339 time such as 2024-01-15T14:00:00Z, or now-1h.`);
  const text = value.trim();
  const relative = RELATIVE.exec(text);
  if (relative) {
    const [, sign, amount, unit] = relative;
    if (!sign || !amount || !unit) return nowNs;
    const [whole = '0', fraction = ''] = amount.split('.');
    const unitNs = RELATIVE_UNITS[unit] ?? 0n;
    const scale = 10n ** BigInt(fraction.length);
    const delta = (BigInt(whole + fraction) * unitNs) / scale;
    return sign === '-' ? nowNs - delta : nowNs + delta;
  }
  const absolute = parseDatetime(text);
  if (absolute === undefined) {
    throw new InputError(`Invalid ${field} ${JSON.stringify(value)}. Expected an RFC 3339 time such as 2024-01-15T14:00:00Z, or a relative time such as now-1h.`);
  }
  return absolute === GO_ZERO_TIME ? undefined : absolute;
}

/** Now, in epoch nanoseconds: the default end of a window and the base of relative times. */
export const nowNs = (): bigint => BigInt(Date.now()) * NS_PER.millisecond;

/** The rows a query reads: start ≤ _time < end, in nanoseconds; `now` is the query's one `now()`. */
export interface QueryWindow {
  readonly start: bigint;
  readonly end: bigint;
  readonly now: bigint;
}

/**
 * The window of a request's `startTime` and `endTime`: from the epoch and until now when absent.
 * An empty window is the request's fault.
 */
export function resolveWindow(startTime: unknown, endTime: unknown, now: bigint): QueryWindow {
  const start = parseQueryTime('startTime', startTime, now) ?? 0n;
  const end = parseQueryTime('endTime', endTime, now) ?? now;
  if (end <= start) {
    throw new InputError(`The time range is empty: startTime ${formatDatetime(start)} is not before endTime ${formatDatetime(end)}.`);
  }
  return { start, end, now };
}
