import { describe, expect, it } from 'vitest';
import { runQuery, useExampleStore } from '../helpers/examples.js';
import { tableRows } from '../helpers/reference.js';

/**
 * IP-address functions beyond their registry examples: addresses, prefixes and malformed text
 * against a plain JavaScript reading of IPv4 and IPv6 (RFC 4291's text forms).
 */

const store = useExampleStore();

/** `{value, prefix}` of IPv4 text, or null. */
function ipv4(text: string): { value: bigint; prefix: number } | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/(\d{1,2}))?$/.exec(text);
  if (!match) return null;
  const octets = match.slice(1, 5).map(Number);
  const prefix = match[5] === undefined ? 32 : Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return null;
  return { value: octets.reduce((v, o) => v * 256n + BigInt(o), 0n), prefix };
}

const mask = (value: bigint, prefix: number, width: number): bigint => (value >> BigInt(width - prefix)) << BigInt(width - prefix);

/** `{value, prefix}` of IPv6 text as one 128-bit number (IPv4 as IPv4-mapped), or null. */
function ipv6(text: string): { value: bigint; prefix: number } | null {
  const lower = text.toLowerCase();
  if (!lower.includes(':')) {
    const v4 = ipv4(lower);
    return v4 && { value: (0xffffn << 32n) | v4.value, prefix: v4.prefix + 96 };
  }
  const [address = '', prefixText, ...rest] = lower.split('/');
  if (rest.length > 0 || (prefixText !== undefined && !/^\d+$/.test(prefixText))) return null;
  const prefix = prefixText === undefined ? 128 : Number(prefixText);
  if (prefix > 128) return null;
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const groups = (side: string): bigint[] | null => {
    if (side === '') return [];
    const out: bigint[] = [];
    for (const part of side.split(':')) {
      if (/^[0-9a-f]{1,4}$/.test(part)) out.push(BigInt(`0x${part}`));
      else if (part.includes('.') && ipv4(part)?.prefix === 32) {
        const v = (ipv4(part) as { value: bigint }).value;
        out.push(v >> 16n, v & 0xffffn);
      } else return null;
    }
    return out;
  };
  const head = groups(halves[0] ?? '');
  const tail = groups(halves[1] ?? '');
  if (!head || !tail) return null;
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return null;
  const all = [...head, ...Array<bigint>(fill).fill(0n), ...tail];
  return { value: all.reduce((v, g) => (v << 16n) | g, 0n), prefix };
}

function compare(a: { value: bigint; prefix: number } | null, b: { value: bigint; prefix: number } | null, width: number): number | null {
  if (!a || !b) return null;
  const prefix = Math.min(a.prefix, b.prefix);
  const [x, y] = [mask(a.value, prefix, width), mask(b.value, prefix, width)];
  return x < y ? -1 : x > y ? 1 : 0;
}

const quote = (text: string): string => `'${text}'`;

const IPV4_PAIRS: readonly (readonly [string, string])[] = [
  ['192.168.1.1', '192.168.1.10'],
  ['10.0.0.1', '10.0.0.1'],
  ['255.255.255.255', '0.0.0.0'],
  ['192.168.1.77/26', '192.168.1.64'],
  ['172.16.5.4', '172.16.0.0/12'],
  ['172.32.0.1', '172.16.0.0/12'],
  ['1.2.3.4/0', '200.1.1.1'],
  ['1.2.3', '1.2.3.4'],
  ['256.0.0.1', '1.1.1.1'],
  ['01.002.3.4', '1.2.3.4'],
  ['9.9.9.9/33', '9.9.9.9'],
];

describe('IPv4 against JavaScript', () => {
  it.each(IPV4_PAIRS)('%s and %s', async (a, b) => {
    const query = `['sample-http-logs'] | take 1 | project cmp = ipv4_compare(${quote(a)}, ${quote(b)}), parsed = parse_ipv4(${quote(a)}), in_range = ipv4_is_in_range(${quote(a)}, ${quote(b)}), in_range_computed = ipv4_is_in_range(${quote(a)}, strcat(${quote(b)}, '')), in_any = ipv4_is_in_any_range(strcat(${quote(a)}, ''), ${quote(b)}, '0.0.0.0/32'), cidr = format_ipv4_mask(${quote(a)}, 24), suffix = ipv4_netmask_suffix(${quote(a)})`;
    const row = tableRows((await runQuery(store, query)).tables[0] as never)[0];
    const [x, y] = [ipv4(a), ipv4(b)];
    const masked = x && mask(x.value, Math.min(x.prefix, 24), 32);
    const inRange = x && y ? x.prefix >= y.prefix && mask(x.value, y.prefix, 32) === mask(y.value, y.prefix, 32) : null;
    expect(row).toEqual({
      cmp: compare(x, y, 32),
      parsed: x ? Number(mask(x.value, x.prefix, 32)) : null,
      in_range: inRange,
      in_range_computed: inRange,
      // A range that is not an address matches nothing; an address that is not one is null.
      in_any: x ? inRange === true || (x.prefix >= 32 && x.value === 0n) : null,
      cidr: masked === null ? '' : `${[24n, 16n, 8n, 0n].map((shift) => (masked >> shift) & 255n).join('.')}/${Math.min(x?.prefix ?? 0, 24)}`,
      suffix: x?.prefix ?? null,
    });
  });
});

