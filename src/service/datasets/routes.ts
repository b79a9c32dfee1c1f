import { Router } from 'express';
import { HttpError, methodNotAllowed, NotFoundError, ValidationError } from '../http-errors.js';
import type { DatasetStore } from './store.js';

/** Dataset names as the hosted service allows them: a letter or digit first, then letters, digits, `-`, `_`, `.`. */
export const DATASET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function createDatasetRoutes(store: DatasetStore, clock: () => number, who: string): Router {
  const router = Router();

  router
    .route('/v2/datasets')
    .get((_req, res) => {
      res.json(store.list());
    })
    .post((req, res) => {
      const { name, description } = parseNewDataset(req.body);
      const created = store.create({ name, description, who }, clock());
      if (!created) throw new HttpError(409, 'already_exists', `Dataset ${JSON.stringify(name)} already exists.`);
      res.status(200).json(created);
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/v2/datasets/:id')
    .get((req, res) => {
      const dataset = store.get(req.params.id);
      if (!dataset) throw new NotFoundError(`Dataset ${JSON.stringify(req.params.id)} not found.`);
      res.json(dataset);
    })
    .delete((req, res) => {
      if (!store.delete(req.params.id)) throw new NotFoundError(`Dataset ${JSON.stringify(req.params.id)} not found.`);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'DELETE']));

  return router;
}

function parseNewDataset(body: unknown): { name: string; description: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError('The request body must be a JSON object such as {"name": "production"}.');
  }
  const { name, description } = body as Record<string, unknown>;
  if (typeof name !== 'string' || !DATASET_NAME_PATTERN.test(name)) {
    throw new ValidationError(
      `Invalid name ${JSON.stringify(name ?? null)}. Expected 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
    );
  }
  if (description !== undefined && description !== null && typeof description !== 'string') {
    throw new ValidationError(`Invalid description ${JSON.stringify(description)}. Expected a string.`);
  }
  return { name, description: typeof description === 'string' ? description : '' };
}
