import { argNode, fail } from '../check/context.js';
import { toText } from '../sql/convert.js';
import { quoteString, sqlInteger } from '../sql/quote.js';
import { bindOnce, reuse } from '../sql/reuse.js';
import { integer, oneOf, text } from './bind.js';
import type { FunctionDef, Param, SqlCall } from './types.js';

/**
 * IP addresses are text. An IPv4 address reads as a struct `{v, p}`: its 32-bit value as a
 * BIGINT and its prefix length (32 without `/n`); an IPv6 address as `{h, l, p}`: its high and
 * low 64 bits as UBIGINTs and its prefix length (128 without `/n`; an IPv4 address is its
 * IPv4-mapped IPv6 address). Text that is not an address reads as null. The parsing is string
 * functions only (no lambdas over parts), and a list of ranges given as literals is read here
 * and compared as constants: both measured several times faster per row.
 */

const IPV4 = '^\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}(?:/\\d{1,2})?$';
const IPV6_GROUPS = '^[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){7}$';

/** `body` of a value it refers to several times: a column, a parameter or a lambda's variable as it is, anything else bound once. */
function once(sql: string, name: string, body: (ref: string) => string): string {
  return /^[a-z_][a-z0-9_]*$/.test(sql) ? body(sql) : reuse(sql, name, body);
}

/** The `{v, p}` of IPv4 text (`a.b.c.d` or `a.b.c.d/n`), or null. */
function ipv4(textSql: string): string {
  return once(textSql, 'v4t', (t) => {
    // The parts split once; UTINYINT's range is an octet's, so the casts also check 0…255.
    const part = (n: number): string => `TRY_CAST(v4o[${n}] AS UTINYINT)`;
    const prefix = `coalesce(${part(5)}, 32)`;
    const valid = `${[1, 2, 3, 4].map((n) => `${part(n)} IS NOT NULL`).join(' AND ')} AND ${prefix} <= 32`;
    const struct = `CASE WHEN ${valid} THEN {'v': CAST(${part(1)} AS BIGINT) * 16777216 + CAST(${part(2)} AS BIGINT) * 65536 + CAST(${part(3)} AS BIGINT) * 256 + ${part(4)}, 'p': CAST(${prefix} AS INTEGER)} END`;
    return `CASE WHEN regexp_full_match(${t}, ${quoteString(IPV4)}) THEN ${bindOnce(`string_split(replace(${t}, '/', '.'), '.')`, 'v4o', struct)} END`;
  });
}

/** A 32-bit value with all but its first `prefix` bits cleared. */
const mask4 = (value: string, prefix: string): string => `((${value} >> (32 - ${prefix})) << (32 - ${prefix}))`;

/** A 32-bit value as dotted text. */
function dotted(value: string): string {
  return reuse(value, 'dv', (v) => `concat_ws('.', ${v} >> 24, (${v} >> 16) & 255, (${v} >> 8) & 255, ${v} & 255)`);
}

/** Argument `index` as an IPv4 `{v, p}`: text (read here when it is a literal), or (where the function takes one) a number that is a 32-bit value. */
function ipv4Arg(c: SqlCall, index: number): string {
  if (c.type(index) === 'long') return reuse(c.arg(index), 'v4n', (n) => `CASE WHEN ${n} BETWEEN 0 AND 4294967295 THEN {'v': ${n}, 'p': 32} END`);
  const value = c.value(index);
  if (typeof value === 'string' && c.type(index) === 'string') {
    const range = parseIpv4(value);
    return range ? `{'v': CAST(${sqlInteger(range.value)} AS BIGINT), 'p': ${range.prefix}}` : `CAST(NULL AS STRUCT(v BIGINT, p INTEGER))`;
  }
  return ipv4(c.arg(index));
}

/** Argument `index` as an IPv6 `{h, l, p}`, read here when it is a literal. */
function ipv6Arg(c: SqlCall, index: number): string {
  const value = c.value(index);
  if (typeof value !== 'string') return ipv6(c.arg(index));
  const range = parseIpv6(value);
  if (!range) return 'CAST(NULL AS STRUCT(h UBIGINT, l UBIGINT, p INTEGER))';
  return `{'h': CAST(${sqlInteger(range.value >> 64n)} AS UBIGINT), 'l': CAST(${sqlInteger(range.value & 0xffffffffffffffffn)} AS UBIGINT), 'p': ${range.prefix}}`;
}

/** A prefix length argument, null outside 0…`max`. */
const prefixArg = (c: SqlCall, index: number, max: number): string => reuse(c.arg(index), 'pa', (p) => `CASE WHEN ${p} BETWEEN 0 AND ${max} THEN CAST(${p} AS INTEGER) END`);

