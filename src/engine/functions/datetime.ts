import { NS_PER } from '../apl/literals.js';
import { argNode, call, constantValue, fail, literal } from '../check/context.js';
import type { Expr } from '../plan/types.js';
import { quoteString, sqlInteger } from '../sql/quote.js';
import { bindOnce, reuse } from '../sql/reuse.js';
import { DAY, FIRST_SUNDAY, WEEK, floorDiv, floorTo, positiveMod, timestampOf } from '../sql/time.js';
import { datetime, integer, number, text, timespan } from './bind.js';
import type { BindSite, FunctionDef, SqlCall } from './types.js';

/**
 * Datetimes are int64 nanoseconds since the epoch (UTC). Calendar parts go through a DuckDB
 * TIMESTAMP, which holds microseconds: what lies below a microsecond is carried around it.
 */

/** Kusto's tick: the `endof…` functions give the last tick of their period, 23:59:59.9999999, as the reference writes it. */
const TICK = sqlInteger(NS_PER.tick);
const SECOND = sqlInteger(NS_PER.second);

/** The parts `datetime_diff` counts and `datetime_add` adds, as the reference lists them. */
const CALENDAR_PARTS = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond'];

/** The parts `datetime_part` extracts; `week` is Kusto's other name for `week_of_year`. */
const EXTRACTED_PARTS = ['year', 'quarter', 'month', 'week_of_year', 'week', 'day', 'dayofyear', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond'];

const FIXED_UNITS: Readonly<Record<string, bigint>> = {
  week: 7n * NS_PER.day,
  day: NS_PER.day,
  hour: NS_PER.hour,
  minute: NS_PER.minute,
  second: NS_PER.second,
  millisecond: NS_PER.millisecond,
  microsecond: NS_PER.microsecond,
  nanosecond: NS_PER.nanosecond,
};

/** Months in each calendar part that is counted in months. */
const MONTHS: Readonly<Record<string, number>> = { year: 12, quarter: 3, month: 1 };

/** A constant part name (any case) among `parts`, as the lower-case literal the lowering reads. */
function constantPart(args: readonly Expr[], site: BindSite, parts: readonly string[], what: string): Expr {
  const value = constantValue(args[0] as Expr);
  const part = typeof value === 'string' ? value.toLowerCase() : undefined;
  if (part === undefined || !parts.includes(part)) {
    const got = typeof value === 'string' ? `, got '${value}'` : '';
    fail('invalid_argument', `${site.name}() needs a constant ${what} as argument 1, one of ${parts.join(', ')}${got}`, argNode(site.node, 0));
  }
  return literal('string', part);
}

/** The part literal a bound call carries as its first argument. */
const partOf = (c: SqlCall): string => String(c.value(0));

/** Nanoseconds `x` moved by `months` calendar months (the day clamped to the month's end, as Kusto does). */
function addMonths(x: string, months: string): string {
  return reuse(x, 'am', (ns) => `(epoch_ns(${timestampOf(ns)} + to_months(CAST(${months} AS INTEGER))) + ${positiveMod(ns, '1000')})`);
}

/** The number of `part` boundaries between two datetimes (later minus earlier). */
function datetimeDiffSql(c: SqlCall): string {
  const part = partOf(c);
  const later = c.arg(1);
  const earlier = c.arg(2);
  if (part === 'week') return `(${floorDiv(`(${later} - ${FIRST_SUNDAY})`, WEEK)} - ${floorDiv(`(${earlier} - ${FIRST_SUNDAY})`, WEEK)})`;
  const unit = FIXED_UNITS[part];
  if (unit !== undefined) {
    const u = sqlInteger(unit);
    return `(${floorDiv(later, u)} - ${floorDiv(earlier, u)})`;
  }
  // year, quarter, month: calendar boundaries, which DuckDB counts the same way.
  return `date_diff(${quoteString(part === 'year' ? 'year' : part === 'quarter' ? 'quarter' : 'month')}, ${timestampOf(earlier)}, ${timestampOf(later)})`;
}

function datetimeAddSql(c: SqlCall): string {
  const part = partOf(c);
  const amount = c.arg(1);
  const months = MONTHS[part];
  if (months !== undefined) return addMonths(c.arg(2), months === 1 ? amount : `(${amount} * ${months})`);
  return `(${c.arg(2)} + ${amount} * ${sqlInteger(FIXED_UNITS[part] ?? 1n)})`;
}

function datetimePartSql(c: SqlCall): string {
  const x = c.arg(1);
  const fraction = (unit: bigint): string => `(${positiveMod(x, SECOND)} // ${sqlInteger(unit)})`;
  switch (partOf(c)) {
    case 'millisecond':
      return fraction(NS_PER.millisecond);
    case 'microsecond':
      return fraction(NS_PER.microsecond);
    case 'nanosecond':
      return fraction(1n);
    case 'hour':
      return `(${positiveMod(x, DAY)} // ${sqlInteger(NS_PER.hour)})`;
    case 'minute':
      return `(${positiveMod(x, sqlInteger(NS_PER.hour))} // ${sqlInteger(NS_PER.minute)})`;
    case 'second':
      return `(${positiveMod(x, sqlInteger(NS_PER.minute))} // ${SECOND})`;
    case 'week':
    case 'week_of_year':
      return `weekofyear(${timestampOf(x)})`;
    case 'dayofyear':
      return `dayofyear(${timestampOf(x)})`;
    case 'year':
      return `year(${timestampOf(x)})`;
    case 'quarter':
      return `quarter(${timestampOf(x)})`;
    case 'month':
      return `month(${timestampOf(x)})`;
    default:
      return `day(${timestampOf(x)})`;
  }
}

/** The start of the period holding a datetime, moved by `offset` periods (argument 1, when given). */
type PeriodStart = (x: string, offset: string | undefined) => string;

const startOfDay: PeriodStart = (x, offset) => (offset === undefined ? floorTo(x, DAY) : `(${floorTo(x, DAY)} + ${offset} * ${DAY})`);
const startOfWeek: PeriodStart = (x, offset) =>
  reuse(x, 'sw', (ns) => {
    const start = `(${ns} - ${positiveMod(`(${ns} - ${FIRST_SUNDAY})`, WEEK)})`;
    return offset === undefined ? start : `(${start} + ${offset} * ${WEEK})`;
  });
const startOfCalendar =
  (unit: 'month' | 'year'): PeriodStart =>
  (x, offset) => {
    const start = `date_trunc(${quoteString(unit)}, ${timestampOf(x)})`;
    const moved = offset === undefined ? start : `(${start} + ${unit === 'month' ? 'to_months' : 'to_years'}(CAST(${offset} AS INTEGER)))`;
    return `epoch_ns(${moved})`;
  };

const offsetArg = (c: SqlCall): string | undefined => (c.call.args.length > 1 ? c.arg(1) : undefined);

/** `startof…(date [, offset])`. */
function startOf(name: string, start: PeriodStart, summary: string, examples: FunctionDef['examples']): FunctionDef {
  return {
    name,
    summary,
    params: [datetime('datetime'), integer('offset', { optional: true })],
    returns: 'datetime',
    sql: (c) => start(c.arg(0), offsetArg(c)),
    examples: [...examples, { apl: `${name}(now(), 1.5)`, error: `${name}() expects a long as argument 2, got real` }],
  };
}

/** `endof…(date [, offset])`: the last tick before the next period starts. */
function endOf(name: string, start: PeriodStart, summary: string, examples: FunctionDef['examples']): FunctionDef {
  return {
    name,
    summary,
    params: [datetime('datetime'), integer('offset', { optional: true })],
    returns: 'datetime',
    sql: (c) => `(${start(c.arg(0), c.call.args.length > 1 ? `(${c.arg(1)} + 1)` : '1')} - ${TICK})`,
    examples,
  };
}

/** A calendar part of a datetime as a long, for `getyear`, `dayofmonth` and the like. */
function part(name: string, sql: (ts: string, ns: string) => string, summary: string, examples: FunctionDef['examples']): FunctionDef {
  return {
    name,
    summary,
    params: [datetime('datetime')],
    returns: 'long',
    sql: (c) => sql(timestampOf(c.arg(0)), c.arg(0)),
    examples,
  };
}

/** `unixtime_…_todatetime`: whole units since the epoch; a fraction is truncated. */
function fromUnixtime(unit: 'seconds' | 'milliseconds' | 'microseconds' | 'nanoseconds', ns: bigint, examples: FunctionDef['examples']): FunctionDef {
  return {
    name: `unixtime_${unit}_todatetime`,
    summary: `The datetime a number of whole ${unit} since the Unix epoch stands for (a fraction is truncated); null out of range.`,
    params: [number(unit)],
    returns: 'datetime',
    sql: (c) => {
      const whole = c.type(0) === 'long' ? c.arg(0) : `TRY_CAST(trunc(${c.arg(0)}) AS BIGINT)`;
      return ns === 1n ? whole : `try(${whole} * ${sqlInteger(ns)})`;
    },
    examples,
  };
}

// ── format_datetime, format_timespan ─────────────────────────────────────────────────────────

/** Kusto's format specifiers, longest first, and the characters that may separate them. */
const DATETIME_TOKEN = /^(?:yyyy|yy|y|MM|M|dd|d|HH|H|hh|h|mm|m|ss|s|tt|f{1,9}|F{1,9})/;
const TIMESPAN_TOKEN = /^(?:d{1,8}|HH|H|hh|h|mm|m|ss|s|f{1,9}|F{1,9})/;
const SEPARATORS = new Set([' ', '/', '-', ':', ',', '.', '_', '[', ']']);
const DATETIME_SPECIFIERS = 'yyyy, yy, y, MM, M, dd, d, HH, H, hh, h, mm, m, ss, s, tt, f…, F…';
const TIMESPAN_SPECIFIERS = 'd…, HH, H, hh, h, mm, m, ss, s, f…, F…';

type FormatToken = { readonly specifier: string } | { readonly separator: string };

/** A format string as its tokens, or the first character that is neither a specifier nor a separator. */
function tokenizeFormat(format: string, specifiers: RegExp): FormatToken[] | { readonly bad: string } {
  const tokens: FormatToken[] = [];
  for (let i = 0; i < format.length; ) {
    const match = specifiers.exec(format.slice(i));
    if (match) {
      tokens.push({ specifier: match[0] });
      i += match[0].length;
      continue;
    }
    const ch = format[i] as string;
    if (!SEPARATORS.has(ch)) return { bad: ch };
    tokens.push({ separator: ch });
    i++;
  }
  return tokens;
}

const pad = (sql: string, width: number): string => `lpad(CAST(${sql} AS VARCHAR), ${width}, '0')`;

/**
 * The SQL concatenating a format's pieces: `specifier` gives each specifier's text but the
 * fraction's, which comes from `nanos` (the nine digits below the second).
 */
function formatPieces(tokens: readonly FormatToken[], nanos: string, specifier: (s: string) => string): string {
  const pieces: string[] = [];
  tokens.forEach((token, index) => {
    if ('separator' in token) {
      // A '.' before F… digits that all turn out zero goes with them, as .NET writes it.
      const next = tokens[index + 1];
      if (token.separator === '.' && next && 'specifier' in next && next.specifier.startsWith('F')) return;
      pieces.push(quoteString(token.separator));
      return;
    }
    const s = token.specifier;
    const previous = tokens[index - 1];
    if (s.startsWith('f')) {
      pieces.push(`left(${nanos}, ${s.length})`);
    } else if (s.startsWith('F')) {
      const digits = `rtrim(left(${nanos}, ${s.length}), '0')`;
      const dot = previous && 'separator' in previous && previous.separator === '.' ? `'.' || ` : '';
      pieces.push(`CASE WHEN ${digits} = '' THEN '' ELSE ${dot}${digits} END`);
    } else {
      pieces.push(specifier(s));
    }
  });
  return pieces.length === 0 ? "''" : `concat(${pieces.join(', ')})`;
}

/** Binds a format call: the format must be a constant this writer can write. */
function bindFormat(args: readonly Expr[], site: BindSite, specifiers: RegExp, listed: string, example: string): Expr {
  const format = constantValue(args[1] as Expr);
  if (typeof format !== 'string') fail('invalid_argument', `${site.name}() needs a constant format as argument 2, such as "${example}"`, argNode(site.node, 1));
  const tokens = tokenizeFormat(format, specifiers);
  if (!Array.isArray(tokens)) {
    fail('invalid_argument', `${site.name}() cannot write '${tokens.bad}' in the format "${format}": use the specifiers ${listed} and the separators space / - : , . _ [ ]`, argNode(site.node, 1));
  }
  return call(site.name === 'format_timespan' ? 'format_timespan' : 'format_datetime', [args[0] as Expr, literal('string', format)], 'string');
}

function tokensOf(c: SqlCall, specifiers: RegExp): FormatToken[] {
  const tokens = tokenizeFormat(String(c.value(1)), specifiers);
  if (!Array.isArray(tokens)) throw new Error('A format call was bound with a format it cannot write.');
  return tokens;
}

function formatDatetimeSql(c: SqlCall): string {
  const tokens = tokensOf(c, DATETIME_TOKEN);
  return reuse(c.arg(0), 'fv', (ns) => {
    const ts = 'fts';
    const hour12 = `((hour(${ts}) + 11) % 12 + 1)`;
    const sql: Readonly<Record<string, string>> = {
      yyyy: pad(`year(${ts})`, 4),
      yy: pad(`year(${ts}) % 100`, 2),
      y: `CAST(year(${ts}) % 100 AS VARCHAR)`,
      MM: pad(`month(${ts})`, 2),
      M: `CAST(month(${ts}) AS VARCHAR)`,
      dd: pad(`day(${ts})`, 2),
      d: `CAST(day(${ts}) AS VARCHAR)`,
      HH: pad(`hour(${ts})`, 2),
      H: `CAST(hour(${ts}) AS VARCHAR)`,
      hh: pad(hour12, 2),
      h: `CAST(${hour12} AS VARCHAR)`,
      mm: pad(`minute(${ts})`, 2),
      m: `CAST(minute(${ts}) AS VARCHAR)`,
      ss: pad(`second(${ts})`, 2),
      s: `CAST(second(${ts}) AS VARCHAR)`,
      tt: `CASE WHEN hour(${ts}) < 12 THEN 'AM' ELSE 'PM' END`,
    };
    const nanos = `lpad(CAST(${positiveMod(ns, SECOND)} AS VARCHAR), 9, '0')`;
    return bindOnce(timestampOf(ns), ts, formatPieces(tokens, nanos, (s) => sql[s] ?? "''"));
  });
}

/** `format_timespan`: a negative timespan is written as its magnitude after a '-'. */
function formatTimespanSql(c: SqlCall): string {
  const tokens = tokensOf(c, TIMESPAN_TOKEN);
  return reuse(c.arg(0), 'fs', (span) => {
    const part = (unit: bigint, modulo?: bigint): string => `(abs(${span}) // ${sqlInteger(unit)}${modulo === undefined ? '' : ` % ${sqlInteger(modulo)}`})`;
    const hours = part(NS_PER.hour, 24n);
    const sql = (s: string): string => {
      if (s.startsWith('d')) return pad(part(NS_PER.day), s.length);
      if (s === 'HH' || s === 'hh') return pad(hours, 2);
      if (s === 'H' || s === 'h') return `CAST(${hours} AS VARCHAR)`;
      if (s === 'mm') return pad(part(NS_PER.minute, 60n), 2);
      if (s === 'm') return `CAST(${part(NS_PER.minute, 60n)} AS VARCHAR)`;
      if (s === 'ss') return pad(part(NS_PER.second, 60n), 2);
      return `CAST(${part(NS_PER.second, 60n)} AS VARCHAR)`;
    };
    const nanos = `lpad(CAST(abs(${span}) % ${SECOND} AS VARCHAR), 9, '0')`;
    return `CASE WHEN ${span} < 0 THEN '-' ELSE '' END || ${formatPieces(tokens, nanos, sql)}`;
  });
}

// ── make_datetime, make_timespan ─────────────────────────────────────────────────────────────

/** `make_datetime(year, month, day[, hour, minute[, second]])`: null where the parts make no valid UTC time. */
function makeDatetimeSql(c: SqlCall): string {
  const count = c.call.args.length;
  const [year, month, day] = [c.arg(0), c.arg(1), c.arg(2)];
  const hour = count > 3 ? c.arg(3) : '0';
  const minute = count > 4 ? c.arg(4) : '0';
  const second = count > 5 ? `CAST(${c.arg(5)} AS DOUBLE)` : '0.0';
  const whole = 'floor(ms)';
  const valid = `${year} BETWEEN 1 AND 9999 AND ${hour} BETWEEN 0 AND 23 AND ${minute} BETWEEN 0 AND 59 AND ms >= 0 AND ms < 60`;
  const stamp = `epoch_ns(try(make_timestamp(${year}, ${month}, ${day}, ${hour}, ${minute}, ${whole})))`;
  return bindOnce(second, 'ms', `CASE WHEN ${valid} THEN ${stamp} + CAST(round((ms - ${whole}) * 1e9) AS BIGINT) END`);
}

/** `make_timespan(hour, minute)`, `(hour, minute, second)` or `(day, hour, minute, second)`. */
function makeTimespanSql(c: SqlCall): string {
  const args = c.args();
  const [day, hour, minute, second] = args.length === 4 ? args : ['0', args[0], args[1], args[2] ?? '0'];
  const seconds = `CAST(${second} AS DOUBLE)`;
  const whole = `((${day} * 24 + ${hour}) * 60 + ${minute}) * ${sqlInteger(NS_PER.minute)}`;
  return `try(${whole} + CAST(round(${seconds} * 1e9) AS BIGINT))`;
}

/** Datetime functions (scalar-functions/datetime-functions). */
export const DATETIME_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'ago',
    summary: 'The time the query started minus a timespan.',
    params: [timespan('timespan', { hint: '; write a timespan such as 1h' })],
    returns: 'datetime',
    bind: (args, site) => {
      const span = args[0] as Expr;
      const value = constantValue(span);
      if (typeof value === 'bigint') return literal('datetime', site.context.now - value);
      return call('sub', [literal('datetime', site.context.now), span], 'datetime');
    },
    examples: [
      { apl: 'now() - ago(1h)', result: '01:00:00', type: 'timespan' },
      { apl: 'ago(1d)', result: '2024-05-01T00:00:00Z', type: 'datetime' },
      { query: "['sample-http-logs'] | where _time > ago(12h) | count", rows: [{ count: 5 }] },
      { query: "['sample-http-logs'] | where _time > ago(12h) and toint(status) >= 400 | summarize failures = count() by bin(_time, 1h)", rows: [{ _time: '2024-05-01T12:00:00Z', failures: 2 }] },
      { apl: 'ago(1)', error: 'ago() expects a timespan as argument 1, got long; write a timespan such as 1h' },
    ],
  },
  {
    name: 'datetime_add',
    summary: 'A datetime moved by a number of calendar parts (year, quarter, month, week, day … nanosecond); a month past the end of a shorter month lands on its last day.',
    params: [text('part'), integer('value'), datetime('datetime')],
    returns: 'datetime',
    bind: (args, site) => call('datetime_add', [constantPart(args, site, CALENDAR_PARTS, 'part'), args[1] as Expr, args[2] as Expr], 'datetime'),
    sql: datetimeAddSql,
    examples: [
      { apl: "datetime_add('hour', 1, datetime(2025-01-15T10:00:00Z))", result: '2025-01-15T11:00:00Z', type: 'datetime' },
      { apl: "datetime_add('minute', 30, _time)", result: '2024-05-01T12:30:05Z' },
      { apl: "datetime_add('day', -1, datetime(2025-01-15))", result: '2025-01-14T00:00:00Z' },
      { apl: "datetime_add('month', 1, datetime(2024-01-31T08:00:00.123456789Z))", result: '2024-02-29T08:00:00.123456789Z' },
      { apl: "datetime_add('Year', -1, datetime(2024-02-29))", result: '2023-02-28T00:00:00Z' },
      { apl: "datetime_add('quarter', 2, datetime(2024-05-01))", result: '2024-11-01T00:00:00Z' },
      { apl: "datetime_add('week', 1, datetime(2024-05-01))", result: '2024-05-08T00:00:00Z' },
      { apl: "datetime_add('millisecond', 1500, datetime(2024-05-01))", result: '2024-05-01T00:00:01.5Z' },
      { apl: "datetime_add('day', int(null), datetime(2024-05-01))", result: null },
      {
        query: "['sample-http-logs'] | where _time between (datetime_add('second', -3, datetime(2024-05-01T12:00:05Z)) .. datetime(2024-05-01T12:00:05Z)) | summarize count() by method | order by method asc",
        rows: [
          { method: 'DELETE', count_: 1 },
          { method: 'GET', count_: 2 },
          { method: 'POST', count_: 1 },
        ],
      },
      { apl: "datetime_add('fortnight', 1, now())", error: "datetime_add() needs a constant part as argument 1, one of year, quarter, month, week, day, hour, minute, second, millisecond, microsecond, nanosecond, got 'fortnight'" },
    ],
  },
  {
    name: 'datetime_diff',
    summary: 'How many boundaries of a calendar part (year … nanosecond) lie between two datetimes: the first minus the second. Weeks start on Sunday.',
    params: [text('part'), datetime('datetime1'), datetime('datetime2')],
    returns: 'long',
    bind: (args, site) => call('datetime_diff', [constantPart(args, site, CALENDAR_PARTS, 'part'), args[1] as Expr, args[2] as Expr], 'long'),
    sql: datetimeDiffSql,
    examples: [
      { apl: "datetime_diff('day', datetime(2024-05-03T01:00:00Z), datetime(2024-05-01T23:00:00Z))", result: 2, type: 'integer' },
      { apl: "datetime_diff('month', datetime(2024-05-01), datetime(2023-12-31))", result: 5 },
      { apl: "datetime_diff('week', datetime(2024-05-05), datetime(2024-05-04))", result: 1 },
      { apl: "datetime_diff('hour', now(), _time)", result: 12 },
      { apl: "datetime_diff('Millisecond', datetime(2024-05-01T00:00:01.9Z), datetime(2024-05-01))", result: 1900 },
      { apl: "datetime_diff('year', datetime(2024-01-01), datetime(2025-12-31))", result: -1 },
      { apl: "datetime_diff('nanosecond', datetime(2024-05-01), datetime(null))", result: null },
      {
        query: "['sample-http-logs'] | where toint(status) >= 400 | summarize failures = count() by age_in_days = datetime_diff('day', now(), _time) | order by age_in_days asc",
        rows: [{ age_in_days: 1, failures: 2 }],
      },
      { apl: "datetime_diff('fortnight', now(), now())", error: "datetime_diff() needs a constant part as argument 1, one of year, quarter, month, week, day, hour, minute, second, millisecond, microsecond, nanosecond, got 'fortnight'" },
    ],
  },
  {
    name: 'datetime_part',
    summary: 'One part of a datetime (UTC) as a long: year, quarter, month, week_of_year (ISO 8601), day (of the month), dayOfYear, hour, minute, second, or the millisecond, microsecond or nanosecond within the second.',
    params: [text('part'), datetime('datetime')],
    returns: 'long',
    bind: (args, site) => call('datetime_part', [constantPart(args, site, EXTRACTED_PARTS, 'part'), args[1] as Expr], 'long'),
    sql: datetimePartSql,
    examples: [
      { apl: "datetime_part('hour', _time)", result: 12, type: 'integer' },
      { apl: "datetime_part('year', datetime(2024-05-01T13:14:15.123456789Z))", result: 2024 },
      { apl: "datetime_part('quarter', datetime(2024-05-01))", result: 2 },
      { apl: "datetime_part('month', datetime(2024-05-01))", result: 5 },
      { apl: "datetime_part('week_of_year', datetime(2021-01-01))", result: 53 },
      { apl: "datetime_part('day', datetime(2024-05-31))", result: 31 },
      { apl: "datetime_part('dayOfYear', datetime(2024-12-31))", result: 366 },
      { apl: "datetime_part('minute', datetime(2024-05-01T13:14:15.123456789Z))", result: 14 },
      { apl: "datetime_part('second', datetime(2024-05-01T13:14:15.123456789Z))", result: 15 },
      { apl: "datetime_part('millisecond', datetime(2024-05-01T13:14:15.123456789Z))", result: 123 },
      { apl: "datetime_part('microsecond', datetime(2024-05-01T13:14:15.123456789Z))", result: 123456 },
      { apl: "datetime_part('nanosecond', datetime(2024-05-01T13:14:15.123456789Z))", result: 123456789 },
      { apl: "datetime_part('hour', datetime(1969-12-31T23:30:00Z))", result: 23 },
      { query: "['sample-http-logs'] | summarize requests = count() by hour_of_day = datetime_part('hour', _time) | order by hour_of_day asc", rows: [{ hour_of_day: 12, requests: 6 }] },
      { apl: "datetime_part('weekday', now())", error: "datetime_part() needs a constant part as argument 1, one of year, quarter, month, week_of_year, week, day, dayofyear, hour, minute, second, millisecond, microsecond, nanosecond, got 'weekday'" },
    ],
  },
  part('dayofmonth', (ts) => `day(${ts})`, 'The day of the month (1–31, UTC) of a datetime.', [
    { apl: 'dayofmonth(datetime(2024-05-31T23:59:59Z))', result: 31, type: 'integer' },
    { apl: 'dayofmonth(_time)', result: 1 },
    { query: "['sample-http-logs'] | summarize requests = count() by day_of_month = dayofmonth(_time) | order by day_of_month asc", rows: [{ day_of_month: 1, requests: 6 }] },
  ]),
  {
    name: 'dayofweek',
    summary: 'The number of days since the Sunday before a datetime: 0 for Sunday, 1 for Monday, … 6 for Saturday.',
    params: [datetime('datetime')],
    returns: 'long',
    sql: (c) => `(${positiveMod(`(${c.arg(0)} - ${FIRST_SUNDAY})`, WEEK)} // ${DAY})`,
    examples: [
      { apl: 'dayofweek(datetime(2024-05-01))', result: 3, type: 'integer' },
      { apl: 'dayofweek(datetime(2024-04-28T23:00:00Z))', result: 0 },
      { apl: 'dayofweek(datetime(1969-12-27))', result: 6 },
      { query: "['sample-http-logs'] | where toint(status) >= 400 | summarize failures = count() by weekday = dayofweek(_time) | order by weekday asc", rows: [{ weekday: 3, failures: 2 }] },
    ],
  },
  part('dayofyear', (ts) => `dayofyear(${ts})`, 'The day of the year (1–366, UTC) of a datetime.', [
    { apl: 'dayofyear(datetime(2024-12-31))', result: 366, type: 'integer' },
    { apl: 'dayofyear(datetime(2023-12-31))', result: 365 },
    { apl: 'dayofyear(_time)', result: 122 },
  ]),
  endOf('endofday', startOfDay, 'The last tick (23:59:59.9999999, UTC) of the day of a datetime, moved by `offset` days.', [
    { apl: 'endofday(datetime(2024-05-01T12:34:56Z))', result: '2024-05-01T23:59:59.9999999Z', type: 'datetime' },
    { apl: 'endofday(datetime(2024-05-01T12:34:56Z), -1)', result: '2024-04-30T23:59:59.9999999Z' },
    { apl: "datetime_diff('millisecond', endofday(_time), _time)", result: 43194999 },
  ]),
  endOf('endofmonth', startOfCalendar('month'), 'The last tick of the last day of the month of a datetime, moved by `offset` months.', [
    { apl: 'endofmonth(datetime(2024-02-10))', result: '2024-02-29T23:59:59.9999999Z', type: 'datetime' },
    { apl: 'endofmonth(datetime(2024-02-10), 1)', result: '2024-03-31T23:59:59.9999999Z' },
    { apl: 'endofmonth(datetime(2024-01-10), -2)', result: '2023-11-30T23:59:59.9999999Z' },
  ]),
  endOf('endofweek', startOfWeek, 'The last tick of the Saturday that ends the week of a datetime, moved by `offset` weeks.', [
    { apl: 'endofweek(datetime(2024-05-01))', result: '2024-05-04T23:59:59.9999999Z', type: 'datetime' },
    { apl: 'endofweek(datetime(2024-05-04T23:00:00Z), 1)', result: '2024-05-11T23:59:59.9999999Z' },
  ]),
  endOf('endofyear', startOfCalendar('year'), 'The last tick of 31 December of the year of a datetime, moved by `offset` years.', [
    { apl: 'endofyear(datetime(2024-05-01))', result: '2024-12-31T23:59:59.9999999Z', type: 'datetime' },
    { apl: 'endofyear(_time, -1)', result: '2023-12-31T23:59:59.9999999Z' },
  ]),
  {
    name: 'format_datetime',
    summary:
      'A datetime written with a format of Kusto’s specifiers: yyyy, yy, y, MM, M, dd, d, HH, H, hh, h, mm, m, ss, s, tt (AM/PM), f… (1–9 fraction digits), F… (the same without trailing zeros), separated by space / - : , . _ [ ]; a null datetime gives the empty string.',
    params: [datetime('datetime'), text('format')],
    returns: 'string',
    bind: (args, site) => bindFormat(args, site, DATETIME_TOKEN, DATETIME_SPECIFIERS, 'yyyy-MM-dd HH:mm:ss'),
    sql: formatDatetimeSql,
    examples: [
      { apl: "format_datetime(datetime(2017-01-29 09:00:05), 'yy-MM-dd [HH:mm:ss]')", result: '17-01-29 [09:00:05]', type: 'string' },
      { apl: "format_datetime(datetime(2017-01-29 09:00:05), 'yyyy-M-dd [H:mm:ss]')", result: '2017-1-29 [9:00:05]' },
      { apl: "format_datetime(datetime(2017-01-29 09:00:05), 'yy-MM-dd [hh:mm:ss tt]')", result: '17-01-29 [09:00:05 AM]' },
      { apl: "format_datetime(datetime(2024-05-01T13:14:15.1234567Z), 'HH:mm:ss.fff')", result: '13:14:15.123' },
      { apl: "format_datetime(datetime(2024-05-01T13:14:15.12Z), 'h:mm:ss.FFFF tt')", result: '1:14:15.12 PM' },
      { apl: "format_datetime(datetime(2024-05-01T13:14:15Z), 'ss.FFF')", result: '15' },
      { apl: "format_datetime(_time, 'yyyy/MM/dd')", result: '2024/05/01' },
      { apl: "format_datetime(datetime(null), 'yyyy')", result: '' },
      { apl: "format_datetime(now(), 'yyyy-MM-dd %H')", error: 'format_datetime() cannot write \'%\' in the format "yyyy-MM-dd %H": use the specifiers yyyy, yy, y, MM, M, dd, d, HH, H, hh, h, mm, m, ss, s, tt, f…, F… and the separators space / - : , . _ [ ]' },
    ],
  },
  {
    name: 'format_timespan',
    summary:
      'A timespan written with a format of Kusto’s specifiers: d… (days, padded to the count of d), HH or hh (hours 00–23), H or h, mm, m, ss, s, f… (1–9 fraction digits), F… (the same without trailing zeros), separated by space / - : , . _ [ ]; a negative one starts with -.',
    params: [timespan('timespan'), text('format')],
    returns: 'string',
    bind: (args, site) => bindFormat(args, site, TIMESPAN_TOKEN, TIMESPAN_SPECIFIERS, 'd.hh:mm:ss'),
    sql: formatTimespanSql,
    examples: [
      { apl: "format_timespan(time(29.09:00:05.12345), 'dd.hh:mm:ss [fffff]')", result: '29.09:00:05 [12345]', type: 'string' },
      { apl: "format_timespan(time(29.09:00:05.12345), 'ddd.h:mm:ss [fffffff]')", result: '029.9:00:05 [1234500]' },
      { apl: "format_timespan(90m, 'hh:mm')", result: '01:30' },
      { apl: "format_timespan(-1.5s, 's.FFF')", result: '-1.5' },
      { apl: "format_timespan(2d, 'd.hh:mm:ss.FFF')", result: '2.00:00:00' },
      { apl: "format_timespan(1h, 'hh %')", error: 'format_timespan() cannot write \'%\' in the format "hh %": use the specifiers d…, HH, H, hh, h, mm, m, ss, s, f…, F… and the separators space / - : , . _ [ ]' },
    ],
  },
  part('getmonth', (ts) => `month(${ts})`, 'The month (1–12, UTC) of a datetime.', [
    { apl: 'getmonth(datetime(2024-12-31T23:59:59Z))', result: 12, type: 'integer' },
    { apl: 'getmonth(_time)', result: 5 },
  ]),
  part('getyear', (ts) => `year(${ts})`, 'The year (UTC) of a datetime.', [
    { apl: 'getyear(datetime(2024-12-31T23:59:59Z))', result: 2024, type: 'integer' },
    { apl: 'getyear(datetime(1969-12-31T23:59:59Z))', result: 1969 },
    { query: "['sample-http-logs'] | summarize requests = count() by calendar_year = getyear(_time) | order by calendar_year asc", rows: [{ calendar_year: 2024, requests: 6 }] },
  ]),
  part('hourofday', (_ts, ns) => `(${positiveMod(ns, DAY)} // ${sqlInteger(NS_PER.hour)})`, 'The hour (0–23, UTC) of a datetime.', [
    { apl: 'hourofday(datetime(2024-05-01T13:59:59Z))', result: 13, type: 'integer' },
    { apl: 'hourofday(_time)', result: 12 },
    { apl: 'hourofday(datetime(1969-12-31T23:30:00Z))', result: 23 },
  ]),
  {
    name: 'make_datetime',
    summary: 'The datetime (UTC) of a year, month and day, and optionally hour, minute and second (a real, for fractions); null where they make no valid time.',
    params: [integer('year'), integer('month'), integer('day'), integer('hour', { optional: true }), integer('minute', { optional: true }), number('second', { optional: true })],
    returns: 'datetime',
    sql: makeDatetimeSql,
    examples: [
      { apl: 'make_datetime(2017, 10, 1, 12, 10)', result: '2017-10-01T12:10:00Z', type: 'datetime' },
      { apl: 'make_datetime(2017, 10, 1, 12, 11, 0.1234567)', result: '2017-10-01T12:11:00.1234567Z' },
      { apl: 'make_datetime(2024, 2, 29)', result: '2024-02-29T00:00:00Z' },
      { apl: 'make_datetime(2023, 2, 29)', result: null },
      { apl: 'make_datetime(2024, 1, 1, 24, 0)', result: null },
    ],
  },
  {
    name: 'make_timespan',
    summary: 'The timespan of hours and minutes, of hours, minutes and seconds, or of days, hours, minutes and seconds (seconds a real, for fractions).',
    params: [integer('hour'), integer('minute'), number('second', { optional: true }), number('fourth', { optional: true })],
    returns: 'timespan',
    bind: (args, site) => {
      if (args.length === 4) {
        for (const index of [0, 1, 2]) {
          if (args[index]?.type !== 'long') fail('type_mismatch', `make_timespan() with four arguments expects a long as argument ${index + 1} (day, hour, minute, second), got ${args[index]?.type}`, argNode(site.node, index));
        }
      }
      return call('make_timespan', args, 'timespan');
    },
    sql: makeTimespanSql,
    examples: [
      { apl: 'make_timespan(1, 12)', result: '01:12:00', type: 'timespan' },
      { apl: 'make_timespan(1, 12, 30.55)', result: '01:12:30.55' },
      { apl: 'make_timespan(2, 1, 12, 30)', result: '2.01:12:30' },
      { apl: 'make_timespan(0, int(null))', result: null },
    ],
  },
  part('monthofyear', (ts) => `month(${ts})`, 'The month (1–12, UTC) of a datetime; the same as getmonth().', [
    { apl: 'monthofyear(datetime(2024-02-29))', result: 2, type: 'integer' },
    { query: "['sample-http-logs'] | where toint(status) >= 500 | summarize server_errors = count() by month_number = monthofyear(_time) | order by month_number asc", rows: [{ month_number: 5, server_errors: 1 }] },
  ]),
  {
    name: 'now',
    summary: 'The time the query started, the same in every row, plus an optional timespan.',
    params: [timespan('offset', { optional: true, hint: '; write a timespan such as -5m' })],
    returns: 'datetime',
    bind: (args, site) => {
      const offset = args[0];
      if (!offset) return literal('datetime', site.context.now);
      const value = constantValue(offset);
      if (typeof value === 'bigint') return literal('datetime', site.context.now + value);
      return call('add', [literal('datetime', site.context.now), offset], 'datetime');
    },
    examples: [
      { apl: 'now() - now()', result: '00:00:00', type: 'timespan' },
      { apl: 'now()', result: '2024-05-02T00:00:00Z', type: 'datetime' },
      { apl: 'now(-5m)', result: '2024-05-01T23:55:00Z' },
      { apl: 'now(2d) - now()', result: '2.00:00:00' },
      { query: "['sample-http-logs'] | where _time > now(-12h - 2s) | count", rows: [{ count: 6 }] },
      { apl: 'now(5)', error: 'now() expects a timespan as argument 1, got long; write a timespan such as -5m' },
    ],
  },
  startOf('startofday', startOfDay, 'Midnight (UTC) of the day of a datetime, moved by `offset` days.', [
    { apl: 'startofday(datetime(2024-05-01T12:34:56Z))', result: '2024-05-01T00:00:00Z', type: 'datetime' },
    { apl: 'startofday(datetime(1969-12-31T23:00:00Z))', result: '1969-12-31T00:00:00Z' },
    { apl: 'startofday(datetime(2024-05-01T12:34:56Z), 2)', result: '2024-05-03T00:00:00Z' },
    { query: "['sample-http-logs'] | summarize requests = count() by midnight = startofday(_time) | order by midnight asc", rows: [{ midnight: '2024-05-01T00:00:00Z', requests: 6 }] },
  ]),
  startOf('startofmonth', startOfCalendar('month'), 'Midnight (UTC) of the first day of the month of a datetime, moved by `offset` months.', [
    { apl: 'startofmonth(datetime(2024-02-29T12:00:00Z))', result: '2024-02-01T00:00:00Z', type: 'datetime' },
    { apl: 'startofmonth(datetime(2024-02-29T12:00:00Z), -2)', result: '2023-12-01T00:00:00Z' },
  ]),
  startOf('startofweek', startOfWeek, 'Midnight (UTC) of the Sunday that starts the week of a datetime, moved by `offset` weeks.', [
    { apl: 'startofweek(datetime(2024-05-01T12:00:00Z))', result: '2024-04-28T00:00:00Z', type: 'datetime' },
    { apl: 'startofweek(datetime(2024-05-01T12:00:00Z), 1)', result: '2024-05-05T00:00:00Z' },
  ]),
  startOf('startofyear', startOfCalendar('year'), 'Midnight (UTC) of 1 January of the year of a datetime, moved by `offset` years.', [
    { apl: 'startofyear(datetime(2024-05-01T12:00:00Z))', result: '2024-01-01T00:00:00Z', type: 'datetime' },
    { apl: 'startofyear(_time, 1)', result: '2025-01-01T00:00:00Z' },
  ]),
  fromUnixtime('microseconds', NS_PER.microsecond, [
    { apl: 'unixtime_microseconds_todatetime(1714564805000000)', result: '2024-05-01T12:00:05Z', type: 'datetime' },
    { apl: "unixtime_microseconds_todatetime(toint(datetime_diff('Microsecond', _time, datetime(1970-01-01)))) == _time", result: true },
    { apl: 'unixtime_microseconds_todatetime(1.9)', result: '1970-01-01T00:00:00.000001Z' },
  ]),
  fromUnixtime('milliseconds', NS_PER.millisecond, [
    { apl: 'unixtime_milliseconds_todatetime(1714564805123)', result: '2024-05-01T12:00:05.123Z', type: 'datetime' },
    { apl: 'unixtime_milliseconds_todatetime(-1)', result: '1969-12-31T23:59:59.999Z' },
  ]),
  fromUnixtime('nanoseconds', 1n, [
    { apl: 'unixtime_nanoseconds_todatetime(1714564805123456789)', result: '2024-05-01T12:00:05.123456789Z', type: 'datetime' },
    { apl: 'unixtime_nanoseconds_todatetime(long(null))', result: null },
  ]),
  fromUnixtime('seconds', NS_PER.second, [
    { apl: 'unixtime_seconds_todatetime(1714564805)', result: '2024-05-01T12:00:05Z', type: 'datetime' },
    { apl: 'unixtime_seconds_todatetime(1714564805.9)', result: '2024-05-01T12:00:05Z' },
    { apl: 'unixtime_seconds_todatetime(9223372036854775807)', result: null },
  ]),
  part('week_of_year', (ts) => `weekofyear(${ts})`, 'The ISO 8601 week of the year (1–53) of a datetime: weeks start on Monday, and week 1 holds the year’s first Thursday.', [
    { apl: 'week_of_year(datetime(2021-01-01))', result: 53, type: 'integer' },
    { apl: 'week_of_year(datetime(2024-12-30))', result: 1 },
    { apl: 'week_of_year(_time)', result: 18 },
  ]),
];
