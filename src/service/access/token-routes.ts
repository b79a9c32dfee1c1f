import { Router, type RequestHandler } from 'express';
import { InputError, NotFoundError, PermissionError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { jsonObject } from '../../common/json-object.js';
import { previewJson } from '../../common/json-preview.js';
import { formatTime, parseWireTime } from '../../common/time.js';
import { principalOf } from '../auth.js';
import { covers, parseDatasetCapabilities, parseOrgCapabilities, type Principal } from './capabilities.js';
import type { TokenSpec, TokenStore } from './token-store.js';

export const TOKEN_LIMITS = { name: 256, description: 1024 } as const;

/**
 * `/v2/tokens`: API tokens as the hosted service (and `axiom-go`'s and `axiom-py`'s TokensService)
 * shape them. A token's value is in the reply to create and regenerate only. Regenerating
 * sets when the old token stops working (`existingTokenExpiresAt`, now or later) and makes a new
 * one, with a new id, from the old one's name and capabilities or from `newToken`.
 */
export function createTokenRoutes(deps: { store: TokenStore; clock: () => number; json: RequestHandler }): Router {
  const { store, clock, json } = deps;
  const router = Router();
  const existing = (id: string) => store.get(id) ?? notFound(id);

  router
    .route('/v2/tokens')
    .get((_req, res) => {
      res.json(store.list());
    })
    .post(json, (req, res) => {
      const spec = parseTokenSpec('The request body', req.body, clock());
      assertCovered(principalOf(res), spec);
      res.json(store.create(spec, clock()));
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/v2/tokens/:id')
    .get((req, res) => {
      res.json(existing(req.params.id));
    })
    .delete((req, res) => {
      if (!store.delete(req.params.id)) notFound(req.params.id);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'DELETE']));

  router
    .route('/v2/tokens/:id/regenerate')
    .post(json, (req, res) => {
      const nowMs = clock();
      const body = jsonObject('The request body', req.body);
      const existingExpiresMs = optionalTime('existingTokenExpiresAt', body.existingTokenExpiresAt);
      if (existingExpiresMs === undefined) {
        throw new InputError('Missing existingTokenExpiresAt. Expected the RFC 3339 time at which the existing token stops working, such as now.');
      }
      const old = store.spec(req.params.id) ?? notFound(req.params.id);
      const fromBody = body.newToken === undefined || body.newToken === null ? undefined : parseTokenSpec('newToken', body.newToken, nowMs);
      const newExpiresMs = optionalTime('newTokenExpiresAt', body.newTokenExpiresAt);
      if (newExpiresMs !== undefined && newExpiresMs <= nowMs) throw pastExpiry('newTokenExpiresAt', newExpiresMs);
      const replacement: TokenSpec = { ...(fromBody ?? old), expiresMs: newExpiresMs ?? fromBody?.expiresMs ?? old.expiresMs };
      assertCovered(principalOf(res), replacement);
      res.json(store.regenerate(req.params.id, Math.max(existingExpiresMs, 0), replacement, nowMs) ?? notFound(req.params.id));
    })
    .all(methodNotAllowed(['POST']));

  return router;
}

function notFound(id: string): never {
  throw new NotFoundError(`API token ${JSON.stringify(id)} not found.`);
}

/** A token can only hand out what it holds; tokens given at start-up hold everything. */
function assertCovered(principal: Principal, spec: TokenSpec): void {
  if (!covers(principal, spec.capabilities)) {
    throw new PermissionError('The new token would have capabilities this token lacks. Expected capabilities that this token holds itself.');
  }
}

/** A create request (`CreateTokenRequest` of the clients): `name`, and optionally `description`, `expiresAt` and the capabilities. */
export function parseTokenSpec(label: string, value: unknown, nowMs: number): TokenSpec {
  const body = jsonObject(label, value);
  const { name, description, expiresAt, datasetCapabilities, orgCapabilities, viewCapabilities } = body;
  if (typeof name !== 'string' || name.trim() === '' || name.length > TOKEN_LIMITS.name) {
    throw new InputError(`Invalid name ${previewJson(name ?? null)}. Expected a non-empty string of at most ${TOKEN_LIMITS.name} characters.`);
  }
  if (description !== undefined && description !== null && (typeof description !== 'string' || description.length > TOKEN_LIMITS.description)) {
    throw new InputError(`Invalid description ${previewJson(description)}. Expected a string of at most ${TOKEN_LIMITS.description} characters.`);
  }
  if (viewCapabilities !== undefined && viewCapabilities !== null && (typeof viewCapabilities !== 'object' || Object.keys(viewCapabilities).length > 0)) {
    throw new InputError(`Invalid viewCapabilities ${previewJson(viewCapabilities)}. This service has no views; expected none.`);
  }
  const expiresMs = optionalTime('expiresAt', expiresAt);
  if (expiresMs !== undefined && expiresMs <= nowMs) throw pastExpiry('expiresAt', expiresMs);
  return {
    name,
    description: typeof description === 'string' ? description : '',
    expiresMs,
    capabilities: {
      datasets: parseDatasetCapabilities('datasetCapabilities', datasetCapabilities),
      org: parseOrgCapabilities('orgCapabilities', orgCapabilities),
    },
  };
}

/** A time member: absent, null and the Go zero time mean "not set". */
function optionalTime(label: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InputError(`Invalid ${label} ${previewJson(value)}. Expected an RFC 3339 time such as 2030-01-01T00:00:00Z.`);
  return parseWireTime(label, value);
}

function pastExpiry(label: string, ms: number): InputError {
  return new InputError(`Invalid ${label} ${formatTime(ms)}: it has passed. Expected a time in the future, or none for a token that does not expire.`);
}
