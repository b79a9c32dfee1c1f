import { Router, type Request, type Response } from 'express';
import { InputError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { jsonBody } from '../../common/http/json-body.js';
import type { QueryLimits, ResultFormat } from '../../engine/query/execute.js';
import { runApl } from '../../engine/query/run-apl.js';
import type { EventReader } from '../../engine/store/types.js';
import type { Principal } from '../access/capabilities.js';
import { actorOf, principalOf } from '../auth.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { HISTORY_ID_HEADER, parseSaveAsKind, type QueryHistory } from './history.js';
import { QUERY_BODY_LIMIT_BYTES, answerQuery } from './answer-query.js';

export interface AplRouteDeps {
  /** The store as the request's principal may query it (see query-reader.ts). */
  readers: (principal: Principal) => EventReader;
  history: QueryHistory;
  metrics: ServiceMetrics;
  clock: () => number;
  limits?: Partial<QueryLimits>;
}

const FORMATS: readonly ResultFormat[] = ['tabular', 'legacy'];

/**
 * `POST /v1/datasets/_apl?format=tabular|legacy` and `POST /v1/query/_apl` (the edge path of
 * `@axiomhq/js`). The body is `{apl, startTime?, endTime?}`; `cursor`, `includeCursor`,
 * `variables` and `queryOptions`, and the query parameters `nocache`, `streaming-duration` and
 * `cursor`, are accepted and have no local meaning. With `saveAsKind`, the query is kept in the
 * history (under `dataset_name`, or the dataset it reads) and its id sent back in
 * `X-Axiom-History-Query-Id`. A client that goes away cancels its query.
 */
export function createAplRoutes(deps: AplRouteDeps): Router {
  const router = Router();
  const json = jsonBody({ limitBytes: QUERY_BODY_LIMIT_BYTES });
  const query = async (req: Request, res: Response): Promise<void> => {
    const started = process.hrtime.bigint();
    const format = parseFormat(req.query.format);
    const saveAs = parseSaveAsKind(req.query.saveAsKind, ['apl', 'analytics', 'stream']);
    const principal = principalOf(res);
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new InputError('The request body must be a JSON object such as {"apl": "[\'my-dataset\'] | take 10", "startTime": "now-1h"}.');
    }
    const { apl, startTime, endTime } = body as Record<string, unknown>;
    if (typeof apl !== 'string') {
      throw new InputError(`Invalid apl ${apl === undefined ? '(missing)' : JSON.stringify(apl)}. Expected the query text as a string.`);
    }
    for (const [name, value] of [['startTime', startTime], ['endTime', endTime]] as const) {
      if (value !== undefined && value !== null && typeof value !== 'string') {
        throw new InputError(`Invalid ${name} ${JSON.stringify(value)}. Expected an RFC 3339 time such as 2024-01-15T14:00:00Z, or now-1h.`);
      }
    }
    await answerQuery(res, deps.metrics, { kind: 'apl', started }, async (signal) => {
      const request = { apl, format, ...(typeof startTime === 'string' ? { startTime } : {}), ...(typeof endTime === 'string' ? { endTime } : {}) };
      const { result, dataset } = await runApl(request, { reader: deps.readers(principal), signal, ...(deps.limits ? { limits: deps.limits } : {}) });
      if (saveAs) {
        const named = Array.isArray(req.query.dataset_name) ? req.query.dataset_name[0] : req.query.dataset_name;
        const entry = { kind: 'apl' as const, dataset: typeof named === 'string' && named !== '' ? named : dataset, who: actorOf(principal), query: { apl, startTime, endTime } };
        res.setHeader(HISTORY_ID_HEADER, deps.history.save(entry, deps.clock()));
      }
      return result;
    });
  };
  for (const path of ['/v1/datasets/_apl', '/v1/query/_apl']) {
    router.route(path).post(json, query).all(methodNotAllowed(['POST']));
  }
  return router;
}

function parseFormat(value: unknown): ResultFormat {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === '') return 'tabular';
  if (typeof text === 'string' && (FORMATS as readonly string[]).includes(text)) return text as ResultFormat;
  throw new InputError(`Invalid format ${JSON.stringify(text)}. Expected tabular or legacy.`);
}
