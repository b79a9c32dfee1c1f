import { Router, type RequestHandler } from 'express';
import { NotFoundError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import type { MonitorRuntime } from './runtime.js';
import { toWireMonitor } from './store.js';
import { parseMonitorDefinition } from './validation.js';

/**
 * `/v2/monitors` as `@axiomhq/js` 2.0.0's `client.monitors` calls it (create and update answer
 * 200 with the whole monitor, delete 204), plus the local extension `POST /v2/monitors/{id}/run`,
 * which evaluates a monitor at once and answers what the evaluation did.
 */
export function createMonitorRoutes(deps: { runtime: MonitorRuntime; json: RequestHandler; who: string }): Router {
  const { runtime, json, who } = deps;
  const router = Router();

  router
    .route('/v2/monitors')
    .get((_req, res) => {
      res.json(runtime.listMonitors().map(toWireMonitor));
    })
    .post(json, async (req, res) => {
      const monitor = await runtime.createMonitor(parseMonitorDefinition(req.body), who);
      res.json(toWireMonitor(monitor));
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/v2/monitors/:id')
    .get((req, res) => {
      const monitor = runtime.getMonitor(req.params.id) ?? notFound(req.params.id);
      res.json(toWireMonitor(monitor));
    })
    .put(json, async (req, res) => {
      const monitor = (await runtime.updateMonitor(req.params.id, parseMonitorDefinition(req.body))) ?? notFound(req.params.id);
      res.json(toWireMonitor(monitor));
    })
    .delete((req, res) => {
      if (!runtime.deleteMonitor(req.params.id)) notFound(req.params.id);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  router
    .route('/v2/monitors/:id/run')
    .post(async (req, res) => {
      res.json((await runtime.runMonitor(req.params.id)) ?? notFound(req.params.id));
    })
    .all(methodNotAllowed(['POST']));

  return router;
}

function notFound(id: string): never {
  throw new NotFoundError(`Monitor ${JSON.stringify(id)} not found.`);
}
