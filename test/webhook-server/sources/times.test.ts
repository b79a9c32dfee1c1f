import { describe, expect, it } from 'vitest';
import {
  isZeroTime,
  keyTime,
  parseEpochMs,
  parseGitlabTime,
  parseGoTime,
  parseRfc3339,
} from '../../../webhook-server/src/sources/times.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';

describe('parseRfc3339', () => {
  it.each([
    ['2024-06-28T14:55:57Z', '2024-06-28T14:55:57.000Z'],
    ['2024-06-28T16:55:57+02:00', '2024-06-28T14:55:57.000Z'],
    ['2024-06-28T14:55:57.631364493Z', '2024-06-28T14:55:57.631Z'],
    ['2024-06-28T14:55:57.1-01:30', '2024-06-28T16:25:57.100Z'],
  ])('reads %s', (text, iso) => {
    expect(new Date(parseRfc3339('t', text)).toISOString()).toBe(iso);
  });

  it('names the field when the text is not a timestamp', () => {
    expect(() => parseRfc3339('alerts[0].startsAt', 'soon')).toThrow(MalformedPayloadError);
    expect(() => parseRfc3339('alerts[0].startsAt', 'soon')).toThrow('Field "alerts[0].startsAt" is "soon"');
  });

  it('recognises Go\'s zero time as "not set"', () => {
    expect(isZeroTime(parseRfc3339('endsAt', '0001-01-01T00:00:00Z'))).toBe(true);
    expect(isZeroTime(parseRfc3339('endsAt', '2024-06-28T14:55:57Z'))).toBe(false);
  });
});

describe('parseGitlabTime', () => {
  it.each([
    ['2021-04-28 21:50:00 +0200', '2021-04-28T19:50:00.000Z'],
    ['2021-04-28 21:50:00 -0530', '2021-04-29T03:20:00.000Z'],
    ['2021-04-28 19:50:00 UTC', '2021-04-28T19:50:00.000Z'],
    ['2021-04-28T19:50:00Z', '2021-04-28T19:50:00.000Z'],
  ])('reads %s', (text, iso) => {
    expect(new Date(parseGitlabTime('status_changed_at', text)).toISOString()).toBe(iso);
  });

  it.each(['2021-04-28', '2021-04-28 21:50 +0200', '28.04.2021 21:50:00', '2021-02-30 10:00:00 +0000'])('rejects %s', (text) => {
    expect(() => parseGitlabTime('status_changed_at', text)).toThrow('"status_changed_at"');
  });
});

describe('parseGoTime', () => {
  it.each([
    ['2024-06-28 14:55:57.631364493 +0000 UTC', '2024-06-28T14:55:57.631Z'],
    ['2024-06-28 14:55:57 +0000 UTC', '2024-06-28T14:55:57.000Z'],
    ['2024-06-28 16:55:57.5 +0200 CEST', '2024-06-28T14:55:57.500Z'],
    ['2024-06-28 09:55:57.999999999 -0500 -05', '2024-06-28T14:55:57.999Z'],
    ['2024-06-28 14:55:57.631364493 +0000 UTC m=+0.000012301', '2024-06-28T14:55:57.631Z'],
    ['2024-06-28T14:55:57.631364493Z', '2024-06-28T14:55:57.631Z'],
  ])('reads %s', (text, iso) => {
    expect(new Date(parseGoTime('event.timestamp', text)).toISOString()).toBe(iso);
  });

  it.each(['2024-06-28 14:55:57', '2024-06-28 14:55:57.1234567891 +0000 UTC', 'Jun 28 14:55:57'])('rejects %s', (text) => {
    expect(() => parseGoTime('event.timestamp', text)).toThrow('"event.timestamp"');
  });
});

describe('parseEpochMs', () => {
  it('reads milliseconds as a number', () => {
    expect(parseEpochMs('createdAt', 1719586557631)).toBe(1719586557631);
  });

  it.each([['1719586557631'], [-1], [Number.NaN], [null]])('rejects %s', (value) => {
    expect(() => parseEpochMs('createdAt', value)).toThrow('"createdAt"');
  });
});

describe('keyTime', () => {
  it('writes the same instant the same way whatever its original notation', () => {
    expect(keyTime(parseRfc3339('a', '2024-06-28T16:55:57+02:00'))).toBe(keyTime(parseRfc3339('b', '2024-06-28T14:55:57.000Z')));
  });
});
