import { describe, expect, it } from 'vitest';
import { formatFacts, readFacts, withFacts, withoutFacts } from '../../src/common/annotation-facts.js';

describe('the facts line', () => {
  it('reads the documented form', () => {
    expect(readFacts('Rolled out v2\n[timemark outcome=failure committed=2024-05-01T09:12:00.000Z impact=regressed]')).toEqual({
      outcome: 'failure',
      committed: '2024-05-01T09:12:00.000Z',
      impact: 'regressed',
    });
    expect(readFacts('[timemark outcome=success]\n[timemark:0123abcd]')).toEqual({ outcome: 'success' });
  });

  it('ignores unknown keys, values outside a vocabulary, and text that only looks alike', () => {
    expect(readFacts('[timemark outcome=exploded committed=yesterday color=blue impact=no-change]')).toEqual({ impact: 'no-change' });
    expect(readFacts('We wrote [timemark outcome=failure] inside a sentence')).toEqual({});
    expect(readFacts('[timemark:0123abcd]')).toEqual({});
    expect(readFacts(undefined)).toEqual({});
  });

  it('is written in a fixed order, and not at all without facts', () => {
    expect(formatFacts({ impact: 'regressed', outcome: 'success', committed: '2024-05-01T09:12:00.000Z' })).toBe(
      '[timemark outcome=success committed=2024-05-01T09:12:00.000Z impact=regressed]',
    );
    expect(formatFacts({})).toBe('');
  });
});

describe('withFacts', () => {
  it('appends the line to what people wrote', () => {
    expect(withFacts('Rolling out v2', { outcome: 'success' })).toBe('Rolling out v2\n[timemark outcome=success]');
    expect(withFacts(undefined, { outcome: 'success' })).toBe('[timemark outcome=success]');
  });

  it('merges new facts over old ones and keeps the line where it was', () => {
    const description = 'Deploy\n[timemark committed=2024-05-01T09:12:00.000Z]\n[timemark:0123abcd]';
    expect(withFacts(description, { outcome: 'failure' })).toBe('Deploy\n[timemark outcome=failure committed=2024-05-01T09:12:00.000Z]\n[timemark:0123abcd]');
  });

  it('shortens what people wrote, never the facts, to fit the description limit', () => {
    const long = 'x'.repeat(600);
    const result = withFacts(long, { outcome: 'failure', impact: 'regressed' });
    expect(result).toHaveLength(512);
    expect(result.endsWith('x…\n[timemark outcome=failure impact=regressed]')).toBe(true);
    expect(readFacts(result)).toEqual({ outcome: 'failure', impact: 'regressed' });
  });

  it('drops the line when no fact is left, and withoutFacts gives back the text alone', () => {
    expect(withoutFacts('Deploy\n[timemark outcome=failure]\n[timemark:0123abcd]')).toBe('Deploy\n[timemark:0123abcd]');
    expect(withoutFacts('No facts here')).toBe('No facts here');
  });
});
