import { Router } from 'express';
import type { Registry } from 'prom-client';
import { withDeadline } from '../deadline.js';
import { methodNotAllowed } from './error-reply.js';

/**
 * Readiness checks by name (`store`, `service`, …): each resolves when its part can serve and
 * throws, with a sentence saying why, when it cannot.
 */
export type ReadinessChecks = Readonly<Record<string, () => unknown>>;

/** A check that takes longer than this fails: probes have short deadlines of their own. */
const CHECK_DEADLINE_MS = 3_000;

/**
 * The operations routes, the same in every process part: `GET /healthz` (the process answers),
 * `GET /readyz` (every readiness check passes: 200, else 503 with the failing checks' reasons)
 * and `GET /metrics` (Prometheus text). None needs a token: they carry no data.
 *
 * `dependencies` are systems the part talks to but does not need in order to take traffic (the
 * bridge records deliveries while the annotation service is down): their state is shown under
 * `dependencies` and never makes the part unready, so a load balancer does not turn senders
 * away because of an outage the part is built to ride out.
 */
export function createOpsRoutes(options: { readiness: ReadinessChecks; dependencies?: ReadinessChecks; registry: Registry }): Router {
  const router = Router();
  router
    .route('/healthz')
    .get((_req, res) => {
      res.json({ status: 'ok' });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/readyz')
    .get(async (_req, res) => {
      const [checks, dependencies] = await Promise.all([runChecks(options.readiness), runChecks(options.dependencies ?? {})]);
      const ready = Object.values(checks).every((outcome) => outcome === 'ok');
      res
        .status(ready ? 200 : 503)
        .json({ status: ready ? 'ready' : 'not ready', checks, ...(options.dependencies === undefined ? {} : { dependencies }) });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/metrics')
    .get(async (_req, res) => {
      res.type(options.registry.contentType).send(await options.registry.metrics());
    })
    .all(methodNotAllowed(['GET']));
  return router;
}

async function runChecks(checks: ReadinessChecks): Promise<Record<string, string>> {
  const names = Object.keys(checks);
  const outcomes = await Promise.all(names.map((name) => runCheck(checks[name] as () => unknown)));
  return Object.fromEntries(names.map((name, index) => [name, outcomes[index] as string]));
}

async function runCheck(check: () => unknown): Promise<string> {
  try {
    await withDeadline(Promise.resolve().then(check), CHECK_DEADLINE_MS, () => new Error(`no answer within ${CHECK_DEADLINE_MS} ms`));
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
