import { describe, expect, it } from 'vitest';
import { formatTime, parseIsoTimestamp, parseTimeInput, parseWireTime, TimeParseError, ZERO_TIME_MS } from '../../src/common/time.js';

const NOW = Date.parse('2024-05-01T12:00:00.000Z');

describe('parseTimeInput', () => {
  it.each([
    ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T14:00:00+02:00', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T07:00:00-0500', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00:00.123456789Z', '2024-05-01T12:00:00.123Z'],
    ['2024-05-01 12:00:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['1714564800', '2024-05-01T12:00:00.000Z'],
    ['1714564800123', '2024-05-01T12:00:00.123Z'],
    ['1714564800.5', '2024-05-01T12:00:00.500Z'],
    ['now', '2024-05-01T12:00:00.000Z'],
    ['NOW', '2024-05-01T12:00:00.000Z'],
    ['now-5m', '2024-05-01T11:55:00.000Z'],
    ['now+1h', '2024-05-01T13:00:00.000Z'],
    ['now - 2d', '2024-04-29T12:00:00.000Z'],
    ['now-1w', '2024-04-24T12:00:00.000Z'],
    ['now-250ms', '2024-05-01T11:59:59.750Z'],
    ['  now-30s  ', '2024-05-01T11:59:30.000Z'],
  ])('reads %j as %s', (input, expected) => {
    expect(formatTime(parseTimeInput('--time', input, NOW))).toBe(expected);
  });

  it.each(['yesterday', 'now-5x', '2024-13-01T00:00:00Z', '2024-02-30', '2024-05-01T25:00:00Z', '', '12:00', '-5'])(
    'rejects %j with a message that names the input, quotes it and says what is expected',
    (input) => {
      expect(() => parseTimeInput('--time', input, NOW)).toThrow(TimeParseError);
      expect(() => parseTimeInput('--time', input, NOW)).toThrow(new RegExp(`Invalid --time ${JSON.stringify(input).replace(/[+]/g, '\\+')}. Expected .*now-5m`));
    },
  );
});

describe('parseWireTime', () => {
  it('accepts RFC 3339 with any offset and treats the Go zero time as unset', () => {
    expect(parseWireTime('time', '2024-05-01T12:00:00+00:00')).toBe(NOW);
    expect(parseWireTime('time', '0001-01-01T00:00:00Z')).toBeUndefined();
    expect(parseIsoTimestamp('0001-01-01T00:00:00Z')).toBe(ZERO_TIME_MS);
  });

  it('refuses what only people write: now and epoch numbers', () => {
    expect(() => parseWireTime('time', 'now')).toThrow(/Invalid time "now". Expected an ISO 8601/);
    expect(() => parseWireTime('start', '1714564800')).toThrow(/Invalid start/);
  });
});

describe('formatTime', () => {
  it('answers UTC with millisecond precision', () => {
    expect(formatTime(NOW + 7)).toBe('2024-05-01T12:00:00.007Z');
  });
});
