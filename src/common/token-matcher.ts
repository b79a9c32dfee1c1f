import { createHash, timingSafeEqual } from 'node:crypto';

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Returns a function that says which of `tokens` a presented token equals (its index, or -1).
 * Both sides are compared as SHA-256 digests, so timingSafeEqual always compares 32 bytes, and
 * every token is compared without an early exit: the time taken says nothing about which token
 * matched, how much of one did, or how long the tokens are.
 */
export function createTokenMatcher(tokens: readonly string[]): (presented: string) => number {
  const digests = tokens.map(digest);
  return (presented) => {
    const given = digest(presented);
    let found = -1;
    digests.forEach((expected, index) => {
      if (timingSafeEqual(given, expected) && found === -1) found = index;
    });
    return found;
  };
}
