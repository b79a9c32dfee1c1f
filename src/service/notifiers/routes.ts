import { Router, type RequestHandler } from 'express';
import { NotFoundError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import type { MonitorRuntime } from '../monitors/runtime.js';
import { toWireNotifier } from './store.js';
import { parseNotifier } from './validation.js';

/** `/v2/notifiers` with custom webhook notifiers, in the hosted service's shape (header values masked). */
export function createNotifierRoutes(deps: { runtime: MonitorRuntime; json: RequestHandler; who: string }): Router {
  const { runtime, json, who } = deps;
  const router = Router();

  router
    .route('/v2/notifiers')
    .get((_req, res) => {
      res.json(runtime.listNotifiers().map(toWireNotifier));
    })
    .post(json, (req, res) => {
      res.json(toWireNotifier(runtime.createNotifier(parseNotifier(req.body), who)));
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/v2/notifiers/:id')
    .get((req, res) => {
      res.json(toWireNotifier(runtime.getNotifier(req.params.id) ?? notFound(req.params.id)));
    })
    .put(json, (req, res) => {
      const notifier = runtime.updateNotifier(req.params.id, parseNotifier(req.body)) ?? notFound(req.params.id);
      res.json(toWireNotifier(notifier));
    })
    .delete((req, res) => {
      if (!runtime.deleteNotifier(req.params.id)) notFound(req.params.id);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}

function notFound(id: string): never {
  throw new NotFoundError(`Notifier ${JSON.stringify(id)} not found.`);
}