/** The smallest of prefix lengths, null when any is (DuckDB's least() passes over nulls). */
function shortest(prefixes: readonly string[]): string {
  return `CASE WHEN ${prefixes.map((p) => `${p} IS NULL`).join(' OR ')} THEN NULL ELSE least(${prefixes.join(', ')}) END`;
}

/** -1, 0 or 1 as the values of `a` are below, equal to or above those of `b`, in order of significance; null where any is. */
function order(a: readonly string[], b: readonly string[]): string {
  const steps = a.map((x, i) => `WHEN ${x} < ${b[i] as string} THEN -1 WHEN ${x} > ${b[i] as string} THEN 1`);
  return `CASE ${steps.join(' ')} WHEN ${a.map((x, i) => `${x} = ${b[i] as string}`).join(' AND ')} THEN 0 END`;
}

/** `ipv4_compare` and the like: two addresses compared on the shortest of their prefixes and the optional argument. */
function compare4(c: SqlCall): string {
  const extra = c.call.args.length > 2 ? prefixArg(c, 2, 32) : undefined;
  return bindOnce(ipv4Arg(c, 0), 'c4a', bindOnce(ipv4Arg(c, 1), 'c4b', bindOnce(shortest(['c4a.p', 'c4b.p', ...(extra ? [extra] : [])]), 'c4p', order([mask4('c4a.v', 'c4p')], [mask4('c4b.v', 'c4p')]))));
}

/** Argument `index` and every one after it as a list of texts: strings, or the elements of dynamic arrays. */
function textList(c: SqlCall, from: number): string {
  const lists = c.call.args.slice(from).map((_, offset) => {
    const index = from + offset;
    if (c.type(index) !== 'dynamic') return `[${c.arg(index)}]`;
    return reuse(c.arg(index), 'tl', (json) => `CASE WHEN json_type(${json}) = 'ARRAY' THEN list_transform(CAST(${json} AS JSON[]), e -> ${toText('CAST(e AS VARCHAR)', 'dynamic')}) ELSE [${toText(json, 'dynamic')}] END`);
  });
  return lists.reduce((all, list) => `list_concat(${all}, ${list})`);
}

/** The texts of argument `index` and every one after it when all are literals (strings, or dynamic arrays of them); undefined otherwise. */
function literalTexts(c: SqlCall, from: number): string[] | undefined {
  const texts: string[] = [];
  for (let index = from; index < c.call.args.length; index++) {
    const value = c.value(index);
    if (typeof value !== 'string') return undefined;
    if (c.type(index) !== 'dynamic') {
      texts.push(value);
      continue;
    }
    const parsed: unknown = JSON.parse(value);
    for (const element of Array.isArray(parsed) ? parsed : [parsed]) if (element !== null) texts.push(typeof element === 'string' ? element : JSON.stringify(element));
  }
  return texts;
}

/** Whether IPv4 `{v, p}` `ip` lies in range `{v, p}` `range`. */
const inRange4 = (ip: string, range: string): string => `(${ip}.p >= ${range}.p AND ${mask4(`${ip}.v`, `${range}.p`)} = ${mask4(`${range}.v`, `${range}.p`)})`;

/** Whether IPv4 `{v, p}` `ip` lies in any of the ranges of arguments `from`… (a disjunction of constants when they are literals). */
function inAnyRange4(c: SqlCall, from: number, ip: string): string {
  const texts = literalTexts(c, from);
  if (!texts) return `coalesce(list_bool_or(list_transform(${textList(c, from)}, r -> ${bindOnce(ipv4('r'), 'rr', `rr IS NOT NULL AND ${inRange4(ip, 'rr')}`)})), false)`;
  const ranges = texts.map(parseIpv4).filter((range) => range !== undefined);
  if (ranges.length === 0) return 'false';
  return `(${ranges.map((range) => `(${ip}.p >= ${range.prefix} AND ${mask4(`${ip}.v`, String(range.prefix))} = ${sqlInteger(maskBits(range.value, range.prefix, 32))})`).join(' OR ')})`;
}

/** The IPv4 addresses in free text: runs of letters, digits and dots (a trailing dot dropped) that are addresses. */
function ipv4InText(source: string): string {
  return `list_filter(list_transform(regexp_extract_all(${source}, '[0-9A-Za-z.]+'), t -> rtrim(t, '.')), t -> ${ipv4('t')} IS NOT NULL)`;
}

