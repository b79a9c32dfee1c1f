import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { sendError } from './http-errors.js';

export const API_TOKEN_PREFIX = 'xaat-';
export const PERSONAL_TOKEN_PREFIX = 'xapt-';

export class TokenConfigError extends Error {
  readonly code = 'invalid_token_config';
}

/** Checks that a configured token has a known prefix; the message never repeats the token. */
export function assertTokenShape(token: string, position: number): void {
  if (!token.startsWith(API_TOKEN_PREFIX) && !token.startsWith(PERSONAL_TOKEN_PREFIX)) {
    throw new TokenConfigError(
      `Token number ${position} does not start with ${API_TOKEN_PREFIX} or ${PERSONAL_TOKEN_PREFIX}. Expected an API token (${API_TOKEN_PREFIX}…) or a personal token (${PERSONAL_TOKEN_PREFIX}…).`,
    );
  }
  if (token.length < PERSONAL_TOKEN_PREFIX.length + 16) {
    throw new TokenConfigError(`Token number ${position} is too short. Expected at least 16 characters after the prefix.`);
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * Bearer-token authentication. Tokens are compared as SHA-256 digests with timingSafeEqual
 * against every configured token, without an early exit, so the time taken says nothing about
 * which token matched or how much of one did.
 */
export function createTokenAuth(options: { tokens: readonly string[]; orgId: string }): RequestHandler {
  const known = options.tokens.map((token) => ({ digest: digest(token), personal: token.startsWith(PERSONAL_TOKEN_PREFIX) }));

  return (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      sendError(res, 401, 'Missing or malformed Authorization header. Expected "Authorization: Bearer <token>".');
      return;
    }
    const presented = digest(match[1]);
    let matched: (typeof known)[number] | undefined;
    for (const candidate of known) {
      if (timingSafeEqual(candidate.digest, presented) && !matched) matched = candidate;
    }
    if (!matched) {
      sendError(res, 401, 'Invalid token. Expected an API token (xaat-…) or a personal token (xapt-…) known to this service.');
      return;
    }
    if (matched.personal) {
      const orgId = req.get('x-axiom-org-id');
      if (!orgId) {
        sendError(res, 401, 'A personal token (xapt-…) needs the X-Axiom-Org-Id header. Expected the organization id of this service.');
        return;
      }
      if (orgId !== options.orgId) {
        sendError(res, 403, `Organization ${JSON.stringify(orgId)} is not served here. Expected X-Axiom-Org-Id: ${options.orgId}.`);
        return;
      }
    }
    next();
  };
}
