import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, runQuery, useExampleStore } from '../helpers/examples.js';
import { tableRows } from '../helpers/reference.js';

/**
 * Conversion and type functions beyond their registry examples: generated values against
 * independent references in JavaScript (Go's duration format, the Luhn checksum), the implicit
 * conversions that reuse them, and each place where APL's reference differs from Kusto's.
 */

const store = useExampleStore();
const value = async (apl: string): Promise<unknown> => (await evaluate(store, apl)).value;

/** Many expressions' text in one query: joined with a separator no value contains. */
async function texts(expressions: readonly string[]): Promise<string[]> {
  const joined = await value(`strcat_delim('|', ${expressions.join(', ')})`);
  return String(joined).split('|');
}

/** Go's time.Duration.String(), written from its documentation. */
function goDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const abs = ns < 0n ? -ns : ns;
  const decimal = (whole: bigint, unit: bigint, digits: number): string => {
    const fraction = whole % unit;
    return `${whole / unit}${fraction === 0n ? '' : `.${fraction.toString().padStart(digits, '0').replace(/0+$/, '')}`}`;
  };
  if (abs < 1000n) return `${sign}${abs}ns`;
  if (abs < 1_000_000n) return `${sign}${decimal(abs, 1000n, 3)}µs`;
  if (abs < 1_000_000_000n) return `${sign}${decimal(abs, 1_000_000n, 6)}ms`;
  const hours = abs / 3_600_000_000_000n;
  const minutes = (abs / 60_000_000_000n) % 60n;
  const seconds = decimal(abs % 60_000_000_000n, 1_000_000_000n, 9);
  return `${sign}${hours > 0n ? `${hours}h` : ''}${hours > 0n || minutes > 0n ? `${minutes}m` : ''}${seconds}s`;
}

function luhn(digits: string): boolean {
  let sum = 0;
  [...digits].reverse().forEach((ch, i) => {
    const d = Number(ch);
    sum += i % 2 === 0 ? d : d * 2 > 9 ? d * 2 - 9 : d * 2;
  });
  return sum % 10 === 0;
}

describe('tostring of timespans is Go’s duration format', () => {
  it('matches Go’s rules for generated nanosecond counts', async () => {
    const spans = fc.sample(fc.oneof(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.bigInt({ min: -5000n, max: 5000n }), fc.constantFrom(0n, 1000n, 60_000_000_000n, 3_600_000_000_000n)), { numRuns: 60, seed: 42 });
    const got = await texts(spans.map((ns) => `tostring(totimespan(${ns}))`));
    expect(got).toEqual(spans.map(goDuration));
  });

  it('reads back what it writes', async () => {
    const spans = fc.sample(fc.bigInt({ min: -(10n ** 14n), max: 10n ** 14n }), { numRuns: 60, seed: 7 });
    const got = await texts(spans.map((ns) => `tostring(toint(totimespan(tostring(totimespan(${ns})))))`));
    expect(got).toEqual(spans.map(String));
  });
});

describe('type tests against the Luhn checksum', () => {
  it('iscc and isimei agree with JavaScript on generated digit strings', async () => {
    const numbers = fc.sample(fc.stringMatching(/^[0-9]{15,16}$/), { numRuns: 30, seed: 3 });
    const got = await texts(numbers.flatMap((n) => [`tostring(iscc('${n}'))`, `tostring(isimei('${n}'))`]));
    expect(got).toEqual(numbers.flatMap((n) => [String(luhn(n)), String(n.length === 15 && luhn(n))]));
  });
});

describe('implicit conversions follow the conversion functions', () => {
  it('compares a dynamic value with a number, a bool and a datetime', async () => {
    expect(await value('parse_json(\'{"n": 5}\').n > 4')).toBe(true);
    expect(await value('parse_json(\'{"b": true}\').b == true')).toBe(true);
    expect(await value('parse_json(\'{"t": "2024-05-01"}\').t == datetime(2024-05-01)')).toBe(true);
  });

  it('joins reals and timespans into text as tostring() writes them', async () => {
    expect(await value('strcat(req_duration_ms, "/", 100.0, "/", 90s)')).toBe('12.5/100/1m30s');
  });
});

describe('where APL differs from Kusto, APL wins', () => {
  it('tobool reads only Go’s words, in their cases', async () => {
    expect(await texts(['tostring(tobool("True"))', 'tostring(tobool("t"))', 'tostring(tobool("0"))', 'tostring(isnull(tobool("tRUE")))'])).toEqual(['true', 'true', 'false', 'true']);
  });

  it('todynamic of text that is not JSON is null, where parse_json keeps the text', async () => {
    expect(await value('todynamic("oops")')).toBeNull();
    expect(await value('parse_json("oops")')).toBe('oops');
  });

  it('todatetime and totimespan read numbers as nanoseconds', async () => {
    expect(await value('todatetime(1714564800000000000)')).toBe('2024-05-01T12:00:00Z');
    expect(await value('totimespan(1500000000)')).toBe('00:00:01.5');
  });

  it('totimespan reads compound Go durations', async () => {
    expect(await value("totimespan('1h15m30.5s') == 1h + 15m + 30.5s")).toBe(true);
  });

  it('dynamic_to_json sorts keys', async () => {
    expect(await value('dynamic_to_json(dynamic({"b": 2, "a": 1}))')).toBe('{"a":1,"b":2}');
  });
});

describe('ensure_field', () => {
  it('lets one query run over datasets with and without a field', async () => {
    const table = (await runQuery(store, "['sample-http-logs'] | extend c = ensure_field('content_type', typeof(string)), r = ensure_field('referrer', typeof(long)) | summarize dcount(c), countif(isnull(r))")).tables[0];
    expect(tableRows(table as never)).toEqual([{ dcount_c: 4, countif_: 6 }]);
  });

  it('needs a constant field name and a type', async () => {
    await expect(evaluate(store, 'ensure_field(method, typeof(string))')).rejects.toThrow('ensure_field() needs a constant string field name as argument 1');
    await expect(evaluate(store, "ensure_field('x', typeof(strng))")).rejects.toThrow('ensure_field() expects a type as argument 2');
  });
});

describe('nulls', () => {
  it.each([
    ['tostring(real(null))', ''],
    ['toint(string(null))', null],
    ['todouble(string(null))', null],
    ['tobool(string(null))', null],
    ['todatetime(string(null))', null],
    ['totimespan(string(null))', null],
    ['todynamic(string(null))', null],
    ['tohex(long(null))', null],
    ['toarray(string(null))', []],
    ['iscc(string(null))', false],
    ['isstring(dynamic(null))', false],
  ])('%s is %j', async (apl, expected) => {
    expect(await value(apl)).toEqual(expected);
  });
});
