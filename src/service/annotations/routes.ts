import { Router, type RequestHandler } from 'express';
import { ANNOTATION_LIMITS } from '../../common/annotation-contract.js';
import { InputError, NotFoundError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { parseWireTime } from '../../common/time.js';
import type { AnnotationQuery, AnnotationStore } from './store.js';
import { parseNewAnnotation, parsePatch } from './validation.js';

export function createAnnotationRoutes(deps: { store: AnnotationStore; clock: () => number; json: RequestHandler }): Router {
  const { store, clock, json } = deps;
  const router = Router();

  router
    .route('/v2/annotations')
    .get((req, res) => {
      res.json(store.list(parseListQuery(req.originalUrl)));
    })
    .post(json, (req, res) => {
      res.status(201).json(store.create(parseNewAnnotation(req.body), clock()));
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/v2/annotations/:id')
    .get((req, res) => {
      res.json(store.get(req.params.id) ?? notFound(req.params.id));
    })
    .put(json, (req, res) => {
      const patch = parsePatch(req.body, req.params.id);
      res.json(store.update(req.params.id, patch, clock()) ?? notFound(req.params.id));
    })
    .delete((req, res) => {
      if (!store.delete(req.params.id)) notFound(req.params.id);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}

function notFound(id: string): never {
  throw new NotFoundError(`Annotation ${JSON.stringify(id)} not found.`);
}

/**
 * Reads the list filters from the raw query string, because clients send them in several
 * shapes: `datasets=a,b`, `datasets=a&datasets=b`, and a Go client that repeats `start`
 * (the first one is the start).
 */
export function parseListQuery(originalUrl: string): AnnotationQuery {
  const queryStart = originalUrl.indexOf('?');
  const params = new URLSearchParams(queryStart === -1 ? '' : originalUrl.slice(queryStart + 1));
  const datasets = [
    ...new Set(
      params
        .getAll('datasets')
        .flatMap((value) => value.split(','))
        .map((name) => name.trim())
        .filter((name) => name.length > 0),
    ),
  ];
  if (datasets.length > ANNOTATION_LIMITS.datasets) {
    throw new InputError(`Invalid datasets filter: ${datasets.length} names. Expected at most ${ANNOTATION_LIMITS.datasets}.`);
  }
  const startMs = optionalQueryTime('start', params.get('start'));
  const endMs = optionalQueryTime('end', params.get('end'));
  if (startMs !== undefined && endMs !== undefined && endMs < startMs) {
    throw new InputError(
      `Invalid range: end ${new Date(endMs).toISOString()} is before start ${new Date(startMs).toISOString()}. Expected start ≤ end.`,
    );
  }
  return { datasets, startMs, endMs };
}

function optionalQueryTime(name: string, value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  return parseWireTime(name, value);
}
