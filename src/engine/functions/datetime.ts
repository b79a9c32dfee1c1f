import { NS_PER } from '../apl/literals.js';
import { argNode, call, constantValue, fail, literal } from '../check/context.js';
import type { Expr } from '../plan/types.js';
import { quoteString, sqlInteger } from '../sql/quote.js';
import { DAY, FIRST_SUNDAY, WEEK, floorDiv, floorTo, positiveMod, timestampOf } from '../sql/time.js';
import { datetime, text, timespan } from './bind.js';
import type { FunctionDef, SqlCall } from './types.js';

const DATETIME_DIFF_PARTS = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond'];

const FIXED_UNITS: Readonly<Record<string, bigint>> = {
  day: NS_PER.day,
  hour: NS_PER.hour,
  minute: NS_PER.minute,
  second: NS_PER.second,
  millisecond: NS_PER.millisecond,
  microsecond: NS_PER.microsecond,
  nanosecond: NS_PER.nanosecond,
};

/** The number of `part` boundaries between two datetimes (later minus earlier). */
function datetimeDiffSql(c: SqlCall): string {
  const part = String(c.value(0) ?? 'day');
  const later = c.arg(1);
  const earlier = c.arg(2);
  const unit = FIXED_UNITS[part];
  if (unit !== undefined) {
    const u = sqlInteger(unit);
    return `(${floorDiv(later, u)} - ${floorDiv(earlier, u)})`;
  }
  if (part === 'week') return `(${floorDiv(`(${later} - ${FIRST_SUNDAY})`, WEEK)} - ${floorDiv(`(${earlier} - ${FIRST_SUNDAY})`, WEEK)})`;
  // year, quarter, month: calendar boundaries, which DuckDB counts the same way.
  return `date_diff(${quoteString(part)}, ${timestampOf(earlier)}, ${timestampOf(later)})`;
}

/** Datetime functions (scalar-functions/datetime-functions). */
export const DATETIME_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'now',
    summary: 'The time the query started, the same in every row.',
    params: [],
    returns: 'datetime',
    bind: (_args, site) => literal('datetime', site.context.now),
    examples: [{ apl: 'now() - now()', result: '00:00:00', type: 'timespan' }],
  },
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
      { apl: 'ago(1)', error: 'ago() expects a timespan as argument 1, got long; write a timespan such as 1h' },
    ],
  },
  {
    name: 'startofday',
    summary: 'Midnight (UTC) of the day of a datetime.',
    params: [datetime('date')],
    returns: 'datetime',
    sql: (c) => floorTo(c.arg(0), DAY),
    examples: [
      { apl: 'startofday(datetime(2024-05-01T12:34:56Z))', result: '2024-05-01T00:00:00Z', type: 'datetime' },
      { apl: 'startofday(datetime(1969-12-31T23:00:00Z))', result: '1969-12-31T00:00:00Z' },
    ],
  },
  {
    name: 'startofweek',
    summary: 'Midnight (UTC) of the Sunday that starts the week of a datetime.',
    params: [datetime('date')],
    returns: 'datetime',
    sql: (c) => `(${c.arg(0)} - ${positiveMod(`(${c.arg(0)} - ${FIRST_SUNDAY})`, WEEK)})`,
    examples: [{ apl: 'startofweek(datetime(2024-05-01T12:00:00Z))', result: '2024-04-28T00:00:00Z', type: 'datetime' }],
  },
  {
    name: 'startofmonth',
    summary: 'Midnight (UTC) of the first day of the month of a datetime.',
    params: [datetime('date')],
    returns: 'datetime',
    sql: (c) => `epoch_ns(date_trunc('month', ${timestampOf(c.arg(0))}))`,
    examples: [{ apl: 'startofmonth(datetime(2024-02-29T12:00:00Z))', result: '2024-02-01T00:00:00Z', type: 'datetime' }],
  },
  {
    name: 'datetime_diff',
    summary: 'How many boundaries of a calendar part (year … nanosecond) lie between two datetimes: the first minus the second.',
    params: [text('period'), datetime('datetime1'), datetime('datetime2')],
    returns: 'long',
    bind: (args, site) => {
      const value = constantValue(args[0] as Expr);
      if (typeof value !== 'string' || !DATETIME_DIFF_PARTS.includes(value.toLowerCase())) {
        fail('invalid_argument', `datetime_diff() needs a constant part as argument 1, one of ${DATETIME_DIFF_PARTS.join(', ')}`, argNode(site.node, 0));
      }
      return call('datetime_diff', [literal('string', value.toLowerCase()), args[1] as Expr, args[2] as Expr], 'long');
    },
    sql: datetimeDiffSql,
    examples: [
      { apl: "datetime_diff('day', datetime(2024-05-03T01:00:00Z), datetime(2024-05-01T23:00:00Z))", result: 2, type: 'integer' },
      { apl: "datetime_diff('month', datetime(2024-05-01), datetime(2023-12-31))", result: 5 },
      { apl: "datetime_diff('week', datetime(2024-05-05), datetime(2024-05-04))", result: 1 },
      { apl: "datetime_diff('fortnight', now(), now())", error: 'datetime_diff() needs a constant part as argument 1, one of year, quarter, month, week, day, hour, minute, second, millisecond, microsecond, nanosecond' },
    ],
  },
  {
    name: 'hourofday',
    summary: 'The hour (0–23, UTC) of a datetime.',
    params: [datetime('date')],
    returns: 'long',
    sql: (c) => `(${positiveMod(c.arg(0), DAY)} // ${sqlInteger(NS_PER.hour)})`,
    examples: [
      { apl: 'hourofday(datetime(2024-05-01T13:59:59Z))', result: 13, type: 'integer' },
      { apl: 'hourofday(_time)', result: 12 },
    ],
  },
  {
    name: 'dayofweek',
    summary: 'The whole days since the Sunday before a datetime, as a timespan (Sunday is 0.00:00:00).',
    params: [datetime('date')],
    returns: 'timespan',
    sql: (c) => `((${positiveMod(`(${c.arg(0)} - ${FIRST_SUNDAY})`, WEEK)} // ${DAY}) * ${DAY})`,
    examples: [
      { apl: 'dayofweek(datetime(2024-05-01))', result: '3.00:00:00', type: 'timespan' },
      { apl: 'dayofweek(datetime(2024-04-28T23:00:00Z))', result: '00:00:00' },
    ],
  },
];
