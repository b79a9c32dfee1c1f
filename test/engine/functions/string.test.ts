import { describe, expect, it } from 'vitest';
import { useDuckDbReference } from '../helpers/duckdb-reference.js';
import { EXAMPLE_DATASETS, evaluate, runQuery, useExampleStore } from '../helpers/examples.js';
import { ingestedRows, tableRows } from '../helpers/reference.js';

/**
 * String functions beyond their registry examples: every row of the example data against an
 * independent reference (plain JavaScript, or SQL written by hand for DuckDB), nulls, dynamic
 * arguments, and each place where APL's reference differs from Kusto's.
 */

const store = useExampleStore();
const duckdb = useDuckDbReference();
const ROWS = ingestedRows(EXAMPLE_DATASETS.get('sample-http-logs') ?? []);

/** The values of `expression` for every row, oldest first (the fixture's order). */
async function perRow(expression: string): Promise<unknown[]> {
  const table = (await runQuery(store, `['sample-http-logs'] | sort by _time asc | project v = ${expression}`)).tables[0];
  return tableRows(table as never).map((row) => row.v);
}

const value = async (apl: string): Promise<unknown> => (await evaluate(store, apl)).value;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

describe('against plain JavaScript, row by row', () => {
  it.each([
    ['strlen(uri)', (r: Record<string, unknown>) => [...text(r.uri)].length],
    ['string_size(["geo.city"])', (r: Record<string, unknown>) => Buffer.byteLength(text(r['geo.city']))],
    ['toupper(user_agent)', (r: Record<string, unknown>) => text(r.user_agent).toUpperCase()],
    ['reverse(id)', (r: Record<string, unknown>) => [...text(r.id)].reverse().join('')],
    ['base64_encode_tostring(uri)', (r: Record<string, unknown>) => Buffer.from(text(r.uri)).toString('base64')],
    ['base64_decode_tostring(base64_encode_tostring(["geo.city"]))', (r: Record<string, unknown>) => r['geo.city']],
    ['split(uri, "/")', (r: Record<string, unknown>) => text(r.uri).split('/')],
    ['countof("/", uri)', (r: Record<string, unknown>) => text(r.uri).split('/').length - 1],
    ['indexof(user_agent, "(")', (r: Record<string, unknown>) => text(r.user_agent).indexOf('(')],
    ['trim_space(message)', (r: Record<string, unknown>) => (typeof r.message === 'string' ? r.message.trim() : null)],
    ['replace_string("/", "|", uri)', (r: Record<string, unknown>) => text(r.uri).replaceAll('/', '|')],
    ['unicode_codepoints_from_string(["geo.city"])', (r: Record<string, unknown>) => [...text(r['geo.city'])].map((ch) => ch.codePointAt(0))],
    ['url_decode(url_encode(user_agent))', (r: Record<string, unknown>) => r.user_agent],
    ['parse_urlquery(uri)', (r: Record<string, unknown>) => Object.fromEntries(new URLSearchParams(text(r.uri).includes('?') ? text(r.uri).split('?')[1] : text(r.uri)))],
    ['strcat_delim("|", method, resp_body_size_bytes, is_tls)', (r: Record<string, unknown>) => `${text(r.method)}|${String(r.resp_body_size_bytes)}|${String(r.is_tls)}`],
  ])('%s', async (expression, reference) => {
    expect(await perRow(expression)).toEqual(ROWS.map(reference));
  });
});

describe('against SQL written by hand for DuckDB, row by row', () => {
  it.each([
    ['extract("/api/(v[0-9])/", 1, uri)', `CASE WHEN regexp_matches(uri, '/api/(v[0-9])/') THEN regexp_extract(uri, '/api/(v[0-9])/', 1) END`],
    ['replace_regex("[0-9]+", "#", uri)', `regexp_replace(uri, '[0-9]+', '#', 'g')`],
    ['trim("/", uri)', `trim(uri, '/')`],
    ['url_encode(uri)', 'url_encode(uri)'],
    ['isascii(["geo.city"])', `NOT regexp_matches("geo.city", '[^\\x00-\\x7F]')`],
    ['format_bytes(resp_body_size_bytes, 2)', `CASE WHEN resp_body_size_bytes >= 1024 THEN printf('%.2f KB', resp_body_size_bytes / 1024) ELSE printf('%.2f Bytes', resp_body_size_bytes::DOUBLE) END`],
  ])('%s', async (expression, sql) => {
    const expected = await duckdb.rows(`SELECT ${sql} AS v FROM "sample-http-logs" ORDER BY _time`);
    expect(await perRow(expression)).toEqual(expected.map((row) => row.v));
  });
});

