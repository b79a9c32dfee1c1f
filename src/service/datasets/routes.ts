import { Router, type RequestHandler } from 'express';
import { ConflictError, InputError, NotFoundError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { previewJson } from '../../common/json-preview.js';
import { joinFieldTypes } from '../../engine/schema.js';
import type { EventStore } from '../../engine/store/event-store.js';
import type { Datasets } from './datasets.js';
import { parseGoDuration } from '../../common/go-duration.js';
import type { DatasetPatch } from './store.js';

/** Dataset names as the hosted service allows them: a letter or digit first, then letters, digits, `-`, `_`, `.`. */
export const DATASET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const INVALID_DATASET_NAME = 'Expected 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit.';

export function createDatasetRoutes(deps: { datasets: Datasets; events: EventStore; clock: () => number; who: string; json: RequestHandler }): Router {
  const { datasets, events, clock, who, json } = deps;
  const router = Router();
  const existing = (name: string) => {
    const dataset = datasets.get(name);
    if (!dataset) throw new NotFoundError(`Dataset ${JSON.stringify(name)} not found.`);
    return dataset;
  };

  router
    .route('/v2/datasets')
    .get((_req, res) => {
      res.json(datasets.list());
    })
    .post(json, async (req, res) => {
      const { name, description } = parseNewDataset(req.body);
      const created = await datasets.create({ name, description, who }, clock());
      if (!created) throw new ConflictError(`Dataset ${JSON.stringify(name)} already exists.`);
      res.status(200).json(created);
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/v2/datasets/:id')
    .get((req, res) => {
      res.json(existing(req.params.id));
    })
    .put(json, (req, res) => {
      const patch = parseDatasetPatch(req.body);
      existing(req.params.id);
      res.json(datasets.update(req.params.id, patch));
    })
    .delete(async (req, res) => {
      if (!(await datasets.delete(req.params.id))) throw new NotFoundError(`Dataset ${JSON.stringify(req.params.id)} not found.`);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  router
    .route('/v2/datasets/:id/trim')
    .post(json, async (req, res) => {
      const body = objectBody(req.body, '{"maxDuration": "1h"}');
      if (typeof body.maxDuration !== 'string') {
        throw new InputError(`Invalid maxDuration ${previewJson(body.maxDuration ?? null)}. Expected a duration string such as "1h" or "720h".`);
      }
      const maxDurationMs = parseGoDuration('maxDuration', body.maxDuration);
      existing(req.params.id);
      const beforeNs = BigInt(Math.floor((clock() - maxDurationMs) * 1000)) * 1000n;
      const deleted = await events.trim(req.params.id, beforeNs);
      res.json({ numDeleted: deleted });
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/v2/datasets/:id/fields')
    .get((req, res) => {
      existing(req.params.id);
      const fields = events.schema(req.params.id)?.fields ?? [];
      res.json(fields.map((field) => ({ name: field.name, type: joinFieldTypes(field.types), description: '', unit: '', hidden: false })));
    })
    .all(methodNotAllowed(['GET']));

  return router;
}

function objectBody(body: unknown, example: string): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InputError(`The request body must be a JSON object such as ${example}.`);
  }
  return body as Record<string, unknown>;
}

function parseNewDataset(body: unknown): { name: string; description: string } {
  const { name, description } = objectBody(body, '{"name": "production"}');
  if (typeof name !== 'string' || !DATASET_NAME_PATTERN.test(name)) {
    throw new InputError(`Invalid name ${previewJson(name ?? null)}. ${INVALID_DATASET_NAME}`);
  }
  if (description !== undefined && description !== null && typeof description !== 'string') {
    throw new InputError(`Invalid description ${previewJson(description)}. Expected a string.`);
  }
  return { name, description: typeof description === 'string' ? description : '' };
}

function parseDatasetPatch(body: unknown): DatasetPatch {
  const { description, retentionDays, useRetentionPeriod } = objectBody(body, '{"description": "Production logs"}');
  const patch: DatasetPatch = {};
  if (description !== undefined && description !== null) {
    if (typeof description !== 'string') throw new InputError(`Invalid description ${previewJson(description)}. Expected a string.`);
    patch.description = description;
  }
  if (retentionDays !== undefined && retentionDays !== null) {
    if (typeof retentionDays !== 'number' || !Number.isSafeInteger(retentionDays) || retentionDays < 0) {
      throw new InputError(`Invalid retentionDays ${previewJson(retentionDays)}. Expected a whole number of days, 0 or more.`);
    }
    patch.retentionDays = retentionDays;
  }
  if (useRetentionPeriod !== undefined && useRetentionPeriod !== null) {
    if (typeof useRetentionPeriod !== 'boolean') throw new InputError(`Invalid useRetentionPeriod ${previewJson(useRetentionPeriod)}. Expected true or false.`);
    patch.useRetentionPeriod = useRetentionPeriod;
  }
  return patch;
}