const IPV6_PAIRS: readonly (readonly [string, string])[] = [
  ['2001:db8::1', '2001:db8::abcd'],
  ['::', '::1'],
  ['1::', '1:0:0:0:0:0:0:0'],
  ['fe80::1:2:3:4', 'FE80:0:0:0:1:2:3:4'],
  ['2001:db8:abcd::1', '2001:db8::/32'],
  ['2001:db9::1', '2001:db8::/32'],
  ['::ffff:10.1.2.3', '10.1.2.3'],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '::'],
  ['1:2:3:4:5:6:7', '::'],
  ['1:2:3:4:5:6:7:8:9', '::'],
  ['1::2::3', '::'],
  ['12345::', '::'],
  ['::/129', '::'],
  ['fd00::a1b2/8', 'fd00::/8'],
];

describe('IPv6 against JavaScript', () => {
  it.each(IPV6_PAIRS)('%s and %s', async (a, b) => {
    const query = `['sample-http-logs'] | take 1 | project cmp = ipv6_compare(${quote(a)}, ${quote(b)}), in_range = ipv6_is_in_range(${quote(a)}, ${quote(b)}), in_range_computed = ipv6_is_in_range(${quote(a)}, strcat(${quote(b)}, '')), in_any = ipv6_is_in_any_range(strcat(${quote(a)}, ''), dynamic([${JSON.stringify(b)}, 'ff::/128'])), cmp_64 = ipv6_compare(${quote(a)}, ${quote(b)}, 64)`;
    const row = tableRows((await runQuery(store, query)).tables[0] as never)[0];
    const [x, y] = [ipv6(a), ipv6(b)];
    const at64 = (v: { value: bigint; prefix: number } | null): { value: bigint; prefix: number } | null => v && { value: v.value, prefix: Math.min(v.prefix, 64) };
    const inRange = x && y ? x.prefix >= y.prefix && mask(x.value, y.prefix, 128) === mask(y.value, y.prefix, 128) : null;
    expect(row).toEqual({
      cmp: compare(x, y, 128),
      in_range: inRange,
      in_range_computed: inRange,
      in_any: x ? inRange === true || (x.prefix >= 128 && x.value === 0xff0000000000000000000000000000n) : null,
      cmp_64: compare(at64(x), at64(y), 128),
    });
  });
});

describe('addresses in text', () => {
  it.each([
    ["has_ipv4('a 1.2.3.4, b', '1.2.3.4')", true],
    ["has_ipv4('a1.2.3.4', '1.2.3.4')", false],
    ["has_ipv4('1.2.3.4.5', '1.2.3.4')", false],
    ["has_ipv4('x=001.2.3.4', '1.2.3.4')", true],
    ["has_ipv4('1.2.3.4', '1.2.3.4/32')", false],
    ["has_ipv4(string(null), '1.2.3.4')", false],
    ["has_ipv4_prefix('see 10.20.30.40', '10.2')", false],
    ["has_ipv4_prefix('see 10.20.30.40', '10.20')", true],
    ["has_ipv4_prefix('see 10.20.30.40', '10.20.30.40')", true],
    ["has_any_ipv4('1.1.1.1 and 8.8.8.8', dynamic(['8.8.0.0/16']))", true],
    ["has_any_ipv4_prefix('1.1.1.1 and 8.8.8.8', dynamic(['9.', '8.8.']))", true],
  ])('%s is %j', async (apl, value) => {
    const table = (await runQuery(store, `['sample-http-logs'] | take 1 | project v = ${apl}`)).tables[0];
    expect(tableRows(table as never)[0]?.v).toBe(value);
  });
});