/** Whether address text `token` starts with IPv4 prefix text `prefix` at an octet boundary. */
function startsWithPrefix(token: string, prefix: string): string {
  return `(CASE WHEN ends_with(${prefix}, '.') THEN starts_with(${token}, ${prefix}) ELSE ${token} = ${prefix} OR starts_with(${token}, ${prefix} || '.') END)`;
}

const IPV4_PREFIX = '^\\d{1,3}(?:\\.\\d{1,3}){0,3}\\.?$';

// ── IPv6 ─────────────────────────────────────────────────────────────────────────────────────

/** IPv6 address text (no prefix) with a dotted IPv4 tail written as two hex groups; null where the tail is not an address. */
function hexTail(address: string): string {
  return once(address, 'v6a', (a) => {
    const tail = `regexp_extract(${a}, '[^:]*$')`;
    const v4 = `(${ipv4(tail)}).v`;
    return `CASE WHEN contains(${a}, '.') THEN left(${a}, length(${a}) - length(${tail})) || printf('%x:%x', ${v4} >> 16, ${v4} & 65535) ELSE ${a} END`;
  });
}

/** Eight `:`-separated groups: `::` written out as the zero groups it stands for (null where that makes no address). */
function expanded(address: string): string {
  return once(address, 'v6b', (b) => {
    const padded = `CASE WHEN starts_with(${b}, '::') THEN '0' ELSE '' END || ${b} || CASE WHEN ends_with(${b}, '::') THEN '0' ELSE '' END`;
    return once(padded, 'v6c', (p) => {
      // With `::` counted as two, the colons are as many as the groups written.
      const groups = `(length(${p}) - length(replace(${p}, ':', '')))`;
      return `CASE WHEN NOT contains(${p}, '::') THEN ${p} WHEN ${groups} <= 7 THEN replace(${p}, '::', ':' || repeat('0:', 8 - ${groups})) END`;
    });
  });
}

/** The `{h, l, p}` of IPv6 text (any IPv4 address too, as its IPv4-mapped IPv6 address), or null. */
function ipv6(textSql: string): string {
  return once(textSql, 'v6t', (t) => {
    const prefix = `CASE WHEN contains(${t}, '/') THEN TRY_CAST(split_part(${t}, '/', 2) AS INTEGER) ELSE 128 END`;
    const mapped = bindOnce(ipv4(t), 'm4', `CASE WHEN m4 IS NOT NULL THEN {'h': CAST(0 AS UBIGINT), 'l': CAST(281470681743360 + m4.v AS UBIGINT), 'p': m4.p + 96} END`);
    const half = (first: number): string => `CAST('0x' || ${[0, 1, 2, 3].map((k) => `lpad(v6s[${first + k}], 4, '0')`).join(' || ')} AS UBIGINT)`;
    const full = once(expanded(hexTail(`split_part(${t}, '/', 1)`)), 'v6g', (g) =>
      `CASE WHEN regexp_full_match(${g}, ${quoteString(IPV6_GROUPS)}) AND ${prefix} BETWEEN 0 AND 128 THEN ${bindOnce(`string_split(${g}, ':')`, 'v6s', `{'h': ${half(1)}, 'l': ${half(5)}, 'p': ${prefix}}`)} END`,
    );
    return `CASE WHEN NOT contains(${t}, ':') THEN ${mapped} ELSE ${full} END`;
  });
}

/** 64 bits with all but their first `bits` (clamped to 0…64) cleared. */
function mask64(value: string, bits: string): string {
  return `CASE WHEN ${bits} <= 0 THEN CAST(0 AS UBIGINT) WHEN ${bits} >= 64 THEN ${value} ELSE (${value} >> (64 - ${bits})) << (64 - ${bits}) END`;
}

/** The high and low halves of `{h, l}` `ip` masked to `prefix` bits. */
const masked6 = (ip: string, prefix: string): [string, string] => [mask64(`${ip}.h`, prefix), mask64(`${ip}.l`, `(${prefix} - 64)`)];

function compare6(c: SqlCall): string {
  const extra = c.call.args.length > 2 ? prefixArg(c, 2, 128) : undefined;
  return bindOnce(ipv6Arg(c, 0), 'c6a', bindOnce(ipv6Arg(c, 1), 'c6b', bindOnce(shortest(['c6a.p', 'c6b.p', ...(extra ? [extra] : [])]), 'c6p', order(masked6('c6a', 'c6p'), masked6('c6b', 'c6p')))));
}

function inRange6(ip: string, range: string): string {
  const [ih, il] = masked6(ip, `${range}.p`);
  const [rh, rl] = masked6(range, `${range}.p`);
  return `(${ip}.p >= ${range}.p AND ${ih} = ${rh} AND ${il} = ${rl})`;
}

