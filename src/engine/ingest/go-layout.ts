import { ingestError } from './errors.js';

/**
 * Go reference-time layouts (`timestamp-format`), as the hosted service takes them: the layout
 * writes the reference time `Mon Jan 2 15:04:05 MST 2006` (offset `-0700`) the way the values
 * are written, e.g. `02/Jan/2006:15:04:05 -0700` for web-server logs.
 */
type Token =
  | { kind: 'literal'; text: string }
  | { kind: 'year4' | 'year2' | 'month' | 'month2' | 'monthShort' | 'monthLong' | 'day' | 'day2' | 'dayPadded' | 'yearDay' | 'weekdayShort' | 'weekdayLong' }
  | { kind: 'hour24' | 'hour12' | 'hour12Padded' | 'minute' | 'minute2' | 'second' | 'second2' | 'ampm' | 'zoneName' }
  | { kind: 'offset'; z: boolean; colons: boolean; seconds: boolean; minutes: boolean }
  | { kind: 'fraction'; digits: number; optional: boolean };

export type GoLayout = readonly Token[];

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** Chunks in the order Go's own scanner tries them at each position: longer ones first. */
const CHUNKS: readonly [string, Token][] = [
  ['January', { kind: 'monthLong' }],
  ['Jan', { kind: 'monthShort' }],
  ['Monday', { kind: 'weekdayLong' }],
  ['Mon', { kind: 'weekdayShort' }],
  ['MST', { kind: 'zoneName' }],
  ['2006', { kind: 'year4' }],
  ['002', { kind: 'yearDay' }],
  ['01', { kind: 'month2' }],
  ['02', { kind: 'day2' }],
  ['03', { kind: 'hour12Padded' }],
  ['04', { kind: 'minute2' }],
  ['05', { kind: 'second2' }],
  ['06', { kind: 'year2' }],
  ['15', { kind: 'hour24' }],
  ['1', { kind: 'month' }],
  ['2', { kind: 'day' }],
  ['3', { kind: 'hour12' }],
  ['4', { kind: 'minute' }],
  ['5', { kind: 'second' }],
  ['__2', { kind: 'yearDay' }],
  ['_2', { kind: 'dayPadded' }],
  ['PM', { kind: 'ampm' }],
  ['pm', { kind: 'ampm' }],
  ['Z07:00:00', { kind: 'offset', z: true, colons: true, minutes: true, seconds: true }],
  ['-07:00:00', { kind: 'offset', z: false, colons: true, minutes: true, seconds: true }],
  ['Z070000', { kind: 'offset', z: true, colons: false, minutes: true, seconds: true }],
  ['-070000', { kind: 'offset', z: false, colons: false, minutes: true, seconds: true }],
  ['Z07:00', { kind: 'offset', z: true, colons: true, minutes: true, seconds: false }],
  ['-07:00', { kind: 'offset', z: false, colons: true, minutes: true, seconds: false }],
  ['Z0700', { kind: 'offset', z: true, colons: false, minutes: true, seconds: false }],
  ['-0700', { kind: 'offset', z: false, colons: false, minutes: true, seconds: false }],
  ['Z07', { kind: 'offset', z: true, colons: false, minutes: false, seconds: false }],
  ['-07', { kind: 'offset', z: false, colons: false, minutes: false, seconds: false }],
];

const cache = new Map<string, GoLayout>();