describe('nulls', () => {
  it.each([
    'strlen', 'tolower', 'toupper', 'reverse', 'trim_space', 'totitle', 'url_encode', 'url_decode', 'base64_encode_tostring', 'base64_decode_tostring',
    'quote', 'regex_quote', 'isascii', 'string_size', 'strip_ansi_escapes', 'parse_json', 'parse_url', 'parse_urlquery', 'parse_path', 'base64_decode_toarray',
  ])('%s of a null string is null', async (name) => {
    expect(await value(`${name}(string(null))`)).toBeNull();
  });

  it.each([
    ['replace_string("a", "b", string(null))', null],
    ['trim("x", string(null))', null],
    ['countof("a", string(null))', null],
    ['indexof(string(null), "a")', null],
    ['strcmp(string(null), "a")', null],
    ['strcat("a", string(null))', 'a'],
    ['isempty(string(null))', true],
    ['parse_bytes(string(null))', null],
    ['format_bytes(long(null))', null],
  ])('%s is %j', async (apl, expected) => {
    expect(await value(apl)).toEqual(expected);
  });
});

describe('dynamic arguments are taken as their text', () => {
  it.each([
    ['strlen(dynamic("abc"))', 3],
    ['toupper(parse_json(\'{"a": "x"}\').a)', 'X'],
    ['strlen(parse_json("[1, 2]"))', 5],
    ['replace_string("1", "one", parse_json("[1, 2]"))', '[one,2]'],
  ])('%s', async (apl, expected) => {
    expect(await value(apl)).toEqual(expected);
  });
});

describe('where APL differs from Kusto, APL wins', () => {
  it('replace_string takes (lookup, rewrite, text)', async () => {
    expect(await value('replace_string("cat", "dog", "a cat")')).toBe('a dog');
  });

  it('trim, trim_start and trim_end take a set of characters, not a regular expression', async () => {
    expect(await value('trim(".*", "..*a.*")')).toBe('a');
    expect(await value('trim_start("ab", "babax")')).toBe('x');
    expect(await value('trim_end("[]", "x[]]")')).toBe('x');
  });

  it('countof takes (search, text) and counts overlapping occurrences; countof_regex does not overlap', async () => {
    expect(await value('countof("aa", "aaaa")')).toBe(3);
    expect(await value('countof_regex("aa", "aaaa")')).toBe(2);
  });

  it('rewrites in replace_regex refer to groups as $1, not \\1', async () => {
    expect(await value('replace_regex("(a)(b)", "$2$1", "abab")')).toBe('baba');
    expect(await value('replace_regex("(a)", @"\\1", "a")')).toBe('\\1');
  });

  it('parse_url names its parts in lower case and gives the query as a bag of parameters', async () => {
    expect(await value('parse_url("https://h.io:8443/p?a=1").query')).toEqual({ a: '1' });
    expect(await value('tostring(parse_url("https://h.io:8443/p").port)')).toBe('8443');
  });

  it('parse_urlquery returns the parameters themselves, not under "Query Parameters"', async () => {
    expect(await value('parse_urlquery("a=1&b=2")')).toEqual({ a: '1', b: '2' });
  });

  it('coalesce passes over empty strings', async () => {
    expect(await value('coalesce("", "b")')).toBe('b');
  });
});

describe('result types', () => {
  it.each([
    ['split("a,b", ",")', 'array'],
    ['extract_all("(a)", "aa")', 'array'],
    ['parse_csv("a,b")', 'array'],
    ['parse_url("http://x")', 'object'],
    ['parse_json("{}")', 'object'],
    ['indexof("a", "a")', 'integer'],
    ['strcmp("a", "b")', 'integer'],
    ['isascii("a")', 'boolean'],
    ['format_bytes(1)', 'string'],
  ])('%s reports %s', async (apl, type) => {
    expect((await evaluate(store, apl)).type).toBe(type);
  });
});

describe('errors are found before any row is read', () => {
  it.each([
    ['replace_strng("a", "b", "c")', "unknown function 'replace_strng'; did you mean 'replace_string'?"],
    ['trim_strat("a", "b")', "unknown function 'trim_strat'; did you mean 'trim_start'?"],
    ['countof("a")', 'countof() expects 2 arguments, got 1'],
    ['indexof("a", "b", "c")', 'indexof() expects a long as argument 3, got string'],
    ['strrep("a", 1.5)', 'strrep() expects a long as argument 2, got real'],
    ['base64_encode_fromarray("x")', 'base64_encode_fromarray() expects a dynamic as argument 1, got string'],
  ])('%s', async (apl, message) => {
    await expect(evaluate(store, apl)).rejects.toThrow(message);
  });

  it('points at the argument that is wrong', async () => {
    await expect(runQuery(store, "['sample-http-logs'] | extend x = indexof(uri, 'a', 'b')")).rejects.toThrow(/^line 1, column 53: indexof\(\) expects a long as argument 3/);
  });
});
