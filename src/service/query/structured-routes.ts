import { Router, type Request, type Response } from 'express';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { jsonBody } from '../../common/http/json-body.js';
import { runStructured, type StructuredDeps } from '../../engine/query/run-structured.js';
import { parseStructuredQuery } from '../../engine/structured/request.js';
import type { EventReader } from '../../engine/store/types.js';
import type { Principal } from '../access/capabilities.js';
import { actorOf, principalOf } from '../auth.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { HISTORY_ID_HEADER, parseSaveAsKind, type QueryHistory } from './history.js';
import { QUERY_BODY_LIMIT_BYTES, answerQuery } from './answer-query.js';

export interface StructuredRouteDeps {
  /** The store as the request's principal may query it (see query-reader.ts). */
  readers: (principal: Principal) => EventReader;
  history: QueryHistory;
  metrics: ServiceMetrics;
  clock: () => number;
  limits?: StructuredDeps['limits'];
}

/**
 * `POST /v1/datasets/{dataset}/query`: the structured query (the seed's 4.8), as `@axiomhq/js`
 * `queryLegacy()` and the Go client's `QueryLegacy` send it. The query parameters
 * `streaming-duration` and `nocache` are accepted and have no local meaning; with `saveAsKind`
 * (`analytics` or `stream`, as the clients send it), the query is kept in the history and its id
 * sent back in `X-Axiom-History-Query-Id`. A client that goes away cancels its query.
 */
export function createStructuredQueryRoutes(deps: StructuredRouteDeps): Router {
  const router = Router();
  const json = jsonBody({ limitBytes: QUERY_BODY_LIMIT_BYTES });
  const query = async (req: Request<{ dataset: string }>, res: Response): Promise<void> => {
    const started = process.hrtime.bigint();
    const saveAs = parseSaveAsKind(req.query.saveAsKind, ['analytics', 'stream']);
    const structured = parseStructuredQuery(req.body);
    const principal = principalOf(res);
    await answerQuery(res, deps.metrics, { kind: 'structured', started }, async (signal) => {
      const { dataset } = req.params;
      const { result } = await runStructured(dataset, structured, { reader: deps.readers(principal), signal, ...(deps.limits ? { limits: deps.limits } : {}) });
      if (saveAs) res.setHeader(HISTORY_ID_HEADER, deps.history.save({ kind: saveAs, dataset, who: actorOf(principal), query: req.body }, deps.clock()));
      return result;
    });
  };
  router.route('/v1/datasets/:dataset/query').post(json, query).all(methodNotAllowed(['POST']));
  return router;
}
