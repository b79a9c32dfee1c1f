/**
 * The capability each route needs, as one table: the matrix docs/tokens.md shows and
 * test/service/token-capabilities.test.ts checks route by route. Tokens given at start-up pass
 * everywhere; an API token passes only where its capabilities allow, and is refused with 403
 * on any route this table does not list (so a route added without a rule is closed, not open).
 */
import { Router, type Request } from 'express';
import { PermissionError } from '../../common/errors.js';
import { principalOf } from '../auth.js';
import { otlpDataset } from '../otel/routes.js';
import { allows, describeNeed, type Action, type DatasetCapability, type Need, type OrgCapability } from './capabilities.js';

/** What a route needs: an org capability, a capability on the dataset the request names, or a check the route makes itself. */
export type Requirement =
  | { readonly org: OrgCapability; readonly action: Action }
  | { readonly dataset: (req: Request) => string | undefined; readonly capability: DatasetCapability; readonly action: Action }
  /** Any valid token: what every token can read about itself (user, org). */
  | 'any-token'
  /** The route checks with `requireAccess` once it knows the dataset (APL queries, virtual fields, history). */
  | 'checked-by-route';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const param = (name: string) => (req: Request): string | undefined => {
  const value: unknown = req.params[name];
  return typeof value === 'string' ? value : undefined;
};

const org = (capability: OrgCapability, action: Action): Requirement => ({ org: capability, action });
const onDataset = (dataset: (req: Request) => string | undefined, capability: DatasetCapability, action: Action): Requirement => ({ dataset, capability, action });

/** Every API route and what it needs. */
export const ACCESS_RULES: ReadonlyArray<readonly [Method, string, Requirement]> = [
  ['GET', '/v2/annotations', org('annotations', 'read')],
  ['POST', '/v2/annotations', org('annotations', 'create')],
  ['GET', '/v2/annotations/:id', org('annotations', 'read')],
  ['PUT', '/v2/annotations/:id', org('annotations', 'update')],
  ['DELETE', '/v2/annotations/:id', org('annotations', 'delete')],

  ['POST', '/v1/datasets/_apl', 'checked-by-route'],
  ['POST', '/v1/query/_apl', 'checked-by-route'],
  ['GET', '/v1/datasets/_history/:id', 'checked-by-route'],
  ...(['/v1', '/v2'] as const).flatMap((version): Array<readonly [Method, string, Requirement]> => [
    ['GET', `${version}/datasets`, org('datasets', 'read')],
    ['POST', `${version}/datasets`, org('datasets', 'create')],
    ['GET', `${version}/datasets/:id`, org('datasets', 'read')],
    ['PUT', `${version}/datasets/:id`, org('datasets', 'update')],
    ['DELETE', `${version}/datasets/:id`, org('datasets', 'delete')],
    ['POST', `${version}/datasets/:id/trim`, onDataset(param('id'), 'trim', 'update')],
  ]),
  ['GET', '/v2/datasets/:id/fields', onDataset(param('id'), 'query', 'read')],
  ['GET', '/v2/datasets/:id/mapfields', org('datasets', 'read')],
  ['POST', '/v2/datasets/:id/mapfields', org('datasets', 'update')],
  ['PUT', '/v2/datasets/:id/mapfields', org('datasets', 'update')],
  ['DELETE', '/v2/datasets/:id/mapfields/:name', org('datasets', 'update')],
  ['POST', '/v1/datasets/:dataset/ingest', onDataset(param('dataset'), 'ingest', 'create')],
  ['POST', '/v1/ingest/:dataset', onDataset(param('dataset'), 'ingest', 'create')],
  ['POST', '/v1/datasets/:dataset/query', onDataset(param('dataset'), 'query', 'read')],
  ['POST', '/v1/traces', onDataset(otlpDataset, 'ingest', 'create')],
  ['POST', '/v1/logs', onDataset(otlpDataset, 'ingest', 'create')],
  ['POST', '/v1/metrics', onDataset(otlpDataset, 'ingest', 'create')],

  ['GET', '/v2/vfields', 'checked-by-route'],
  ['POST', '/v2/vfields', 'checked-by-route'],
  ['GET', '/v2/vfields/:id', 'checked-by-route'],
  ['PUT', '/v2/vfields/:id', 'checked-by-route'],
  ['DELETE', '/v2/vfields/:id', 'checked-by-route'],

  ['GET', '/v2/tokens', org('apiTokens', 'read')],
  ['POST', '/v2/tokens', org('apiTokens', 'create')],
  ['GET', '/v2/tokens/:id', org('apiTokens', 'read')],
  ['DELETE', '/v2/tokens/:id', org('apiTokens', 'delete')],
  ['POST', '/v2/tokens/:id/regenerate', org('apiTokens', 'update')],

  ['GET', '/v1/user', 'any-token'],
  ['GET', '/v2/user', 'any-token'],
  ['GET', '/v2/users', org('users', 'read')],
  ['GET', '/v2/users/:id', org('users', 'read')],
  ['GET', '/v2/orgs', 'any-token'],
  ['GET', '/v2/orgs/:id', 'any-token'],

  ['GET', '/v2/monitors', org('monitors', 'read')],
  ['POST', '/v2/monitors', org('monitors', 'create')],
  ['GET', '/v2/monitors/:id', org('monitors', 'read')],
  ['PUT', '/v2/monitors/:id', org('monitors', 'update')],
  ['DELETE', '/v2/monitors/:id', org('monitors', 'delete')],
  ['POST', '/v2/monitors/:id/run', org('monitors', 'update')],
  ['GET', '/v2/notifiers', org('notifiers', 'read')],
  ['POST', '/v2/notifiers', org('notifiers', 'create')],
  ['GET', '/v2/notifiers/:id', org('notifiers', 'read')],
  ['PUT', '/v2/notifiers/:id', org('notifiers', 'update')],
  ['DELETE', '/v2/notifiers/:id', org('notifiers', 'delete')],
  ['GET', '/v2/dashboards', org('dashboards', 'read')],
  ['POST', '/v2/dashboards', org('dashboards', 'create')],
  ['GET', '/v2/dashboards/uid/:uid', org('dashboards', 'read')],
  ['PUT', '/v2/dashboards/uid/:uid', org('dashboards', 'update')],
  ['DELETE', '/v2/dashboards/uid/:uid', org('dashboards', 'delete')],
];

/** Throws the 403 unless the request's principal may do what `need` says. */
export function requireAccess(principal: ReturnType<typeof principalOf>, need: Need): void {
  if (!allows(principal, need)) throw new PermissionError(`This token lacks ${describeNeed(need)}. Expected a token whose capabilities include it.`);
}

/** The gate, mounted after authentication and before the routes. */
export function createAccessGate(): Router {
  const gate = Router();
  for (const [method, path, requirement] of ACCESS_RULES) {
    gate[method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'](path, (req, res, next) => {
      const principal = principalOf(res);
      if (typeof requirement === 'object') {
        if ('org' in requirement) requireAccess(principal, requirement);
        else {
          const dataset = requirement.dataset(req);
          // A request that names no dataset is the route's 400 to give.
          if (dataset !== undefined) requireAccess(principal, { dataset, capability: requirement.capability, action: requirement.action });
        }
      }
      next('router');
    });
  }
  gate.use(['/v1', '/v2'], (req, res, next) => {
    if (principalOf(res).kind === 'root') {
      next();
      return;
    }
    next(new PermissionError(`API tokens may not use ${req.method} ${req.baseUrl}${req.path}. Expected a route listed in docs/tokens.md.`));
  });
  return gate;
}
