import { anyValue, text } from './bind.js';
import type { FunctionDef, SqlCall } from './types.js';

/**
 * Whether digits (only digits: DuckDB evaluates both sides of an AND, so callers guard with CASE) pass the Luhn checksum: from the right, every second digit doubled (less 9 past
 * 9), the sum a multiple of 10.
 */
function luhn(digits: string): string {
  const digit = 'CAST(ch AS INTEGER)';
  return `(list_sum(list_transform(string_split(reverse(${digits}), ''), (ch, i) -> CASE WHEN i % 2 = 1 THEN ${digit} WHEN ${digit} >= 5 THEN 2 * ${digit} - 9 ELSE 2 * ${digit} END)) % 10 = 0)`;
}

/** A type test: `static` for a value of a plan type that is not dynamic, `json` for the json_type of a dynamic one. */
function typeTest(c: SqlCall, staticTypes: readonly string[], jsonTypes: readonly string[]): string {
  const type = c.type(0);
  if (type === 'dynamic') return `coalesce(json_type(${c.arg(0)}) IN (${jsonTypes.map((t) => `'${t}'`).join(', ')}), false)`;
  return staticTypes.includes(type) ? `(${c.arg(0)} IS NOT NULL)` : 'false';
}

/** Type functions (scalar-functions/type-functions). */
export const TYPE_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'iscc',
    summary: 'Whether a string is a credit card number: 12 to 19 digits (spaces and dashes between them allowed) that pass the Luhn checksum.',
    params: [text('value')],
    returns: 'bool',
    sql: (c) => {
      const digits = `regexp_replace(${c.arg(0)}, '[ -]', '', 'g')`;
      return `CASE WHEN regexp_full_match(${digits}, '[0-9]{12,19}') THEN ${luhn(digits)} ELSE false END`;
    },
    examples: [
      { apl: "iscc('4111111111111111')", result: true, type: 'boolean' },
      { apl: "iscc('4111 1111 1111 1111')", result: true },
      { apl: "iscc('4111111111111112')", result: false },
      { apl: 'iscc(uri)', result: false },
    ],
  },
  {
    name: 'isimei',
    summary: 'Whether a string is an IMEI: 15 digits that pass the Luhn checksum.',
    params: [text('value')],
    returns: 'bool',
    sql: (c) => `CASE WHEN regexp_full_match(${c.arg(0)}, '[0-9]{15}') THEN ${luhn(c.arg(0))} ELSE false END`,
    examples: [
      { apl: "isimei('356938035643809')", result: true, type: 'boolean' },
      { apl: "isimei('356938035643808')", result: false },
      { apl: "isimei('35693803564380')", result: false },
    ],
  },
  {
    name: 'ismap',
    summary: 'Whether the value is a dynamic property bag (a map of keys to values).',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => typeTest(c, [], ['OBJECT']),
    examples: [
      { apl: 'ismap(dynamic({"a": 1, "b": 2}))', result: true, type: 'boolean' },
      { apl: 'ismap(dynamic([1, 2]))', result: false },
      { apl: 'ismap("{}")', result: false },
    ],
  },
  {
    name: 'isreal',
    summary: 'Whether the value is a real number (a dynamic value holding one included); false for integers, strings and nulls.',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => typeTest(c, ['real'], ['DOUBLE']),
    examples: [
      { apl: 'isreal(123.11)', result: true, type: 'boolean' },
      { apl: 'isreal(req_duration_ms)', result: true },
      { apl: 'isreal(123)', result: false },
      { apl: 'isreal("1.5")', result: false },
      { apl: 'isreal(parse_json("1.5"))', result: true },
    ],
  },
  {
    name: 'isstring',
    summary: 'Whether the value is a string (a dynamic value holding one included); false for nulls.',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => typeTest(c, ['string'], ['VARCHAR']),
    examples: [
      { apl: 'isstring(status)', result: true, type: 'boolean' },
      { apl: 'isstring(resp_body_size_bytes)', result: false },
      { apl: 'isstring(parse_json(\'"x"\'))', result: true },
      { apl: 'isstring(string(null))', result: false },
    ],
  },
  {
    name: 'isutf8',
    summary: 'Whether a string is valid UTF-8: every stored string is (ingest replaces invalid bytes), so true for any string that is not null.',
    params: [text('value')],
    returns: 'bool',
    sql: (c) => `(${c.arg(0)} IS NOT NULL)`,
    examples: [
      { apl: "isutf8('São Paulo')", result: true, type: 'boolean' },
      { apl: 'isutf8(string(null))', result: false },
    ],
  },
];
