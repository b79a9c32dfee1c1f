import { describe, expect, it } from 'vitest';
import { evaluate, runQuery, useExampleStore } from '../helpers/examples.js';
import { tableRows } from '../helpers/reference.js';

/**
 * Datetime functions beyond their registry examples: calendar parts, period starts and ends,
 * calendar arithmetic and formatting of datetimes around the epoch, leap days and year ends,
 * against JavaScript's Date (UTC) as the independent reference.
 */

const store = useExampleStore();

const DAY_MS = 86_400_000;

const INSTANTS = [
  '1969-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00Z',
  '1900-03-01T06:07:08.5Z',
  '1968-02-29T13:00:00Z',
  '2000-02-29T12:00:00.25Z',
  '2020-12-31T23:00:00Z',
  '2021-01-03T00:00:00Z',
  '2024-05-01T12:00:05Z',
  '2024-12-30T09:30:00.125Z',
  '2038-01-19T03:14:08Z',
];

/** RFC 3339 as results print it: the fraction without trailing zeros. */
function rfc(ms: number, extra = ''): string {
  const iso = new Date(ms).toISOString();
  const fraction = (iso.slice(20, 23) + extra).replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/** The last tick (100 ns) before `next`. */
const tickBefore = (next: number): string => rfc(next - 1, '9999');

function isoWeek(d: Date): number {
  const day = (d.getUTCDay() + 6) % 7;
  const thursday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day + 3);
  const firstThursdayYear = new Date(thursday).getUTCFullYear();
  return Math.floor((thursday - Date.UTC(firstThursdayYear, 0, 1)) / (7 * DAY_MS)) + 1;
}

/** Kusto's month arithmetic: the day clamped to the end of a shorter month. */
function addMonths(d: Date, months: number): number {
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const lastDay = new Date(utc(year, month + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  return utc(year, month, day) + (d.getTime() - utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/** Date.UTC without its two-digit-year quirk. */
function utc(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(0, 0, 0, 0);
  return d.getTime();
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function expected(instant: string): Record<string, unknown> {
  const d = new Date(instant);
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  const dow = d.getUTCDay();
  const midnight = utc(y, m, day);
  const hour = d.getUTCHours();
  return {
    year: y,
    quarter: Math.floor(m / 3) + 1,
    month: m + 1,
    day,
    doy: Math.round((midnight - utc(y, 0, 1)) / DAY_MS) + 1,
    dow,
    week: isoWeek(d),
    hour,
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    ms: d.getUTCMilliseconds(),
    sod: rfc(midnight),
    sow: rfc(midnight - dow * DAY_MS),
    som: rfc(utc(y, m, 1)),
    soy: rfc(utc(y, 0, 1)),
    eod: tickBefore(midnight + DAY_MS),
    eow: tickBefore(midnight + (7 - dow) * DAY_MS),
    eom: tickBefore(utc(y, m + 1, 1)),
    eoy: tickBefore(utc(y + 1, 0, 1)),
    sow_next: rfc(midnight - dow * DAY_MS + 7 * DAY_MS),
    som_prev: rfc(utc(y, m - 1, 1)),
    add_month: rfc(addMonths(d, 1)),
    add_13_months_back: rfc(addMonths(d, -13)),
    add_quarter: rfc(addMonths(d, 3)),
    diff_month: (2030 - y) * 12 - m,
    formatted: `${pad(y, 4)}-${pad(m + 1)}-${pad(day)} ${pad(hour)}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)} ${pad(((hour + 11) % 12) + 1)} ${hour < 12 ? 'AM' : 'PM'}`,
  };
}

const COLUMNS: Readonly<Record<string, string>> = {
  year: "datetime_part('year', t)",
  quarter: "datetime_part('Quarter', t)",
  month: 'getmonth(t)',
  day: 'dayofmonth(t)',
  doy: 'dayofyear(t)',
  dow: 'dayofweek(t)',
  week: 'week_of_year(t)',
  hour: 'hourofday(t)',
  minute: "datetime_part('minute', t)",
  second: "datetime_part('second', t)",
  ms: "datetime_part('millisecond', t)",
  sod: 'startofday(t)',
  sow: 'startofweek(t)',
  som: 'startofmonth(t)',
  soy: 'startofyear(t)',
  eod: 'endofday(t)',
  eow: 'endofweek(t)',
  eom: 'endofmonth(t)',
  eoy: 'endofyear(t)',
  sow_next: 'startofweek(t, 1)',
  som_prev: 'startofmonth(t, -1)',
  add_month: "datetime_add('month', 1, t)",
  add_13_months_back: "datetime_add('month', -13, t)",
  add_quarter: "datetime_add('quarter', 1, t)",
  diff_month: "datetime_diff('month', datetime(2030-01-15), t)",
  formatted: "format_datetime(t, 'yyyy-MM-dd HH:mm:ss.fff hh tt')",
};

describe('against JavaScript’s Date', () => {
  it.each(INSTANTS)('%s', async (instant) => {
    const projection = Object.entries(COLUMNS).map(([name, expression]) => `${name} = ${expression}`).join(', ');
    const table = (await runQuery(store, `['sample-http-logs'] | take 1 | extend t = datetime(${instant}) | project ${projection}`)).tables[0];
    expect(tableRows(table as never)[0]).toEqual(expected(instant));
  });
});

describe('nulls and constants', () => {
  it.each([
    ['getyear(datetime(null))', null],
    ['startofmonth(datetime(null))', null],
    ['endofweek(datetime(2024-05-01), int(null))', null],
    ["datetime_part('day', datetime(null))", null],
    ["datetime_add('day', 1, datetime(null))", null],
    ['week_of_year(datetime(null))', null],
    ['unixtime_seconds_todatetime(real(null))', null],
    ['make_datetime(2024, 13, 1)', null],
    ['make_datetime(2024, 2, 29, 23, 59, 59.999999999)', '2024-02-29T23:59:59.999999999Z'],
    ['make_timespan(1, 0, 0, 0) == 1d', true],
    // A time without a date is that time on the day the query runs (the examples' now is 2024-05-02T00:00:00Z).
    ['datetime(10:30)', '2024-05-02T10:30:00Z'],
    ['datetime(23:59:59.5) - now()', '23:59:59.5'],
  ])('%s is %j', async (apl, value) => {
    expect((await evaluate(store, apl)).value).toBe(value);
  });

  it('reads the part in any case and only as a constant', async () => {
    expect((await evaluate(store, "datetime_part('DAYOFYEAR', datetime(2024-02-01))")).value).toBe(32);
    await expect(evaluate(store, 'datetime_part(method, _time)')).rejects.toThrow("datetime_part() needs a constant part as argument 1");
  });
});
