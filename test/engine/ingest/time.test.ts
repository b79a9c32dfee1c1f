import { describe, expect, it } from 'vitest';
import { parseGoLayout, parseWithLayout } from '../../../src/engine/ingest/go-layout.js';
import { parseEpoch, parseEventTime, parseRfc3339 } from '../../../src/engine/ingest/time.js';

const ns = (time: { ms: number; subMsNs: number } | undefined | string): bigint => {
  if (time === undefined || typeof time === 'string') throw new Error(`not a time: ${String(time)}`);
  return BigInt(time.ms) * 1_000_000n + BigInt(time.subMsNs);
};

describe('event times', () => {
  it('reads RFC 3339 with any offset and up to nanoseconds', () => {
    expect(ns(parseRfc3339('2024-01-15T14:00:00.123456789Z'))).toBe(1705327200123456789n);
    expect(ns(parseRfc3339('2024-01-15T16:00:00.5+02:00'))).toBe(1705327200500000000n);
    expect(ns(parseRfc3339('2024-01-15 14:00:00'))).toBe(1705327200000000000n);
    expect(ns(parseRfc3339('2024-01-15'))).toBe(1705276800000000000n);
    expect(ns(parseRfc3339('2024-01-15T09:00:00-0500'))).toBe(1705327200000000000n);
  });

  it('refuses impossible dates', () => {
    expect(parseRfc3339('2024-02-30T00:00:00Z')).toBeUndefined();
    expect(parseRfc3339('2024-13-01T00:00:00Z')).toBeUndefined();
    expect(parseRfc3339('2024-01-01T25:00:00Z')).toBeUndefined();
  });

  it('tells epoch seconds, milliseconds, microseconds and nanoseconds apart by magnitude, exactly', () => {
    expect(ns(parseEpoch('1705327200'))).toBe(1705327200000000000n);
    expect(ns(parseEpoch('1705327200.123456789'))).toBe(1705327200123456789n);
    expect(ns(parseEpoch('1705327200123'))).toBe(1705327200123000000n);
    expect(ns(parseEpoch('1705327200123456'))).toBe(1705327200123456000n);
    expect(ns(parseEpoch('1705327200123456789'))).toBe(1705327200123456789n);
    expect(ns(parseEpoch('-1.5'))).toBe(-1500000000n);
    expect(ns(parseEventTime(1705327200.25, '_time', undefined, undefined))).toBe(1705327200250000000n);
  });

  it('says what was expected when a value is not a time', () => {
    expect(parseEventTime('yesterday', '_time', undefined, undefined)).toMatch(/"_time" has the value "yesterday", which is not a time\. Expected an RFC 3339 string/);
    expect(parseEventTime(true, 'ts', undefined, undefined)).toMatch(/Field "ts" is the boolean true\. Expected a time/);
    expect(parseEventTime('9999-01-01T00:00:00Z', '_time', undefined, undefined)).toMatch(/outside the range/);
  });

  it('reads Go reference-time layouts', () => {
    const nginx = parseGoLayout('02/Jan/2006:15:04:05 -0700');
    expect(ns(parseWithLayout('15/Jan/2024:15:00:00 +0100', nginx))).toBe(1705327200000000000n);
    expect(ns(parseWithLayout('15/Jan/2024:15:00:00.25 +0100', nginx))).toBe(1705327200250000000n);
    expect(parseWithLayout('2024-01-15 14:00:00', nginx)).toBeUndefined();
    const rfc1123 = parseGoLayout('Mon, 02 Jan 2006 15:04:05 MST');
    expect(ns(parseWithLayout('Mon, 15 Jan 2024 14:00:00 UTC', rfc1123))).toBe(1705327200000000000n);
    const kitchen = parseGoLayout('2006-01-02 3:04:05.000PM');
    expect(ns(parseWithLayout('2024-01-15 2:00:00.001PM', kitchen))).toBe(1705327200001000000n);
    const zulu = parseGoLayout('2006-01-02T15:04:05Z07:00');
    expect(ns(parseWithLayout('2024-01-15T14:00:00Z', zulu))).toBe(1705327200000000000n);
    expect(ns(parseWithLayout('2024-01-15T15:00:00+01:00', zulu))).toBe(1705327200000000000n);
    const yearDay = parseGoLayout('2006.002');
    expect(ns(parseWithLayout('2024.015', yearDay))).toBe(1705276800000000000n);
  });

  it('refuses a layout without any date or time element', () => {
    expect(() => parseGoLayout('yyyy-MM-dd')).toThrow(/no date or time element.*reference time/);
  });
});