/** Whether IPv6 `{h, l, p}` `ip` lies in any of the ranges of arguments `from`… (constants when they are literals). */
function inAnyRange6(c: SqlCall, from: number, ip: string): string {
  const texts = literalTexts(c, from);
  if (!texts) return `coalesce(list_bool_or(list_transform(${textList(c, from)}, r -> ${bindOnce(ipv6('r'), 'rr', `rr IS NOT NULL AND ${inRange6(ip, 'rr')}`)})), false)`;
  const ranges = texts.map(parseIpv6).filter((range) => range !== undefined);
  if (ranges.length === 0) return 'false';
  const [ih, il] = [`${ip}.h`, `${ip}.l`];
  return `(${ranges
    .map((range) => {
      const bits = maskBits(range.value, range.prefix, 128);
      const hi = `CAST(${sqlInteger(bits >> 64n)} AS UBIGINT)`;
      const lo = `CAST(${sqlInteger(bits & 0xffffffffffffffffn)} AS UBIGINT)`;
      return `(${ip}.p >= ${range.prefix} AND ${mask64(ih, String(range.prefix))} = ${hi} AND ${mask64(il, String(range.prefix - 64))} = ${lo})`;
    })
    .join(' OR ')})`;
}

// ── Literal ranges, read here ────────────────────────────────────────────────────────────────

interface Range {
  readonly value: bigint;
  readonly prefix: number;
}

const maskBits = (value: bigint, prefix: number, width: number): bigint => (prefix === 0 ? 0n : (value >> BigInt(width - prefix)) << BigInt(width - prefix));

/** IPv4 text as `ipv4()` reads it in SQL. */
function parseIpv4(text: string): Range | undefined {
  if (!new RegExp(IPV4).test(text)) return undefined;
  const [address = '', prefixText] = text.split('/');
  const octets = address.split('.').map(Number);
  const prefix = prefixText === undefined ? 32 : Number(prefixText);
  if (octets.some((octet) => octet > 255) || prefix > 32) return undefined;
  return { value: octets.reduce((value, octet) => value * 256n + BigInt(octet), 0n), prefix };
}

/** IPv6 text (or IPv4, mapped) as `ipv6()` reads it in SQL. */
function parseIpv6(input: string): Range | undefined {
  const text = input;
  if (!text.includes(':')) {
    const v4 = parseIpv4(text);
    return v4 && { value: (0xffffn << 32n) | v4.value, prefix: v4.prefix + 96 };
  }
  const [rawAddress = '', prefixText] = text.split('/');
  const prefix = prefixText === undefined ? 128 : /^\d+$/.test(prefixText) ? Number(prefixText) : -1;
  if (prefix < 0 || prefix > 128) return undefined;
  let address = rawAddress;
  if (address.includes('.')) {
    const tail = address.slice(address.lastIndexOf(':') + 1);
    const v4 = parseIpv4(tail);
    if (!v4 || tail.includes('/')) return undefined;
    address = `${address.slice(0, address.length - tail.length)}${(v4.value >> 16n).toString(16)}:${(v4.value & 0xffffn).toString(16)}`;
  }
  const padded = `${address.startsWith('::') ? '0' : ''}${address}${address.endsWith('::') ? '0' : ''}`;
  const groups = padded.split(':').length - 1;
  if (padded.includes('::') && groups > 7) return undefined;
  const full = padded.includes('::') ? padded.replaceAll('::', `:${'0:'.repeat(8 - groups)}`) : padded;
  if (!new RegExp(IPV6_GROUPS).test(full)) return undefined;
  return { value: full.split(':').reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n), prefix };
}

// ── Parameters ───────────────────────────────────────────────────────────────────────────────

const address = (name: string): Param => text(name);
const prefix = (name: string, options: Pick<Param, 'optional'> = {}): Param => integer(name, options);
/** A list given as strings or as dynamic arrays of strings. */
const addressList = (name: string): Param => oneOf(name, ['string', 'dynamic']);
const LIST_ARGS = 64;

