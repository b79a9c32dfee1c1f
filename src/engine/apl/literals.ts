import { parseIsoTimestampNs } from '../../common/time.js';

/**
 * Exact parsing of APL's time literals to nanoseconds (bigint): timespans such as `1.5h` or
 * `1.02:03:04.5`, and datetimes such as `2024-01-15T14:00:00.123456789Z`. Nanosecond precision
 * matters: `_time` is stored in nanoseconds and bins must be exact.
 */

export const NS_PER = {
  nanosecond: 1n,
  microsecond: 1_000n,
  tick: 100n,
  millisecond: 1_000_000n,
  second: 1_000_000_000n,
  minute: 60_000_000_000n,
  hour: 3_600_000_000_000n,
  day: 86_400_000_000_000n,
} as const;

/** Timespan unit suffixes as Kusto spells them, and a few common ones (`ns`, `us`, `sec`). */
export const TIMESPAN_UNITS: Readonly<Record<string, bigint>> = {
  d: NS_PER.day,
  day: NS_PER.day,
  days: NS_PER.day,
  h: NS_PER.hour,
  hr: NS_PER.hour,
  hrs: NS_PER.hour,
  hour: NS_PER.hour,
  hours: NS_PER.hour,
  m: NS_PER.minute,
  min: NS_PER.minute,
  mins: NS_PER.minute,
  minute: NS_PER.minute,
  minutes: NS_PER.minute,
  s: NS_PER.second,
  sec: NS_PER.second,
  secs: NS_PER.second,
  second: NS_PER.second,
  seconds: NS_PER.second,
  ms: NS_PER.millisecond,
  milli: NS_PER.millisecond,
  millis: NS_PER.millisecond,
  millisecond: NS_PER.millisecond,
  milliseconds: NS_PER.millisecond,
  us: NS_PER.microsecond,
  micro: NS_PER.microsecond,
  micros: NS_PER.microsecond,
  microsecond: NS_PER.microsecond,
  microseconds: NS_PER.microsecond,
  tick: NS_PER.tick,
  ticks: NS_PER.tick,
  ns: NS_PER.nanosecond,
  nanosecond: NS_PER.nanosecond,
  nanoseconds: NS_PER.nanosecond,
};

export const INT64_MAX = 9_223_372_036_854_775_807n;
export const INT64_MIN = -9_223_372_036_854_775_808n;

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** `digits × unit`, rounded to the nearest integer, exactly; undefined when the text is not a decimal. */
export function scaleDecimal(text: string, unit: bigint): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, whole = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 40) return undefined;
  const mantissa = BigInt(whole + fraction) * unit;
  const scale = fraction.length - exponent;
  if (scale <= 0) return mantissa * 10n ** BigInt(-scale);
  const divisor = 10n ** BigInt(scale);
  return (mantissa * 2n + divisor) / (2n * divisor);
}

