import type { RequestHandler, Response } from 'express';
import { AuthenticationError, ConfigError, PermissionError } from '../common/errors.js';
import { parseBearer } from '../common/http/bearer.js';
import { formatTime } from '../common/time.js';
import { createTokenMatcher } from '../common/token-matcher.js';
import { ROOT, type Principal } from './access/capabilities.js';
import type { TokenStore } from './access/token-store.js';
import { LOCAL_USER } from './users/local-user.js';

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

/**
 * What a personal token may ask without naming an organization, as the hosted service allows and
 * axiom-go does (it drops X-Axiom-Org-Id for these): who am I, and which organizations may I use.
 */
const ORG_FREE_ROUTES: ReadonlySet<string> = new Set(['GET /v2/user', 'GET /v2/orgs']);

/** The principal authentication left on `res.locals` for the access gate and the routes. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new Error('A route ran before authentication set its principal.');
  return principal;
}

/** Who a principal is in a record's `who`: the local user, or the API token's id. */
export function actorOf(principal: Principal): string {
  return principal.kind === 'root' ? LOCAL_USER.id : principal.id;
}

/**
 * Bearer-token authentication, compared in constant time (see createTokenMatcher). A token
 * given at start-up is all-powerful (`ROOT`); an API token made with `/v2/tokens` holds only
 * its capabilities, and is refused once it expired or was deleted.
 */
export function createTokenAuth(options: { tokens: readonly string[]; orgId: string; apiTokens: TokenStore; clock: () => number }): RequestHandler {
  const matchToken = createTokenMatcher(options.tokens);
  const personal = options.tokens.map((token) => token.startsWith(PERSONAL_TOKEN_PREFIX));

  return (req, res, next) => {
    const token = parseBearer(req.get('authorization'));
    if (token === undefined) {
      throw new AuthenticationError('Missing or malformed Authorization header. Expected "Authorization: Bearer <token>".');
    }
    const index = matchToken(token);
    if (index === -1) {
      const stored = options.apiTokens.find(token);
      if (!stored) {
        throw new AuthenticationError('Invalid token. Expected an API token (xaat-…) or a personal token (xapt-…) known to this service.');
      }
      if (stored.expiresMs !== undefined && options.clock() >= stored.expiresMs) {
        throw new AuthenticationError(`The API token ${stored.id} expired at ${formatTime(stored.expiresMs)}. Expected a token that has not expired; regenerate it or make a new one.`);
      }
      res.locals.principal = { kind: 'token', id: stored.id, capabilities: stored.capabilities } satisfies Principal;
      next();
      return;
    }
    if (personal[index]) {
      const orgId = req.get('x-axiom-org-id');
      if (!orgId && ORG_FREE_ROUTES.has(`${req.method} ${req.baseUrl}${req.path}`)) {
        res.locals.principal = ROOT;
        next();
        return;
      }
      if (!orgId) {
        throw new AuthenticationError('A personal token (xapt-…) needs the X-Axiom-Org-Id header. Expected the organization id of this service.');
      }
      if (orgId !== options.orgId) {
        throw new PermissionError(`Organization ${JSON.stringify(orgId)} is not served here. Expected X-Axiom-Org-Id: ${options.orgId}.`);
      }
    }
    res.locals.principal = ROOT;
    next();
  };
}
