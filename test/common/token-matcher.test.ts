import { describe, expect, it } from 'vitest';
import { createTokenMatcher } from '../../src/common/token-matcher.js';

describe('createTokenMatcher', () => {
  it('says which token matched, or -1, whatever the lengths', () => {
    const matchToken = createTokenMatcher(['first-secret', 'second', 'first-secret']);
    expect(matchToken('second')).toBe(1);
    expect(matchToken('first-secret')).toBe(0);
    expect(matchToken('first-secre')).toBe(-1);
    expect(matchToken('')).toBe(-1);
    expect(createTokenMatcher([])('anything')).toBe(-1);
  });
});