const TIMESPAN_SUFFIXED = /^([+-]?)(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*([a-zA-Z]+)$/;
const TIMESPAN_CLOCK = /^([+-]?)(?:(\d+)\.)?(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

/**
 * Parses `15s`, `1.5h`, `10min`, `2d` (number and unit) or `[-][d.]hh:mm[:ss[.fffffff]]`.
 * Undefined when the text is neither.
 */
export function parseTimespan(text: string): bigint | undefined {
  const trimmed = text.trim();
  const suffixed = TIMESPAN_SUFFIXED.exec(trimmed);
  if (suffixed) {
    const [, sign = '', amount = '', unitName = ''] = suffixed;
    const unit = TIMESPAN_UNITS[unitName];
    if (unit === undefined) return undefined;
    const value = scaleDecimal(amount, unit);
    return value === undefined ? undefined : sign === '-' ? -value : value;
  }
  const clock = TIMESPAN_CLOCK.exec(trimmed);
  if (clock) {
    const [, sign = '', days = '0', hours = '0', minutes = '0', seconds = '0', fraction = ''] = clock;
    if (Number(minutes) > 59 || Number(seconds) > 59) return undefined;
    const value =
      BigInt(days) * NS_PER.day +
      BigInt(hours) * NS_PER.hour +
      BigInt(minutes) * NS_PER.minute +
      BigInt(seconds) * NS_PER.second +
      BigInt((fraction + '000000000').slice(0, 9));
    return sign === '-' ? -value : value;
  }
  return undefined;
}

/**
 * Parses an ISO 8601 / RFC 3339 datetime, a date alone (midnight UTC) or a datetime without an
 * offset (UTC) to nanoseconds, with the wire's grammar. Undefined when the text is not one.
 */
export const parseDatetime = parseIsoTimestampNs;

const pad = (value: number | bigint, width: number): string => String(value).padStart(width, '0');

/** RFC 3339 in UTC with the nanoseconds trimmed of trailing zeros: `2024-01-15T14:00:00.12Z`. */
export function formatDatetime(ns: bigint): string {
  const nanos = ((ns % NS_PER.second) + NS_PER.second) % NS_PER.second;
  const seconds = (ns - nanos) / NS_PER.second;
  const days = seconds >= 0n ? seconds / 86_400n : -((-seconds + 86_399n) / 86_400n);
  const secondOfDay = Number(seconds - days * 86_400n);
  // Howard Hinnant's civil_from_days: the date of a day count since 1970-01-01.
  const z = Number(days) + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const time = `${pad(Math.floor(secondOfDay / 3600), 2)}:${pad(Math.floor(secondOfDay / 60) % 60, 2)}:${pad(secondOfDay % 60, 2)}`;
  const fraction = nanos === 0n ? '' : `.${pad(nanos, 9).replace(/0+$/, '')}`;
  const yearText = year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  return `${yearText}-${pad(month, 2)}-${pad(day, 2)}T${time}${fraction}Z`;
}

/**
 * Go's `time.Duration.String()` of nanoseconds (`0s`, `1.5µs`, `100ms`, `1h30m0s`): how a
 * timespan reads inside a dynamic value, as `tostring` writes it (sql/convert.ts's
 * `goDurationSql` is the same rule in SQL).
 */
export function formatGoDuration(ns: bigint): string {
  const sign = ns < 0n ? '-' : '';
  const magnitude = ns < 0n ? -ns : ns;
  const decimal = (value: bigint, unit: bigint): string => {
    const fraction = value % unit;
    const digits = unit.toString().length - 1;
    return `${value / unit}${fraction === 0n ? '' : `.${pad(fraction, digits).replace(/0+$/, '')}`}`;
  };
  if (magnitude === 0n) return '0s';
  if (magnitude < 1_000n) return `${sign}${magnitude}ns`;
  if (magnitude < 1_000_000n) return `${sign}${decimal(magnitude, NS_PER.microsecond)}µs`;
  if (magnitude < NS_PER.second) return `${sign}${decimal(magnitude, NS_PER.millisecond)}ms`;
  const hours = magnitude / NS_PER.hour;
  const minutes = (magnitude / NS_PER.minute) % 60n;
  const seconds = decimal(magnitude % NS_PER.minute, NS_PER.second);
  return `${sign}${hours > 0n ? `${hours}h` : ''}${hours > 0n || minutes > 0n ? `${minutes}m` : ''}${seconds}s`;
}

/** Kusto's timespan text: `[-][d.]hh:mm:ss[.fffffff]`, with the fraction trimmed of trailing zeros. */
export function formatTimespan(ns: bigint): string {
  const sign = ns < 0n ? '-' : '';
  let rest = ns < 0n ? -ns : ns;
  const days = rest / NS_PER.day;
  rest %= NS_PER.day;
  const hours = rest / NS_PER.hour;
  rest %= NS_PER.hour;
  const minutes = rest / NS_PER.minute;
  rest %= NS_PER.minute;
  const seconds = rest / NS_PER.second;
  const nanos = rest % NS_PER.second;
  const fraction = nanos === 0n ? '' : `.${pad(nanos, 9).replace(/0+$/, '')}`;
  return `${sign}${days > 0n ? `${days}.` : ''}${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}${fraction}`;
}
