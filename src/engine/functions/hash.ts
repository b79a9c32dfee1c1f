import { toText } from '../sql/convert.js';
import { reuse } from '../sql/reuse.js';
import { SHA512_UDF } from '../sql/udfs.js';
import { ANY, integer, oneOf } from './bind.js';
import type { FunctionDef, SqlCall } from './types.js';

/** The text a hash function digests: the value as tostring() writes it (null as the empty string). */
const digestInput = (c: SqlCall): string => `coalesce(${toText(c.arg(0), c.type(0))}, '')`;

/** A hash of the value's text with a DuckDB digest function of the same name. */
function digest(name: string, duckdb: 'md5' | 'sha1' | 'sha256', bits: number, examples: FunctionDef['examples']): FunctionDef {
  return {
    name,
    summary: `The ${duckdb === 'md5' ? 'MD5' : duckdb === 'sha1' ? 'SHA-1' : 'SHA-256'} digest of the value’s text (as tostring() writes it), as ${bits / 4} lower-case hexadecimal digits.`,
    params: [oneOf('source', ANY)],
    returns: 'string',
    sql: (c) => `${duckdb}(${digestInput(c)})`,
    examples,
  };
}

/** 2^64, to read DuckDB's unsigned 64-bit hash as a signed long. */
const TWO_TO_64 = '18446744073709551616';
const LONG_MAX = '9223372036854775807';

/** Hash functions (scalar-functions/hash-functions). */
export const HASH_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'hash',
    summary:
      'A signed 64-bit hash of the value’s text, and of `salt` when given; null for null. Stable within this version of the service, not across versions (use hash_sha256() for lasting keys).',
    params: [oneOf('source', ['bool', 'long', 'string', 'datetime', 'timespan', 'dynamic'], { hint: '; the reference allows any scalar but a real' }), integer('salt', { optional: true })],
    returns: 'long',
    sql: (c) => {
      const source = toText(c.arg(0), c.type(0));
      const hashed = c.call.args.length > 1 ? `hash(${source}, ${c.arg(1)})` : `hash(${source})`;
      const signed = reuse(hashed, 'hv', (h) => `CAST(CAST(${h} AS HUGEINT) - CASE WHEN ${h} > ${LONG_MAX} THEN ${TWO_TO_64} ELSE 0 END AS BIGINT)`);
      return `CASE WHEN ${c.arg(0)} IS NOT NULL THEN ${signed} END`;
    },
    examples: [
      { apl: 'hash("World") == hash("World")', result: true, type: 'boolean' },
      { apl: 'hash("World") != hash("World", 1)', result: true },
      { apl: 'hash(200) == hash("200")', result: true },
      { apl: 'hash(string(null))', result: null },
      { apl: 'isnotnull(hash(id))', result: true },
      { query: "['sample-http-logs'] | extend anon_id = hash(id) | summarize requests = count() by anon_id | count", rows: [{ count: 6 }] },
      { apl: 'hash(2.5)', error: 'hash() expects one of bool, long, string, datetime, timespan, dynamic as argument 1, got real; the reference allows any scalar but a real' },
    ],
  },
  digest('hash_md5', 'md5', 128, [
    { apl: 'hash_md5("World")', result: 'f5a7924e621e84c9280a9a27e1bcb7f6', type: 'string' },
    { apl: 'hash_md5(id)', result: '26c7a7893510b3715c26b8ab9f51cb58' },
    { apl: 'hash_md5(42)', result: 'a1d0c6e83f027327d8461063f4ac58a6' },
    { apl: 'hash_md5(string(null))', result: 'd41d8cd98f00b204e9800998ecf8427e' },
    { query: "['sample-http-logs'] | extend hashed_id = hash_md5(id) | summarize request_count = count() by hashed_id | top 1 by request_count | project n = strlen(hashed_id)", rows: [{ n: 32 }] },
  ]),
  digest('hash_sha1', 'sha1', 160, [
    { apl: 'hash_sha1("World")', result: '70c07ec18ef89c5309bbb0937f3a6342411e1fdd', type: 'string' },
    { apl: 'hash_sha1(true)', result: '5ffe533b830f08a0326348a9160afafc8ada44db' },
  ]),
  digest('hash_sha256', 'sha256', 256, [
    { apl: 'hash_sha256("World")', result: '78ae647dc5544d227130a0682a51e30bc7777fbb6d8a8f17007463a3ecd1d524', type: 'string' },
    { apl: 'hash_sha256(dynamic({"a": 1}))', result: '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862' },
  ]),
  {
    name: 'hash_sha512',
    summary: 'The SHA-512 digest of the value’s text (as tostring() writes it), as 128 lower-case hexadecimal digits.',
    params: [oneOf('source', ANY)],
    returns: 'string',
    sql: (c) => `${SHA512_UDF}(${digestInput(c)})`,
    examples: [
      { apl: 'hash_sha512("World")', result: '8ea77393a42ab8fa92500fb077a9509cc32bc95e72712efa116edaf2edfae34fbb682efdd6c5dd13c117e08bd4aaef71291d8aace2f890273081d0677c16df0f', type: 'string' },
      { apl: 'hash_sha512(id)', result: '5f7cf5f0972adc714389cc868973c0fa8c61f99683301719a16587ca8e8c637d46504b72ceb06611454eed3854c32411c8f057225681148fc4f8fbd01fa7fbe2' },
      { apl: 'hash_sha512(string(null))', result: 'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e' },
      { query: "['sample-http-logs'] | extend hashed_id = hash_sha512(id) | summarize request_count = count() by hashed_id | count", rows: [{ count: 6 }] },
    ],
  },
];
