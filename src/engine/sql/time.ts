import { NS_PER } from '../apl/literals.js';
import { quoteString, sqlInteger } from './quote.js';
import { reuse } from './reuse.js';

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
export function formatDatetimeSql(value: string): string {
  return reuse(value, 'fd', (ns) => {
    const nanos = positiveMod(ns, '1000000000');
    const fraction = `CASE WHEN ${nanos} = 0 THEN '' ELSE '.' || rtrim(lpad(CAST(${nanos} AS VARCHAR), 9, '0'), '0') END`;
    return `(strftime(${timestampOf(ns)}, '%Y-%m-%dT%H:%M:%S') || ${fraction} || 'Z')`;
  });
}

/** Kusto's `[-][d.]hh:mm:ss[.fffffff]`. */
export function formatTimespanSql(value: string): string {
  return reuse(value, 'ft', (ns) => {
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
  });
}

const ISO_DATETIME = '^(\\d{4}-\\d{2}-\\d{2})(?:[Tt ](\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d{1,9})?)?))?\\s*(Z|z|UTC|[+-]\\d{2}:?\\d{2})?$';

/**
 * Formats `todatetime` reads besides ISO 8601 and epoch digits: the common ones of Go's
 * `dateparse` package, which the reference names (month before day where it is ambiguous).
 * Those without a zone are UTC.
 */
const LOCAL_FORMATS = [
  '%Y/%m/%d %H:%M:%S',
  '%Y/%m/%d %H:%M',
  '%Y/%m/%d',
  '%m/%d/%Y %H:%M:%S',
  '%m/%d/%Y %H:%M',
  '%m/%d/%Y %I:%M:%S %p',
  '%m/%d/%Y %I:%M %p',
  '%m/%d/%Y',
  '%d %b %Y %H:%M:%S',
  '%d %b %Y',
  '%b %d, %Y %H:%M:%S',
  '%b %d, %Y %I:%M:%S %p',
  '%b %d, %Y',
  '%B %d, %Y %H:%M:%S',
  '%B %d, %Y',
  '%a %b %d %H:%M:%S %Y',
  '%Y%m%d',
];
const ZONED_FORMATS = ['%a, %d %b %Y %H:%M:%S %Z', '%a, %d %b %Y %H:%M:%S %z', '%a %b %d %H:%M:%S %Z %Y', '%d %b %y %H:%M %Z', '%Y-%m-%d %H:%M:%S %z', '%Y-%m-%d %H:%M:%S %Z'];

/** Epoch digits by their count, as dateparse reads them: seconds, milliseconds, microseconds, nanoseconds. */
const EPOCH_DIGITS: readonly (readonly [number, bigint])[] = [
  [10, NS_PER.second],
  [13, NS_PER.millisecond],
  [16, NS_PER.microsecond],
  [19, 1n],
];

/** todatetime of text: ISO 8601 / RFC 3339 with any offset, epoch digits, or one of the formats above; else null. */
export function parseDatetimeSql(value: string): string {
  return reuse(value, 'pd', (text) => {
    const date = `regexp_extract(${text}, ${quoteString(ISO_DATETIME)}, 1)`;
    const time = `regexp_extract(${text}, ${quoteString(ISO_DATETIME)}, 2)`;
    const offset = `regexp_extract(${text}, ${quoteString(ISO_DATETIME)}, 3)`;
    const local = `epoch_ns(TRY_CAST(${date} || ' ' || CASE WHEN ${time} = '' THEN '00:00:00' ELSE replace(${time}, ',', '.') END AS TIMESTAMP_NS))`;
    const offsetMinutes =
      `CASE WHEN ${offset} IN ('', 'Z', 'z', 'UTC') THEN 0 ELSE ` +
      `(CASE WHEN starts_with(${offset}, '-') THEN -1 ELSE 1 END) * (CAST(substring(replace(${offset}, ':', ''), 2, 2) AS BIGINT) * 60 + CAST(substring(replace(${offset}, ':', ''), 4, 2) AS BIGINT)) END`;
    const formats = (list: readonly string[]): string => `[${list.map(quoteString).join(', ')}]`;
    const epochs = EPOCH_DIGITS.map(([digits, unit]) => `WHEN regexp_full_match(${text}, ${quoteString(`[0-9]{${digits}}`)}) THEN TRY_CAST(${text} AS BIGINT) * ${sqlInteger(unit)}`);
    return (
      `CASE WHEN regexp_matches(${text}, ${quoteString(ISO_DATETIME)}) THEN ${local} - ${offsetMinutes} * ${sqlInteger(NS_PER.minute)} ${epochs.join(' ')} ` +
      `ELSE coalesce(epoch_ns(try_strptime(${text}, ${formats(LOCAL_FORMATS)})), epoch_ns(try_strptime(${text}, ${formats(ZONED_FORMATS)}))) END`
    );
  });
}

