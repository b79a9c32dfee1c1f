import { describe, expect, it } from 'vitest';
import { defaultSignals, parseSignal } from '../../src/impact/signals.js';

describe('default signals', () => {
  it('are built from the first status and duration fields the dataset has', () => {
    const { signals, missing } = defaultSignals([
      { name: '_time', type: 'datetime' },
      { name: 'http.status_code', type: 'integer' },
      { name: 'latency_ms', type: 'integer|float' },
      { name: 'duration', type: 'string' },
    ]);
    expect(missing).toEqual([]);
    expect(signals).toEqual([
      { rule: 'rate', name: 'error rate', field: 'http.status_code', matching: "countif(['http.status_code'] >= 500)", events: "countif(isnotnull(['http.status_code']))" },
      { rule: 'percentile', name: 'p95 latency', field: 'latency_ms', expression: "['latency_ms']", percentile: 95 },
    ]);
  });

  it('read a status stored as text as a number', () => {
    expect(defaultSignals([{ name: 'status', type: 'string' }]).signals[0]).toMatchObject({ matching: "countif(toint(['status']) >= 500)" });
  });

  it('report what they looked for instead of guessing', () => {
    const { signals, missing } = defaultSignals([
      { name: 'code', type: 'integer' },
      { name: 'duration', type: 'string' },
    ]);
    expect(signals).toEqual([]);
    expect(missing).toEqual([
      { signal: 'error rate', reason: expect.stringMatching(/^the dataset has no field named status, status_code, statusCode, http\.status_code/) },
      { signal: 'p95 latency', reason: 'no usable field: duration is string, expected a number; give the signal with --signal (impact-signals in the action).' },
    ]);
  });
});

describe('parseSignal', () => {
  it.each([
    ['countif(level == "error")', { rule: 'rate', matching: 'countif(level == "error")', events: 'count()' }],
    ['  countif(msg contains ",)")  ', { rule: 'rate', matching: 'countif(msg contains ",)")' }],
    ['percentile(duration_ms, 99)', { rule: 'percentile', expression: 'duration_ms', percentile: 99 }],
    ["percentile(['req.ms'] * 1000, 99.9)", { rule: 'percentile', expression: "['req.ms'] * 1000", percentile: 99.9 }],
    ['percentile(duration_ms, 100)', { rule: 'buckets', aggregation: 'percentile(duration_ms, 100)' }],
    ['count()', { rule: 'buckets', aggregation: 'count()' }],
    ['100.0 * countif(status >= 500) / count()', { rule: 'buckets' }],
    ['countif(a) + countif(b)', { rule: 'buckets' }],
    ['dcount(user_id)', { rule: 'buckets' }],
  ])('reads %s', (text, expected) => {
    expect(parseSignal('--signal', text)).toMatchObject(expected);
  });

  it.each([
    ['', 'Invalid --signal: it is empty.'],
    ['count(), sum(x)', 'Invalid --signal "count(), sum(x)": "," outside parentheses.'],
    ['count() | take 1', 'Invalid --signal "count() | take 1": "|" outside parentheses.'],
    ['count() by route', 'Invalid --signal "count() by route": "by" outside parentheses.'],
    ['countif(x == "a)', 'Invalid --signal "countif(x == \\"a)": a string that is not closed.'],
    ['countif(x > 1', 'Invalid --signal "countif(x > 1": an unclosed bracket.'],
    ['count())', 'Invalid --signal "count())": an unmatched ")".'],
  ])('refuses %j', (text, message) => {
    expect(() => parseSignal('--signal', text)).toThrow(message);
  });

  it('lets "by" and separators appear inside strings and calls', () => {
    expect(parseSignal('--signal', 'countif(route == "/by|x;y")').rule).toBe('rate');
    expect(parseSignal('--signal', 'countif(bypass == true)').rule).toBe('rate');
  });
});
