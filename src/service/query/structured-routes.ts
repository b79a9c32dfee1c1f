import { Router, type Request, type Response } from 'express';
import { InputError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { jsonBody } from '../../common/http/json-body.js';
import { runStructured, type StructuredDeps } from '../../engine/query/run-structured.js';
import { parseStructuredQuery } from '../../engine/structured/request.js';
import type { EventReader } from '../../engine/store/types.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { QUERY_BODY_LIMIT_BYTES, answerQuery } from './answer-query.js';

export interface StructuredRouteDeps {
  events: EventReader;
  metrics: ServiceMetrics;
  limits?: StructuredDeps['limits'];
}

/** Kinds a query may be saved as; the Go client refuses to send `apl` here. */
const SAVE_KINDS: readonly string[] = ['analytics', 'stream'];

/**
 * `POST /v1/datasets/{dataset}/query`: the structured query (the seed's 4.8), as `@axiomhq/js`
 * `queryLegacy()` and the Go client's `QueryLegacy` send it. The query parameters
 * `streaming-duration`, `nocache` and `saveAsKind` are accepted and have no local meaning (this
 * service keeps no query history); a client that goes away cancels its query.
 */
export function createStructuredQueryRoutes(deps: StructuredRouteDeps): Router {
  const router = Router();
  const json = jsonBody({ limitBytes: QUERY_BODY_LIMIT_BYTES });
  const query = async (req: Request<{ dataset: string }>, res: Response): Promise<void> => {
    const started = process.hrtime.bigint();
    const saveAs = Array.isArray(req.query.saveAsKind) ? req.query.saveAsKind[0] : req.query.saveAsKind;
    if (saveAs !== undefined && saveAs !== '' && !SAVE_KINDS.includes(String(saveAs))) {
      throw new InputError(`Invalid saveAsKind ${JSON.stringify(saveAs)}. Expected analytics or stream.`);
    }
    const structured = parseStructuredQuery(req.body);
    await answerQuery(res, deps.metrics, { kind: 'structured', started }, async (signal) => {
      const { result } = await runStructured(req.params.dataset, structured, { reader: deps.events, signal, ...(deps.limits ? { limits: deps.limits } : {}) });
      return result;
    });
  };
  router.route('/v1/datasets/:dataset/query').post(json, query).all(methodNotAllowed(['POST']));
  return router;
}
