/**
 * Authenticity checks shared by the sources. Every comparison runs in constant time and checks
 * every configured secret (rotation) without stopping at the first match, so the time taken says
 * nothing about which secret matched or how much of a guess was right.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseBearer } from '../../../src/common/http/bearer.js';
import { createTokenMatcher } from '../../../src/common/token-matcher.js';
import type { IncomingWebhook, VerifyResult } from './types.js';

export type HmacAlgorithm = 'sha1' | 'sha256';

const HEX_LENGTH: Record<HmacAlgorithm, number> = { sha1: 40, sha256: 64 };

export const VERIFIED: VerifyResult = { ok: true };

export function rejected(reason: string): VerifyResult {
  return { ok: false, reason };
}

/** Reads a header by its lower-case name; an empty value counts as missing. */
export function header(webhook: IncomingWebhook, name: string): string | undefined {
  const value = webhook.headers[name.toLowerCase()];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * Drops empty entries: "a,,b" or a trailing comma in a secrets variable must never turn into an
 * empty secret that an empty token or an unsigned body would match.
 */
export function usableSecrets(secrets: readonly string[]): string[] {
  return secrets.filter((secret) => secret.length > 0);
}

export function noSecretConfigured(source: string): VerifyResult {
  return rejected(`No secret is configured for the ${source} source.`);
}

/** HMAC of the exact bytes received; `prefix` is prepended when the sender signs more than the body. */
export function hmac(algorithm: HmacAlgorithm, secret: string, body: Buffer, prefix?: string): Buffer {
  const mac = createHmac(algorithm, secret);
  if (prefix !== undefined) mac.update(prefix, 'utf8');
  return mac.update(body).digest();
}

/**
 * True when any of `signatures` (hex, any case) is the HMAC of `body` under any of `secrets`.
 * A candidate that is not hex of the right length counts as a mismatch (never an exception).
 */
export function matchesAnyHmac(
  algorithm: HmacAlgorithm,
  secrets: readonly string[],
  body: Buffer,
  signatures: readonly string[],
  prefix?: string,
): boolean {
  const candidates = signatures
    .filter((signature) => signature.length === HEX_LENGTH[algorithm] && /^[0-9a-fA-F]+$/.test(signature))
    .map((signature) => Buffer.from(signature, 'hex'));
  let matched = false;
  for (const secret of secrets) {
    const expected = hmac(algorithm, secret, body, prefix);
    for (const candidate of candidates) {
      // `||` would skip the comparison after a match; `|` keeps the work identical.
      matched = timingSafeEqual(candidate, expected) || matched;
    }
  }
  return matched;
}

/** True when `token` equals any of `secrets`, compared in constant time. */
export function matchesAnyToken(secrets: readonly string[], token: string): boolean {
  return createTokenMatcher(secrets)(token) !== -1;
}

/** Reads `Authorization: Bearer <token>`. */
export function bearerToken(webhook: IncomingWebhook): string | undefined {
  return parseBearer(header(webhook, 'authorization'));
}

/** The check used by senders that cannot sign: the secret itself travels as a bearer token. */
export function verifyBearer(source: string, webhook: IncomingWebhook, secrets: readonly string[]): VerifyResult {
  const usable = usableSecrets(secrets);
  if (usable.length === 0) return noSecretConfigured(source);
  const token = bearerToken(webhook);
  if (token === undefined) return rejected('Missing "Authorization: Bearer <token>" header.');
  return matchesAnyToken(usable, token) ? VERIFIED : rejected('The bearer token does not match any configured secret.');
}
