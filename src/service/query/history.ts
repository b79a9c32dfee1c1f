import { Router } from 'express';
import { InputError, NotFoundError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { previewJson } from '../../common/json-preview.js';
import { randomId } from '../../common/random-id.js';
import { formatTime } from '../../common/time.js';
import { requireAccess } from '../access/gate.js';
import { principalOf } from '../auth.js';
import type { ServiceDatabase } from '../database.js';

/** How many saved queries are kept; saving one more drops the oldest. */
export const HISTORY_LIMIT = 10_000;

/** The kinds a query is saved as: `apl` for APL queries, `analytics` or `stream` for structured ones. */
export type HistoryKind = 'apl' | 'analytics' | 'stream';

/** A saved query as `GET /v1/datasets/_history/{id}` answers it (the shape axiom-go's HistoryQuery read). */
export interface HistoryQuery {
  id: string;
  kind: HistoryKind;
  dataset: string;
  who: string;
  query: unknown;
  created: string;
}

export interface QueryHistory {
  /** Keeps a query the client asked to save (`saveAsKind`) and returns its id, for `X-Axiom-History-Query-Id`. */
  save(entry: { kind: HistoryKind; dataset: string; who: string; query: unknown }, nowMs: number): string;
  get(id: string): HistoryQuery | undefined;
}

interface Row {
  id: string;
  kind: HistoryKind;
  dataset: string;
  query: string;
  who: string;
  created_ms: number;
}

/** The query history in the service's SQLite file, bounded to the newest HISTORY_LIMIT entries. */
export function createQueryHistory(db: ServiceDatabase): QueryHistory {
  const insert = db.prepare('INSERT INTO query_history (id, kind, dataset, query, who, created_ms) VALUES (?, ?, ?, ?, ?, ?)');
  const prune = db.prepare<[number]>('DELETE FROM query_history WHERE seq <= (SELECT max(seq) FROM query_history) - ?');
  const select = db.prepare<[string], Row>('SELECT id, kind, dataset, query, who, created_ms FROM query_history WHERE id = ?');
  const save = db.transaction((row: Row) => {
    insert.run(row.id, row.kind, row.dataset, row.query, row.who, row.created_ms);
    prune.run(HISTORY_LIMIT);
  });
  return {
    save: (entry, nowMs) => {
      // Eighteen characters, as the hosted ids are (`GHP2ufS7OYwMeBhXHj`).
      const id = randomId('', 18);
      save({ id, kind: entry.kind, dataset: entry.dataset, query: JSON.stringify(entry.query), who: entry.who, created_ms: nowMs });
      return id;
    },
    get: (id) => {
      const row = select.get(id);
      return row && { id: row.id, kind: row.kind, dataset: row.dataset, who: row.who, query: JSON.parse(row.query) as unknown, created: formatTime(row.created_ms) };
    },
  };
}

/**
 * `GET /v1/datasets/_history/{id}`: a saved query, for whoever may query its dataset. The route
 * of the hosted API that axiom-go's `Datasets.History` read (the clients now only read the id).
 */
export function createHistoryRoutes(deps: { history: QueryHistory }): Router {
  const router = Router();
  router
    .route('/v1/datasets/_history/:id')
    .get((req, res) => {
      const entry = deps.history.get(req.params.id);
      if (!entry) throw new NotFoundError(`Saved query ${JSON.stringify(req.params.id)} not found.`);
      requireAccess(principalOf(res), { dataset: entry.dataset, capability: 'query', action: 'read' });
      res.json(entry);
    })
    .all(methodNotAllowed(['GET']));
  return router;
}

/** The header the clients read the saved query's id from. */
export const HISTORY_ID_HEADER = 'X-Axiom-History-Query-Id';

/**
 * The `saveAsKind` query parameter (the first, when repeated): undefined when absent or empty,
 * else one of `allowed` (the Go client refuses to send `apl` to the structured query).
 */
export function parseSaveAsKind(value: unknown, allowed: readonly HistoryKind[]): HistoryKind | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === '') return undefined;
  if (typeof text === 'string' && (allowed as readonly string[]).includes(text)) return text as HistoryKind;
  throw new InputError(`Invalid saveAsKind ${previewJson(text)}. Expected ${allowed.join(' or ')}.`);
}
