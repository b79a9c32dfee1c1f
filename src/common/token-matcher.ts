import { createHash, timingSafeEqual } from 'node:crypto';

/** The SHA-256 digest of a token: what is compared, and what a store keeps instead of the token. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Says which of `digests` the digest of a presented token equals (its index, or -1). Every
 * digest is compared with timingSafeEqual, always 32 bytes, without an early exit: the time
 * taken says nothing about which token matched, how much of one did, or how long the tokens are.
 */
export function matchDigest(digests: readonly Buffer[], presented: string): number {
  const given = tokenDigest(presented);
  let found = -1;
  digests.forEach((expected, index) => {
    if (timingSafeEqual(given, expected) && found === -1) found = index;
  });
  return found;
}

/** Returns a function that says which of `tokens` a presented token equals (its index, or -1); see matchDigest. */
export function createTokenMatcher(tokens: readonly string[]): (presented: string) => number {
  const digests = tokens.map(tokenDigest);
  return (presented) => matchDigest(digests, presented);
}