/** IP-address functions (scalar-functions/ip-functions). */
export const IP_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'format_ipv4',
    summary: 'An IPv4 address (text, or a number that is its 32-bit value) as dotted text, masked to `prefix` bits; the empty string where it is not one.',
    params: [oneOf('ip', ['string', 'dynamic', 'long']), prefix('prefix', { optional: true })],
    returns: 'string',
    sql: (c) => {
      const bits = c.call.args.length > 1 ? shortest(['a.p', prefixArg(c, 1, 32)]) : 'a.p';
      const ip = c.type(0) === 'dynamic' ? ipv4(toText(c.arg(0), 'dynamic')) : ipv4Arg(c, 0);
      return `coalesce(${bindOnce(ip, 'a', dotted(mask4('a.v', bits)))}, '')`;
    },
    examples: [
      { apl: 'format_ipv4(3232235776)', result: '192.168.1.0', type: 'string' },
      { apl: "format_ipv4('192.168.1.255', 24)", result: '192.168.1.0' },
      { apl: "format_ipv4('192.168.1.255/30')", result: '192.168.1.252' },
      { apl: 'format_ipv4(-1)', result: '' },
      { apl: "format_ipv4('256.1.1.1')", result: '' },
    ],
  },
  {
    name: 'format_ipv4_mask',
    summary: 'An IPv4 address (text or its 32-bit value) masked to `prefix` bits (32 by default), in CIDR notation; the empty string where it is not one.',
    params: [oneOf('ip', ['string', 'dynamic', 'long']), prefix('prefix', { optional: true })],
    returns: 'string',
    sql: (c) => {
      const bits = c.call.args.length > 1 ? shortest(['a.p', prefixArg(c, 1, 32)]) : 'a.p';
      const ip = c.type(0) === 'dynamic' ? ipv4(toText(c.arg(0), 'dynamic')) : ipv4Arg(c, 0);
      return `coalesce(${bindOnce(ip, 'a', bindOnce(bits, 'b', `${dotted(mask4('a.v', 'b'))} || '/' || b`))}, '')`;
    },
    examples: [
      { apl: "format_ipv4_mask('192.168.1.54', 24)", result: '192.168.1.0/24', type: 'string' },
      { apl: 'format_ipv4_mask(3232236031, 24)', result: '192.168.1.0/24' },
      { apl: "format_ipv4_mask('10.1.2.3')", result: '10.1.2.3/32' },
      { apl: "format_ipv4_mask('10.1.2.3', 33)", result: '' },
    ],
  },
  {
    name: 'geo_info_from_ip_address',
    summary: 'The location of an IP address: not available locally (it needs the hosted service’s geolocation database), a 400 that says so.',
    params: [address('ip_address')],
    returns: 'dynamic',
    reported: 'object',
    bind: (_args, site) =>
      fail(
        'not_available_locally',
        'geo_info_from_ip_address() is not available in the local service: it needs a geolocation database, which only the hosted service has',
        argNode(site.node, 0),
      ),
    examples: [
      { apl: "ipv4_is_private('172.217.22.14')", result: false },
      { apl: "geo_info_from_ip_address('172.217.22.14')", error: 'geo_info_from_ip_address() is not available in the local service: it needs a geolocation database, which only the hosted service has' },
    ],
  },
  {
    name: 'has_any_ipv4',
    summary: 'Whether text holds any of the IPv4 addresses or CIDR ranges given (as strings or dynamic arrays), as a whole address delimited by other than letters, digits and dots.',
    params: [text('source'), addressList('ip_list')],
    variadic: LIST_ARGS,
    returns: 'bool',
    sql: (c) => {
      return `coalesce(list_bool_or(list_transform(${ipv4InText(c.arg(0))}, t -> ${bindOnce(ipv4('t'), 'ii', inAnyRange4(c, 1, 'ii'))})), false)`;
    },
    examples: [
      { apl: "has_any_ipv4('192.168.1.1', dynamic(['192.168.1.1', '192.168.0.0/16']))", result: true, type: 'boolean' },
      { apl: "has_any_ipv4('Requests from: 10.1.1.115.', '192.168.0.0/16', '10.0.0.0/8')", result: true },
      { apl: "has_any_ipv4('Requests from: 10.1.1.115', dynamic(['10.1.1.11']))", result: false },
      { apl: "has_any_ipv4('host10.1.1.115', dynamic(['10.0.0.0/8']))", result: false },
    ],
  },
  {
    name: 'has_any_ipv4_prefix',
    summary: 'Whether text holds an IPv4 address that starts with any of the prefixes given (`10.`, `192.168`: whole octets), as strings or dynamic arrays.',
    params: [text('source'), addressList('prefixes')],
    variadic: LIST_ARGS,
    returns: 'bool',
    sql: (c) =>
      `coalesce(list_bool_or(list_transform(${ipv4InText(c.arg(0))}, t -> list_bool_or(list_transform(${textList(c, 1)}, r -> regexp_full_match(r, ${quoteString(IPV4_PREFIX)}) AND ${startsWithPrefix('t', 'r')})))), false)`,
    examples: [
      { apl: "has_any_ipv4_prefix('192.168.0.1', dynamic(['172.16.', '192.168.']))", result: true, type: 'boolean' },
      { apl: "has_any_ipv4_prefix('from 192.168.0.1', '10.', '192.16')", result: false },
    ],
  },
  {
    name: 'has_ipv4',
    summary: 'Whether text holds an IPv4 address (a valid one, without a prefix) as a whole address delimited by other than letters, digits and dots.',
    params: [text('source'), address('ip_address')],
    returns: 'bool',
    sql: (c) =>
      bindOnce(
        ipv4(c.arg(1)),
        'ip',
        `coalesce(ip.p = 32 AND NOT contains(${c.arg(1)}, '/') AND list_contains(list_transform(${ipv4InText(c.arg(0))}, t -> (${ipv4('t')}).v), ip.v), false)`,
      ),
    examples: [
      { apl: "has_ipv4('Requests from: 192.168.1.1, 10.1.1.115.', '192.168.1.1')", result: true, type: 'boolean' },
      { apl: "has_ipv4('Requests from: 192.168.1.1, 10.1.1.115.', '10.1.1.115')", result: true },
      { apl: "has_ipv4('05:04:54127.0.0.1 GET', '127.0.0.1')", result: false },
      { apl: "has_ipv4('127.0.0.256', '127.0.0.256')", result: false },
    ],
  },
  {
    name: 'has_ipv4_prefix',
    summary: 'Whether text holds an IPv4 address that starts with a prefix (`10.`, `192.168`: whole octets).',
    params: [text('source'), address('prefix')],
    returns: 'bool',
    sql: (c) =>
      reuse(c.arg(1), 'hp', (p) => `coalesce(regexp_full_match(${p}, ${quoteString(IPV4_PREFIX)}) AND list_bool_or(list_transform(${ipv4InText(c.arg(0))}, t -> ${startsWithPrefix('t', p)})), false)`),
    examples: [
      { apl: "has_ipv4_prefix('192.168.0.1', '192.168.')", result: true, type: 'boolean' },
      { apl: "has_ipv4_prefix('client 192.168.0.1 connected', '192.168')", result: true },
      { apl: "has_ipv4_prefix('192.168.0.1', '192.16')", result: false },
      { apl: "has_ipv4_prefix('192.168.0.1', 'abc')", result: false },
    ],
  },
  {
    name: 'ipv4_compare',
    summary: '-1, 0 or 1 as the first IPv4 address is below, equal to or above the second, both masked to the shortest of their prefixes and `prefix`; null where either is not an address.',
    params: [address('ip1'), address('ip2'), prefix('prefix', { optional: true })],
    returns: 'long',
    sql: compare4,
    examples: [
      { apl: "ipv4_compare('192.168.1.1', '192.168.1.10')", result: -1, type: 'integer' },
      { apl: "ipv4_compare('192.168.1.1', '192.168.1.255', 24)", result: 0 },
      { apl: "ipv4_compare('192.168.1.1/24', '192.168.1.255')", result: 0 },
      { apl: "ipv4_compare('10.0.0.1', '9.255.255.255')", result: 1 },
      { apl: "ipv4_compare('10.0.0.1', 'x')", result: null },
    ],
  },
  {
    name: 'ipv4_is_in_any_range',
    summary: 'Whether an IPv4 address lies in any of the ranges given (CIDR or single addresses, as strings or dynamic arrays); null where it is not an address.',
    params: [address('ip_address'), addressList('ranges')],
    variadic: LIST_ARGS,
    returns: 'bool',
    sql: (c) => bindOnce(ipv4(c.arg(0)), 'ii', `CASE WHEN ii IS NOT NULL THEN ${inAnyRange4(c, 1, 'ii')} END`),
    examples: [
      { apl: "ipv4_is_in_any_range('192.168.0.0', dynamic(['192.168.0.0/24', '10.0.0.0/8']))", result: true, type: 'boolean' },
      { apl: "ipv4_is_in_any_range('11.1.1.1', '192.168.0.0/24', '10.0.0.0/8')", result: false },
      { apl: "ipv4_is_in_any_range('not an ip', '10.0.0.0/8')", result: null },
    ],
  },
  {
    name: 'ipv4_is_in_range',
    summary: 'Whether an IPv4 address lies in a range (CIDR notation, or one address); null where either is not an address.',
    params: [address('ip'), address('range')],
    returns: 'bool',
    sql: (c) => {
      const range = literalTexts(c, 1);
      if (range) return parseIpv4(range[0] ?? '') ? bindOnce(ipv4(c.arg(0)), 'ii', `CASE WHEN ii IS NOT NULL THEN ${inAnyRange4(c, 1, 'ii')} END`) : 'CAST(NULL AS BOOLEAN)';
      return bindOnce(ipv4(c.arg(0)), 'ii', bindOnce(ipv4(c.arg(1)), 'rr', `CASE WHEN ii IS NOT NULL AND rr IS NOT NULL THEN ${inRange4('ii', 'rr')} END`));
    },
    examples: [
      { apl: "ipv4_is_in_range('192.168.1.0', '192.168.1.0/24')", result: true, type: 'boolean' },
      { apl: "ipv4_is_in_range('192.168.2.1', '192.168.1.0/24')", result: false },
      { apl: "ipv4_is_in_range('10.1.2.3', '10.1.2.3')", result: true },
      { apl: "ipv4_is_in_range('10.1.2.3', '10.1.2.0/33')", result: null },
    ],
  },
  {
    name: 'ipv4_is_match',
    summary: 'Whether two IPv4 addresses are equal, masked to the shortest of their prefixes and `prefix`; null where either is not an address.',
    params: [address('ipaddress1'), address('ipaddress2'), prefix('prefix', { optional: true })],
    returns: 'bool',
    sql: (c) => `(${compare4(c)} = 0)`,
    examples: [
      { apl: "ipv4_is_match('203.0.113.112', '203.0.113.112')", result: true, type: 'boolean' },
      { apl: "ipv4_is_match('192.168.1.1', '192.168.1.255', 24)", result: true },
      { apl: "ipv4_is_match('192.168.1.1', '192.168.1.255')", result: false },
      { apl: "ipv4_is_match('192.168.1.1/24', '192.168.1.255/30')", result: true },
      { apl: "ipv4_is_match('192.168.1.1', '')", result: null },
    ],
  },
  {
    name: 'ipv4_is_private',
    summary: 'Whether an IPv4 address (or CIDR range) lies in a private range of RFC 1918: 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16; null where it is not an address.',
    params: [address('ip')],
    returns: 'bool',
    sql: (c) =>
      bindOnce(
        ipv4(c.arg(0)),
        'ii',
        `CASE WHEN ii IS NOT NULL THEN (${[
          ['167772160', 8],
          ['2886729728', 12],
          ['3232235520', 16],
        ]
          .map(([block, bits]) => `(ii.p >= ${bits} AND ${mask4('ii.v', String(bits))} = ${block})`)
          .join(' OR ')}) END`,
      ),
    examples: [
      { apl: "ipv4_is_private('192.168.0.1')", result: true, type: 'boolean' },
      { apl: "ipv4_is_private('172.31.255.255')", result: true },
      { apl: "ipv4_is_private('172.32.0.1')", result: false },
      { apl: "ipv4_is_private('10.0.0.0/7')", result: false },
      { apl: "ipv4_is_private('8.8.8.8')", result: false },
      { apl: "ipv4_is_private('localhost')", result: null },
    ],
  },
  {
    name: 'ipv4_netmask_suffix',
    summary: 'The prefix length of an IPv4 address in CIDR notation (32 without one); null where it is not an address.',
    params: [address('ipv4address')],
    returns: 'long',
    sql: (c) => `CAST((${ipv4(c.arg(0))}).p AS BIGINT)`,
    examples: [
      { apl: "ipv4_netmask_suffix('192.168.1.1/24')", result: 24, type: 'integer' },
      { apl: "ipv4_netmask_suffix('192.168.1.1')", result: 32 },
      { apl: "ipv4_netmask_suffix('192.168.1.1/33')", result: null },
    ],
  },
  {
    name: 'ipv6_compare',
    summary: '-1, 0 or 1 as the first IPv6 address (or IPv4, as IPv4-mapped) is below, equal to or above the second, both masked to the shortest of their prefixes and `prefix`; null where either is not an address.',
    params: [address('ipv6_1'), address('ipv6_2'), prefix('prefix', { optional: true })],
    returns: 'long',
    sql: compare6,
    examples: [
      { apl: "ipv6_compare('2001:db8::1', '2001:db8::abcd')", result: -1, type: 'integer' },
      { apl: "ipv6_compare('2001:DB8:0:0:0:0:0:1', '2001:db8::1')", result: 0 },
      { apl: "ipv6_compare('fe80::85d:e82c:9446:7994', 'fe80::85d:e82c:9446:7995', 127)", result: 0 },
      { apl: "ipv6_compare('::ffff:7f00:1', '127.0.0.1')", result: 0 },
      { apl: "ipv6_compare('::ffff:127.0.0.2', '127.0.0.1')", result: 1 },
      { apl: "ipv6_compare('1::2::3', '::1')", result: null },
    ],
  },
  {
    name: 'ipv6_is_in_any_range',
    summary: 'Whether an IPv6 address lies in any of the CIDR ranges given (as strings or dynamic arrays); null where it is not an address.',
    params: [address('ipv6_address'), addressList('ipv6_ranges')],
    variadic: LIST_ARGS,
    returns: 'bool',
    sql: (c) => bindOnce(ipv6(c.arg(0)), 'ii', `CASE WHEN ii IS NOT NULL THEN ${inAnyRange6(c, 1, 'ii')} END`),
    examples: [
      { apl: "ipv6_is_in_any_range('2001:db8::1234', dynamic(['2001:db8::/32', 'fd00::/8']))", result: true, type: 'boolean' },
      { apl: "ipv6_is_in_any_range('2001:db9::1', '2001:db8::/32', 'fd00::/8')", result: false },
    ],
  },
  {
    name: 'ipv6_is_in_range',
    summary: 'Whether an IPv6 address lies in a CIDR range; null where either is not an address.',
    params: [address('ipv6'), address('cidr_range')],
    returns: 'bool',
    sql: (c) => {
      const range = literalTexts(c, 1);
      if (range) return parseIpv6(range[0] ?? '') ? bindOnce(ipv6(c.arg(0)), 'ii', `CASE WHEN ii IS NOT NULL THEN ${inAnyRange6(c, 1, 'ii')} END`) : 'CAST(NULL AS BOOLEAN)';
      return bindOnce(ipv6(c.arg(0)), 'ii', bindOnce(ipv6(c.arg(1)), 'rr', `CASE WHEN ii IS NOT NULL AND rr IS NOT NULL THEN ${inRange6('ii', 'rr')} END`));
    },
    examples: [
      { apl: "ipv6_is_in_range('fd00::a1b2', 'fd00::/8')", result: true, type: 'boolean' },
      { apl: "ipv6_is_in_range('fe00::1', 'fd00::/8')", result: false },
      { apl: "ipv6_is_in_range('2001:db8::1', '2001:db8::/129')", result: null },
    ],
  },
  {
    name: 'ipv6_is_match',
    summary: 'Whether two IPv6 addresses (or a subnet in CIDR notation) match, masked to the shortest of their prefixes and `prefix`; null where either is not an address.',
    params: [address('ipv6_address'), address('ipv6_subnet'), prefix('prefix', { optional: true })],
    returns: 'bool',
    sql: (c) => `(${compare6(c)} = 0)`,
    examples: [
      { apl: "ipv6_is_match('2001:db8:abcd::1', '2001:db8::/32')", result: true, type: 'boolean' },
      { apl: "ipv6_is_match('::ffff:7f00:1', '127.0.0.1')", result: true },
      { apl: "ipv6_is_match('fe80::85d:e82c:9446:7994', 'fe80::85d:e82c:9446:7995', 120)", result: true },
      { apl: "ipv6_is_match('2001:db8::1', '2001:db8::2')", result: false },
    ],
  },
  {
    name: 'parse_ipv4',
    summary: 'An IPv4 address as its 32-bit value (a long), masked to its prefix when it has one; null where it is not an address.',
    params: [address('ipv4_address')],
    returns: 'long',
    sql: (c) => bindOnce(ipv4(c.arg(0)), 'ii', mask4('ii.v', 'ii.p')),
    examples: [
      { apl: "parse_ipv4('192.168.1.1')", result: 3232235777, type: 'integer' },
      { apl: "parse_ipv4('192.168.1.1/24')", result: 3232235776 },
      { apl: "parse_ipv4('192.168.1')", result: null },
      { apl: "format_ipv4(parse_ipv4('10.20.30.40'))", result: '10.20.30.40' },
    ],
  },
  {
    name: 'parse_ipv4_mask',
    summary: 'An IPv4 address as its 32-bit value with all but its first `prefix` bits (0–32) cleared; null where it is not an address or the prefix is out of range.',
    params: [address('ip'), prefix('prefix')],
    returns: 'long',
    sql: (c) => bindOnce(ipv4(c.arg(0)), 'ii', bindOnce(shortest(['ii.p', prefixArg(c, 1, 32)]), 'pp', mask4('ii.v', 'pp'))),
    examples: [
      { apl: 'parse_ipv4_mask("127.0.0.1", 24)', result: 2130706432, type: 'integer' },
      { apl: "parse_ipv4_mask('192.168.0.1', 24)", result: 3232235520 },
      { apl: "parse_ipv4_mask('192.168.0.1', 40)", result: null },
    ],
  },
];
