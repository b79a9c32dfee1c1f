import type { RequestHandler } from 'express';
import { AuthenticationError, ConfigError, PermissionError } from '../common/errors.js';
import { parseBearer } from '../common/http/bearer.js';
import { createTokenMatcher } from '../common/token-matcher.js';

export const API_TOKEN_PREFIX = 'xaat-';
export const PERSONAL_TOKEN_PREFIX = 'xapt-';

/**
 * Says what is wrong with a token the service would accept, or undefined when it is well formed.
 * The sentence never repeats the token.
 */
export function tokenShapeProblem(token: string): string | undefined {
  if (!token.startsWith(API_TOKEN_PREFIX) && !token.startsWith(PERSONAL_TOKEN_PREFIX)) {
    return `does not start with ${API_TOKEN_PREFIX} or ${PERSONAL_TOKEN_PREFIX}. Expected an API token (${API_TOKEN_PREFIX}…) or a personal token (${PERSONAL_TOKEN_PREFIX}…)`;
  }
  if (token.length < PERSONAL_TOKEN_PREFIX.length + 16 || /\s/.test(token)) {
    return 'is too short or has spaces. Expected at least 16 characters after the prefix and no spaces';
  }
  return undefined;
}

/** Checks the configured tokens; `label` names where they came from (`--token`, `TIMEMARK_TOKENS`). */
export function assertTokenShapes(tokens: readonly string[], label: string): void {
  tokens.forEach((token, index) => {
    const problem = tokenShapeProblem(token);
    if (problem !== undefined) throw new ConfigError(`Token number ${index + 1} in ${label} ${problem}.`);
  });
}

/** Bearer-token authentication, compared in constant time (see createTokenMatcher). */
export function createTokenAuth(options: { tokens: readonly string[]; orgId: string }): RequestHandler {
  const matchToken = createTokenMatcher(options.tokens);
  const personal = options.tokens.map((token) => token.startsWith(PERSONAL_TOKEN_PREFIX));

  return (req, _res, next) => {
    const token = parseBearer(req.get('authorization'));
    if (token === undefined) {
      throw new AuthenticationError('Missing or malformed Authorization header. Expected "Authorization: Bearer <token>".');
    }
    const index = matchToken(token);
    if (index === -1) {
      throw new AuthenticationError('Invalid token. Expected an API token (xaat-…) or a personal token (xapt-…) known to this service.');
    }
    if (personal[index]) {
      const orgId = req.get('x-axiom-org-id');
      if (!orgId) {
        throw new AuthenticationError('A personal token (xapt-…) needs the X-Axiom-Org-Id header. Expected the organization id of this service.');
      }
      if (orgId !== options.orgId) {
        throw new PermissionError(`Organization ${JSON.stringify(orgId)} is not served here. Expected X-Axiom-Org-Id: ${options.orgId}.`);
      }
    }
    next();
  };
}
