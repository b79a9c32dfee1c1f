import { toBool, toLong, toReal, toText } from '../sql/convert.js';
import { parseDatetimeSql, parseTimespanSql } from '../sql/time.js';
import { anyValue, oneOf } from './bind.js';
import type { FunctionDef } from './types.js';

/** Conversion functions (scalar-functions/conversion-functions). */
export const CONVERSION_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'tostring',
    summary: 'The value as a string; null becomes the empty string.',
    params: [anyValue('value')],
    returns: 'string',
    sql: (c) => `coalesce(${toText(c.arg(0), c.type(0))}, '')`,
    examples: [
      { apl: 'tostring(123)', result: '123', type: 'string' },
      { apl: 'tostring(int(null))', result: '' },
      { apl: 'tostring(is_tls)', result: 'true' },
      { apl: 'tostring(datetime(2024-01-02T03:04:05.5Z))', result: '2024-01-02T03:04:05.5Z' },
      { apl: 'tostring(90m)', result: '01:30:00' },
      { apl: 'tostring(dynamic({"a": [1, 2]}))', result: '{"a":[1,2]}' },
    ],
  },
  {
    name: 'toint',
    aliases: ['tolong'],
    summary: 'The value as a 64-bit integer: reals truncate toward zero, text must be an integer exactly; otherwise null.',
    params: [anyValue('value')],
    returns: 'long',
    sql: (c) => toLong(c.arg(0), c.type(0)),
    examples: [
      { apl: 'toint("123")', result: 123, type: 'integer' },
      { apl: 'toint(2.9)', result: 2 },
      { apl: 'toint(-2.9)', result: -2 },
      { apl: 'toint("12a")', result: null },
      { apl: 'toint(" 12")', result: null },
      { apl: 'tolong(true)', result: 1 },
    ],
  },
  {
    name: 'todouble',
    aliases: ['toreal'],
    summary: 'The value as a real number, or null when it is not one.',
    params: [anyValue('value')],
    returns: 'real',
    sql: (c) => toReal(c.arg(0), c.type(0)),
    examples: [
      { apl: 'todouble("2.5")', result: 2.5, type: 'float' },
      { apl: 'todouble(3)', result: 3 },
      { apl: 'toreal("abc")', result: null },
      { apl: 'todouble(dynamic(1.25))', result: 1.25 },
    ],
  },
  {
    name: 'tobool',
    aliases: ['toboolean'],
    summary: 'The value as a bool: numbers are true unless 0, text "true" or "false" in any case; otherwise null.',
    params: [anyValue('value')],
    returns: 'bool',
    sql: (c) => toBool(c.arg(0), c.type(0)),
    examples: [
      { apl: 'tobool("TRUE")', result: true, type: 'boolean' },
      { apl: 'tobool("false")', result: false },
      { apl: 'tobool(0)', result: false },
      { apl: 'tobool(2.5)', result: true },
      { apl: 'toboolean("yes")', result: null },
    ],
  },
  {
    name: 'todatetime',
    summary: 'Text in ISO 8601 / RFC 3339 form (any offset) as a datetime, or null.',
    params: [oneOf('value', ['string', 'datetime', 'dynamic'])],
    returns: 'datetime',
    sql: (c) => (c.type(0) === 'datetime' ? c.arg(0) : parseDatetimeSql(c.type(0) === 'dynamic' ? toText(c.arg(0), 'dynamic') : c.arg(0))),
    examples: [
      { apl: 'todatetime("2024-05-01T10:00:00+02:00")', result: '2024-05-01T08:00:00Z', type: 'datetime' },
      { apl: 'todatetime("2024-05-01")', result: '2024-05-01T00:00:00Z' },
      { apl: 'todatetime("2024-05-01 10:11:12.123456789Z")', result: '2024-05-01T10:11:12.123456789Z' },
      { apl: 'todatetime("not a date")', result: null },
    ],
  },
  {
    name: 'totimespan',
    summary: 'Text such as "1.5h", "100ms" or "[d.]hh:mm:ss[.f]" as a timespan, or null.',
    params: [oneOf('value', ['string', 'timespan', 'dynamic'])],
    returns: 'timespan',
    sql: (c) => (c.type(0) === 'timespan' ? c.arg(0) : parseTimespanSql(c.type(0) === 'dynamic' ? toText(c.arg(0), 'dynamic') : c.arg(0))),
    examples: [
      { apl: 'totimespan("1.5h")', result: '01:30:00', type: 'timespan' },
      { apl: 'totimespan("1.02:03:04.5")', result: '1.02:03:04.5' },
      { apl: 'totimespan("100ms")', result: '00:00:00.1' },
      { apl: 'totimespan("soon")', result: null },
    ],
  },
];
