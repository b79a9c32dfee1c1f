import { Router } from 'express';
import { NotFoundError, PermissionError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { formatTime } from '../../common/time.js';
import { LOCAL_USER } from './local-user.js';

const ONE_USER = 'This local service has exactly one user and one organization; they cannot be created, changed or removed.';

/**
 * `/v2/user`, `/v2/users` and `/v2/orgs`: one user and one organization, in the hosted shapes the
 * clients decode (`axiom-go`'s `User` and `Organization`, `axiom-py`'s `User`, `@axiomhq/js`'s
 * `users.User`). Writes answer 403, as the hosted service answers a token without the capability.
 */
export function createUserRoutes(deps: { orgId: string; createdMs: number }): Router {
  const router = Router();
  const refuse = (): never => {
    throw new PermissionError(ONE_USER);
  };
  const org = organization(deps.orgId, deps.createdMs);

  router.route('/v2/user').get((_req, res) => res.json(LOCAL_USER)).put(refuse).all(methodNotAllowed(['GET', 'PUT']));
  // The older spelling (the v1 API reference): the role is a name, with the user's permissions beside it.
  router
    .route('/v1/user')
    .get((_req, res) => res.json({ id: LOCAL_USER.id, name: LOCAL_USER.name, email: LOCAL_USER.email, role: LOCAL_USER.role.id, permissions: [] }))
    .all(methodNotAllowed(['GET']));
  router.route('/v2/users').get((_req, res) => res.json([LOCAL_USER])).post(refuse).all(methodNotAllowed(['GET', 'POST']));
  router
    .route('/v2/users/:id')
    .get((req, res) => {
      if (req.params.id !== LOCAL_USER.id) throw new NotFoundError(`User ${JSON.stringify(req.params.id)} not found. This service's one user is ${JSON.stringify(LOCAL_USER.id)}.`);
      res.json(LOCAL_USER);
    })
    .put(refuse)
    .delete(refuse)
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));
  router.route('/v2/users/:id/role').put(refuse).all(methodNotAllowed(['PUT']));

  router.route('/v2/orgs').get((_req, res) => res.json([org])).post(refuse).all(methodNotAllowed(['GET', 'POST']));
  router
    .route('/v2/orgs/:id')
    .get((req, res) => {
      if (req.params.id !== deps.orgId) throw new NotFoundError(`Organization ${JSON.stringify(req.params.id)} not found. This service's organization is ${JSON.stringify(deps.orgId)}.`);
      res.json(org);
    })
    .put(refuse)
    .all(methodNotAllowed(['GET', 'PUT']));
  return router;
}

/**
 * The local organization. Its license states no limits a client would act on (0 = none, as the
 * hosted service writes unlimited), and its payment status is `na`: nothing is billed here.
 */
function organization(id: string, createdMs: number) {
  const created = formatTime(createdMs);
  return {
    id,
    name: 'Timemark local',
    slug: id,
    plan: 'personal',
    planCreated: created,
    lastUsageSync: created,
    role: LOCAL_USER.role.id,
    primaryEmail: LOCAL_USER.email,
    paymentStatus: 'na',
    metaCreated: created,
    metaModified: created,
    license: {
      id: `local-${id}`,
      tier: 'personal',
      issuer: 'timemark',
      issuedTo: id,
      issuedAt: created,
      validFrom: created,
      monthlyIngestGb: 0,
      monthlyQueryGbHours: 0,
      apiRateLimitPerSecond: 0,
      maxUsers: 1,
      maxDatasets: 0,
      maxMonitors: 0,
      maxFields: 1024,
      maxEndpoints: 0,
      maxQueryWindowSeconds: 0,
      maxAuditWindowSeconds: 0,
      withRBAC: false,
      withAuths: ['token'],
      features: {},
    },
  };
}
