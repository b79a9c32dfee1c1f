/** Operator routes: the dead letters and the outbox, behind a bearer admin token. */
import express, { type RequestHandler, type Router } from 'express';
import { AuthenticationError, NotFoundError } from '../../../src/common/errors.js';
import { parseBearer } from '../../../src/common/http/bearer.js';
import { replyJson } from '../../../src/common/http/error-reply.js';
import { createTokenMatcher } from '../../../src/common/token-matcher.js';
import type { BridgeStore, EpisodeRow } from '../store/types.js';

export function createAdminRoutes(deps: { store: BridgeStore; adminToken: string; onRetry: () => void; now: () => number }): Router {
  const router = express.Router();
  router.use('/admin', requireToken(deps.adminToken));

  router.get('/admin/outbox', async (_req, res) => {
    res.json(await deps.store.counts());
  });

  router.get('/admin/dead-letters', async (req, res) => {
    const limit = Math.min(1000, Math.max(1, Number(req.query.limit) || 100));
    res.json({ deadLetters: (await deps.store.deadLetters(limit)).map(describeEpisode) });
  });

  router.post('/admin/dead-letters/:id/retry', async (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id) || !(await deps.store.retryDeadLetter(id, deps.now()))) {
      throw new NotFoundError(`Dead letter ${JSON.stringify(req.params.id)} not found. GET /admin/dead-letters lists them.`);
    }
    deps.onRetry();
    replyJson(res, 200, `Dead letter ${id} is queued again.`, { id });
  });
  return router;
}

export function describeEpisode(episode: EpisodeRow): Record<string, unknown> {
  return {
    id: episode.id,
    source: episode.source,
    correlationKey: episode.correlationKey,
    episode: episode.seq,
    status: episode.status,
    attempts: episode.attempts,
    lastError: episode.lastError,
    annotationId: episode.annotationId,
    title: episode.state.title.value,
    startedAt: episode.state.startedAt === undefined ? null : new Date(episode.state.startedAt).toISOString(),
    endedAt: episode.state.endedAt === undefined ? null : new Date(episode.state.endedAt).toISOString(),
    outcome: episode.state.outcome ?? null,
    changedAt: new Date(episode.changedAt).toISOString(),
  };
}

function requireToken(token: string): RequestHandler {
  const matchToken = createTokenMatcher([token]);
  return (req, _res, next) => {
    const presented = parseBearer(req.get('authorization'));
    if (presented === undefined || matchToken(presented) === -1) {
      throw new AuthenticationError('The admin routes need Authorization: Bearer <admin token> (TIMEMARK_BRIDGE_ADMIN_TOKEN).', { challenge: 'Bearer' });
    }
    next();
  };
}