/** Units of a timespan's parts: Go's (`ns us µs ms s m h`) and APL's literal suffixes. */
const TIMESPAN_UNITS: readonly (readonly [string, bigint])[] = [
  ['microsecond', NS_PER.microsecond],
  ['tick', NS_PER.tick],
  ['min', NS_PER.minute],
  ['sec', NS_PER.second],
  ['ms', NS_PER.millisecond],
  ['us', NS_PER.microsecond],
  ['µs', NS_PER.microsecond],
  ['ns', 1n],
  ['d', NS_PER.day],
  ['h', NS_PER.hour],
  ['m', NS_PER.minute],
  ['s', NS_PER.second],
];
const PART = `(\\d+(?:\\.\\d*)?|\\.\\d+)\\s*(${TIMESPAN_UNITS.map(([unit]) => unit).join('|')})`;
const COMPOUND_TIMESPAN = `^([+-]?)((?:${PART.replace(/\((?!\?)/g, '(?:')})+)$`;
const CLOCK_TIMESPAN = '^([+-]?)(?:(\\d+)\\.)?(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?$';

/** totimespan of text: Go durations (`300ms`, `-1.5h`, `2h45m`), APL's units (`2d`, `10min`), or `[d.]hh:mm[:ss[.f]]`; null otherwise. */
export function parseTimespanSql(value: string): string {
  return reuse(value, 'pt', (text) => {
    const unitNs = (unit: string): string => `CASE ${unit} ${TIMESPAN_UNITS.map(([name, ns]) => `WHEN ${quoteString(name)} THEN ${sqlInteger(ns)}`).join(' ')} END`;
    const amounts = `regexp_extract_all(${text}, ${quoteString(PART)}, 1)`;
    const units = `regexp_extract_all(${text}, ${quoteString(PART)}, 2)`;
    const total = `list_sum(list_transform(${amounts}, (a, i) -> CAST(a AS DOUBLE) * ${unitNs(`${units}[i]`)}))`;
    const sign = `CASE WHEN starts_with(${text}, '-') THEN -1 ELSE 1 END`;
    const group = (n: number): string => `regexp_extract(${text}, ${quoteString(CLOCK_TIMESPAN)}, ${n})`;
    const number = (n: number): string => `coalesce(TRY_CAST(nullif(${group(n)}, '') AS BIGINT), 0)`;
    const clock =
      `(CASE WHEN ${group(1)} = '-' THEN -1 ELSE 1 END) * (${number(2)} * ${sqlInteger(NS_PER.day)} + ${number(3)} * ${sqlInteger(NS_PER.hour)} + ${number(4)} * ${sqlInteger(NS_PER.minute)} + ` +
      `${number(5)} * ${sqlInteger(NS_PER.second)} + coalesce(TRY_CAST(nullif(rpad(${group(6)}, 9, '0'), '000000000') AS BIGINT), 0))`;
    return `CASE WHEN regexp_matches(${text}, ${quoteString(COMPOUND_TIMESPAN)}) THEN ${sign} * TRY_CAST(round(${total}) AS BIGINT) WHEN regexp_matches(${text}, ${quoteString(CLOCK_TIMESPAN)}) THEN ${clock} END`;
  });
}
