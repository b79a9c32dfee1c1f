import { NS_PER } from '../apl/literals.js';
import { quoteString, sqlInteger } from './quote.js';

/**
 * SQL for int64 nanoseconds (datetimes and timespans at run time): exact integer arithmetic,
 * correct before the epoch too, and the text forms results print.
 */

export const DAY = sqlInteger(NS_PER.day);
export const WEEK = sqlInteger(7n * NS_PER.day);
/** 1970-01-04, the first Sunday after the epoch: weeks start on Sunday. */
export const FIRST_SUNDAY = sqlInteger(3n * NS_PER.day);

/** x mod m in [0, m), for int64 nanoseconds before the epoch too. */
export function positiveMod(x: string, m: string): string {
  return `(((${x} % ${m}) + ${m}) % ${m})`;
}

/** The largest multiple of `size` not above x, exactly, in int64. */
export function floorTo(x: string, size: string): string {
  return `(${x} - ${positiveMod(x, size)})`;
}

/** x divided by `size`, rounded down. */
export function floorDiv(x: string, size: string): string {
  return `(${floorTo(x, size)} // ${size})`;
}

/** A DuckDB TIMESTAMP (microseconds) of int64 nanoseconds, for calendar arithmetic. */
export function timestampOf(ns: string): string {
  return `make_timestamp(${floorDiv(ns, '1000')})`;
}

/** RFC 3339 UTC with the nanoseconds trimmed of trailing zeros, as results print datetimes. */
export function formatDatetimeSql(ns: string): string {
  const nanos = positiveMod(ns, '1000000000');
  const fraction = `CASE WHEN ${nanos} = 0 THEN '' ELSE '.' || rtrim(lpad(CAST(${nanos} AS VARCHAR), 9, '0'), '0') END`;
  return `(strftime(${timestampOf(ns)}, '%Y-%m-%dT%H:%M:%S') || ${fraction} || 'Z')`;
}

/** Kusto's `[-][d.]hh:mm:ss[.fffffff]`. */
export function formatTimespanSql(ns: string): string {
  const magnitude = `abs(${ns})`;
  const part = (unit: bigint, modulo: bigint | undefined): string =>
    modulo === undefined ? `(${magnitude} // ${sqlInteger(unit)})` : `((${magnitude} // ${sqlInteger(unit)}) % ${sqlInteger(modulo)})`;
  const nanos = `(${magnitude} % 1000000000)`;
  const days = part(NS_PER.day, undefined);
  return (
    `(CASE WHEN ${ns} < 0 THEN '-' ELSE '' END || CASE WHEN ${days} > 0 THEN CAST(${days} AS VARCHAR) || '.' ELSE '' END || ` +
    `printf('%02d:%02d:%02d', ${part(NS_PER.hour, 24n)}, ${part(NS_PER.minute, 60n)}, ${part(NS_PER.second, 60n)}) || ` +
    `CASE WHEN ${nanos} = 0 THEN '' ELSE '.' || rtrim(lpad(CAST(${nanos} AS VARCHAR), 9, '0'), '0') END)`
  );
}

const ISO_DATETIME = '^(\\d{4}-\\d{2}-\\d{2})(?:[Tt ](\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d{1,9})?)?))?\\s*(Z|z|UTC|[+-]\\d{2}:?\\d{2})?$';

/** todatetime of text: ISO 8601 / RFC 3339 with any offset, or null. */
export function parseDatetimeSql(text: string): string {
  const date = `regexp_extract(${text}, ${quoteString(ISO_DATETIME)}, 1)`;
  const time = `regexp_extract(${text}, ${quoteString(ISO_DATETIME)}, 2)`;
  const offset = `regexp_extract(${text}, ${quoteString(ISO_DATETIME)}, 3)`;
  const local = `epoch_ns(TRY_CAST(${date} || ' ' || CASE WHEN ${time} = '' THEN '00:00:00' ELSE replace(${time}, ',', '.') END AS TIMESTAMP_NS))`;
  const offsetMinutes =
    `CASE WHEN ${offset} IN ('', 'Z', 'z', 'UTC') THEN 0 ELSE ` +
    `(CASE WHEN starts_with(${offset}, '-') THEN -1 ELSE 1 END) * (CAST(substring(replace(${offset}, ':', ''), 2, 2) AS BIGINT) * 60 + CAST(substring(replace(${offset}, ':', ''), 4, 2) AS BIGINT)) END`;
  return `CASE WHEN regexp_matches(${text}, ${quoteString(ISO_DATETIME)}) THEN ${local} - ${offsetMinutes} * ${sqlInteger(NS_PER.minute)} END`;
}

const SUFFIXED_TIMESPAN = '^([+-]?\\d+(?:\\.\\d+)?)\\s*(d|h|m|s|ms|min|sec|microsecond|tick|ns)$';
const CLOCK_TIMESPAN = '^([+-]?)(?:(\\d+)\\.)?(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?$';

/** totimespan of text: `1.5h`, `30s`, `100ms`, or `[d.]hh:mm[:ss[.f]]`; null otherwise. */
export function parseTimespanSql(text: string): string {
  const amount = `TRY_CAST(regexp_extract(${text}, ${quoteString(SUFFIXED_TIMESPAN)}, 1) AS DOUBLE)`;
  const unit = `regexp_extract(${text}, ${quoteString(SUFFIXED_TIMESPAN)}, 2)`;
  const unitNs = `CASE ${unit} WHEN 'd' THEN ${sqlInteger(NS_PER.day)} WHEN 'h' THEN ${sqlInteger(NS_PER.hour)} WHEN 'm' THEN ${sqlInteger(NS_PER.minute)} WHEN 'min' THEN ${sqlInteger(NS_PER.minute)} WHEN 's' THEN ${sqlInteger(NS_PER.second)} WHEN 'sec' THEN ${sqlInteger(NS_PER.second)} WHEN 'ms' THEN ${sqlInteger(NS_PER.millisecond)} WHEN 'microsecond' THEN ${sqlInteger(NS_PER.microsecond)} WHEN 'tick' THEN ${sqlInteger(NS_PER.tick)} ELSE 1 END`;
  const group = (n: number): string => `regexp_extract(${text}, ${quoteString(CLOCK_TIMESPAN)}, ${n})`;
  const number = (n: number): string => `coalesce(TRY_CAST(nullif(${group(n)}, '') AS BIGINT), 0)`;
  const clock =
    `(CASE WHEN ${group(1)} = '-' THEN -1 ELSE 1 END) * (${number(2)} * ${sqlInteger(NS_PER.day)} + ${number(3)} * ${sqlInteger(NS_PER.hour)} + ${number(4)} * ${sqlInteger(NS_PER.minute)} + ` +
    `${number(5)} * ${sqlInteger(NS_PER.second)} + coalesce(TRY_CAST(nullif(rpad(${group(6)}, 9, '0'), '000000000') AS BIGINT), 0))`;
  return `CASE WHEN regexp_matches(${text}, ${quoteString(SUFFIXED_TIMESPAN)}) THEN CAST(round(${amount} * (${unitNs})) AS BIGINT) WHEN regexp_matches(${text}, ${quoteString(CLOCK_TIMESPAN)}) THEN ${clock} END`;
}
