import { Router, type RequestHandler } from 'express';
import { ConflictError, InputError, NotFoundError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import type { DashboardResource, DashboardWriteReply } from '../../common/dashboard-contract.js';
import type { DashboardPage, DashboardStore, DashboardWrite } from './store.js';
import { parseCreate, parseUpdate } from './validation.js';

/** Paging of the list: the hosted service's parameters, with a bound so one reply stays small. */
export const DASHBOARD_PAGING = { defaultLimit: 100, maxLimit: 1000 } as const;

/**
 * `GET /v2/dashboards` and `GET /v2/dashboards/uid/{uid}` as `@axiomhq/js`'s `dashboards`
 * service reads them. Create, update and delete take the hosted service's upsert request
 * (`{dashboard, uid?, version?, overwrite?}`) and answer `{dashboard: <resource>}`; an update
 * must carry the version it read, and a stale one is a 409.
 */
export function createDashboardRoutes(deps: { store: DashboardStore; clock: () => number; who: string; json: RequestHandler }): Router {
  const { store, clock, who, json } = deps;
  const router = Router();

  router
    .route('/v2/dashboards')
    .get((req, res) => {
      res.json(store.list(parsePage(req.originalUrl)));
    })
    .post(json, (req, res) => {
      const input = parseCreate(req.body);
      const reply: DashboardWriteReply = { dashboard: expectWritten(store.create(input, who, clock()), input.uid ?? '') };
      res.status(201).json(reply);
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/v2/dashboards/uid/:uid')
    .get((req, res) => {
      const dashboard = store.get(req.params.uid);
      if (!dashboard) throw notFound(req.params.uid);
      res.json(dashboard);
    })
    .put(json, (req, res) => {
      const input = parseUpdate(req.body, req.params.uid);
      const reply: DashboardWriteReply = { dashboard: expectWritten(store.update(req.params.uid, input, who, clock()), req.params.uid) };
      res.json(reply);
    })
    .delete((req, res) => {
      if (!store.delete(req.params.uid)) throw notFound(req.params.uid);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}

function expectWritten(write: DashboardWrite, uid: string): DashboardResource {
  switch (write.outcome) {
    case 'written':
      return write.dashboard;
    case 'missing':
      throw notFound(uid);
    case 'exists':
      throw new ConflictError(`Dashboard ${JSON.stringify(uid)} already exists. Expected a new uid, or "overwrite": true to replace it.`);
    case 'stale':
      throw new ConflictError(
        `Dashboard ${JSON.stringify(uid)} is at version ${write.currentVersion}, not the version this update is based on. Expected the current version: read the dashboard again and reapply the change.`,
      );
  }
}

function notFound(uid: string): NotFoundError {
  return new NotFoundError(`Dashboard ${JSON.stringify(uid)} not found.`);
}

export function parsePage(originalUrl: string): DashboardPage {
  const queryStart = originalUrl.indexOf('?');
  const params = new URLSearchParams(queryStart === -1 ? '' : originalUrl.slice(queryStart + 1));
  return {
    limit: integerParam(params.get('limit'), 'limit', 1, DASHBOARD_PAGING.maxLimit) ?? DASHBOARD_PAGING.defaultLimit,
    offset: integerParam(params.get('offset'), 'offset', 0) ?? 0,
  };
}

function integerParam(value: string | null, name: string, min: number, max?: number): number | undefined {
  if (value === null || value === '') return undefined;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || (max !== undefined && number > max)) {
    const expected = max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
    throw new InputError(`Invalid ${name} ${JSON.stringify(value)}. Expected ${expected}.`);
  }
  return number;
}
