import type { RequestHandler } from 'express';
import { createTokenMatcher } from '../common/token-matcher.js';
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

/** Bearer-token authentication, compared in constant time (see createTokenMatcher). */
export function createTokenAuth(options: { tokens: readonly string[]; orgId: string }): RequestHandler {
  const matchToken = createTokenMatcher(options.tokens);
  const personal = options.tokens.map((token) => token.startsWith(PERSONAL_TOKEN_PREFIX));

  return (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      sendError(res, 401, 'Missing or malformed Authorization header. Expected "Authorization: Bearer <token>".');
      return;
    }
    const index = matchToken(match[1]);
    if (index === -1) {
      sendError(res, 401, 'Invalid token. Expected an API token (xaat-…) or a personal token (xapt-…) known to this service.');
      return;
    }
    if (personal[index]) {
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