/** Tokenizes a layout; throws an InputError (400) when it has no date or time element at all. */
export function parseGoLayout(layout: string): GoLayout {
  const cached = cache.get(layout);
  if (cached) return cached;
  const tokens: Token[] = [];
  let literal = '';
  let i = 0;
  outer: while (i < layout.length) {
    const char = layout[i] as string;
    if ((char === '.' || char === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
      const digit = layout[i + 1];
      let j = i + 1;
      while (layout[j] === digit) j++;
      if (!/[0-9]/.test(layout[j] ?? '')) {
        if (literal) tokens.push({ kind: 'literal', text: literal });
        literal = '';
        tokens.push({ kind: 'fraction', digits: j - i - 1, optional: digit === '9' });
        i = j;
        continue;
      }
    }
    for (const [chunk, token] of CHUNKS) {
      if (!layout.startsWith(chunk, i)) continue;
      // "2006" must not be read as "2" followed by "006", nor "Jan" inside "January" (handled by order).
      if (literal) tokens.push({ kind: 'literal', text: literal });
      literal = '';
      tokens.push(token);
      i += chunk.length;
      continue outer;
    }
    literal += char;
    i++;
  }
  if (literal) tokens.push({ kind: 'literal', text: literal });
  if (!tokens.some((token) => token.kind !== 'literal')) {
    throw ingestError('invalid',
      'invalid_timestamp_format',
      `Invalid timestamp-format ${JSON.stringify(layout)}: it has no date or time element. Expected a Go layout of the reference time Mon Jan 2 15:04:05 MST 2006, such as "2006-01-02 15:04:05".`,
    );
  }
  if (cache.size < 64) cache.set(layout, tokens);
  return tokens;
}

export interface ParsedTime {
  /** Milliseconds since the epoch. */
  readonly ms: number;
  /** Nanoseconds within that millisecond, 0 to 999,999. */
  readonly subMsNs: number;
}

/** Parses `value` by `layout`; undefined when it does not match. Missing parts default as in Go (year 0 → 1970 here, day 1). */
export function parseWithLayout(value: string, layout: GoLayout): ParsedTime | undefined {
  let pos = 0;
  let year = 1970;
  let month = 1;
  let day = 1;
  let yearDay = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let pm: boolean | undefined;
  let offsetSeconds = 0;

  const digits = (min: number, max: number): number | undefined => {
    let end = pos;
    while (end < value.length && end - pos < max && value.charCodeAt(end) >= 48 && value.charCodeAt(end) <= 57) end++;
    if (end - pos < min) return undefined;
    const number = Number(value.slice(pos, end));
    pos = end;
    return number;
  };
  const name = (names: readonly string[], short: boolean): number | undefined => {
    const rest = value.slice(pos).toLowerCase();
    for (const [index, full] of names.entries()) {
      const candidate = short ? full.slice(0, 3) : full;
      if (rest.startsWith(candidate)) {
        pos += candidate.length;
        return index;
      }
    }
    return undefined;
  };
  const fraction = (): boolean => {
    const start = pos;
    while (pos < value.length && value.charCodeAt(pos) >= 48 && value.charCodeAt(pos) <= 57) pos++;
    if (pos === start) return false;
    nanos = Number(value.slice(start, Math.min(pos, start + 9)).padEnd(9, '0'));
    return true;
  };

  for (const [index, token] of layout.entries()) {
    let ok: number | boolean | undefined = true;
    switch (token.kind) {
      case 'literal':
        ok = value.startsWith(token.text, pos);
        pos += token.text.length;
        break;
      case 'year4':
        ok = year = digits(4, 4) ?? NaN;
        break;
      case 'year2': {
        const short = digits(2, 2);
        ok = short !== undefined;
        if (short !== undefined) year = short >= 69 ? 1900 + short : 2000 + short;
        break;
      }
      case 'month':
      case 'month2':
        ok = month = digits(token.kind === 'month2' ? 2 : 1, 2) ?? NaN;
        break;
      case 'monthShort':
      case 'monthLong':
        ok = month = (name(MONTHS, token.kind === 'monthShort') ?? NaN) + 1;
        break;
      case 'weekdayShort':
      case 'weekdayLong':
        ok = name(WEEKDAYS, token.kind === 'weekdayShort') !== undefined;
        break;
      case 'day':
      case 'day2':
      case 'dayPadded':
        if (token.kind === 'dayPadded' && value[pos] === ' ') pos++;
        ok = day = digits(token.kind === 'day2' ? 2 : 1, 2) ?? NaN;
        break;
      case 'yearDay':
        while (value[pos] === ' ') pos++;
        ok = yearDay = digits(1, 3) ?? NaN;
        break;
      case 'hour24':
        ok = !Number.isNaN((hour = digits(1, 2) ?? NaN));
        break;
      case 'hour12':
      case 'hour12Padded':
        ok = hour = digits(token.kind === 'hour12Padded' ? 2 : 1, 2) ?? NaN;
        break;
      case 'minute':
      case 'minute2':
        ok = !Number.isNaN((minute = digits(token.kind === 'minute2' ? 2 : 1, 2) ?? NaN));
        break;
      case 'second':
      case 'second2': {
        ok = !Number.isNaN((second = digits(token.kind === 'second2' ? 2 : 1, 2) ?? NaN));
        // As in Go, a fraction after the seconds is read even when the layout has none.
        const next = layout[index + 1];
        if (ok && next?.kind !== 'fraction' && (value[pos] === '.' || value[pos] === ',') && /[0-9]/.test(value[pos + 1] ?? '')) {
          pos++;
          fraction();
        }
        break;
      }
      case 'fraction':
        if (value[pos] === '.' || value[pos] === ',') {
          pos++;
          ok = fraction();
        } else {
          ok = token.optional;
        }
        break;
      case 'ampm': {
        const marker = value.slice(pos, pos + 2).toUpperCase();
        ok = marker === 'AM' || marker === 'PM';
        pm = marker === 'PM';
        pos += 2;
        break;
      }
      case 'zoneName': {
        const match = /^(?:[A-Za-z]{3,5}|[+-]\d{2,4})/.exec(value.slice(pos));
        ok = match !== null;
        // Abbreviations are ambiguous (CST is three zones); like Go, treat them as UTC.
        pos += match?.[0].length ?? 0;
        break;
      }
      case 'offset': {
        if (token.z && (value[pos] === 'Z' || value[pos] === 'z')) {
          pos++;
          offsetSeconds = 0;
          break;
        }
        const match = (token.colons ? /^([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?/ : /^([+-])(\d{2})(\d{2})?(\d{2})?/).exec(value.slice(pos));
        if (!match || (token.minutes && match[3] === undefined) || (token.seconds && match[4] === undefined)) {
          ok = false;
          break;
        }
        pos += match[0].length;
        offsetSeconds = (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 3600 + Number(match[3] ?? 0) * 60 + Number(match[4] ?? 0));
        break;
      }
    }
    if (ok === false || Number.isNaN(ok)) return undefined;
  }
  if (pos !== value.length) return undefined;
  if (pm !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (pm ? 12 : 0);
  }
  if (yearDay > 0) {
    const start = Date.UTC(year, 0, 1);
    const date = new Date(start + (yearDay - 1) * 86_400_000);
    if (date.getUTCFullYear() !== year) return undefined;
    month = date.getUTCMonth() + 1;
    day = date.getUTCDate();
  }
  return composeTime(year, month, day, hour, minute, second, nanos, offsetSeconds);
}

/** Validated calendar fields to epoch ms + sub-ms ns; undefined when any is out of range. */
export function composeTime(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  nanos: number,
  offsetSeconds: number,
): ParsedTime | undefined {
  if (month < 1 || month > 12 || day < 1 || hour > 24 || minute > 59 || second > 60) return undefined;
  if (hour === 24 && (minute !== 0 || second !== 0 || nanos !== 0)) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return undefined;
  // A leap second (":60") is read as the last instant of its minute.
  const seconds = Math.min(second, 59);
  const ms = date.getTime() + hour * 3_600_000 + minute * 60_000 + seconds * 1000 - offsetSeconds * 1000 + Math.floor(nanos / 1_000_000);
  return { ms, subMsNs: nanos % 1_000_000 };
}
