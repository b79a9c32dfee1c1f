import { Router, type RequestHandler } from 'express';
import { ConflictError, InputError, NotFoundError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { previewJson } from '../../common/json-preview.js';
import { joinFieldTypes } from '../../engine/schema.js';
import type { EventStore } from '../../engine/store/event-store.js';
import type { Datasets } from './datasets.js';
import { parseMapFieldBody, parseMapFieldList, parseMapFieldName, withMapField, withoutMapField } from './map-fields.js';
import { parseGoDuration } from '../../common/go-duration.js';
import { DATASET_KINDS, type DatasetKind, type DatasetPatch, type NewDataset } from './store.js';

/** Dataset names as the hosted service allows them: a letter or digit first, then letters, digits, `-`, `_`, `.`. */
export const DATASET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const INVALID_DATASET_NAME = 'Expected 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit.';

/**
 * The datasets API, at `/v2/datasets` (`@axiomhq/js`, `axiom-go`) and at `/v1/datasets`
 * (`axiom-py`), in the same shapes: the v1 paths are the older spelling of the same resource.
 */
export function createDatasetRoutes(deps: { datasets: Datasets; events: EventStore; clock: () => number; who: string; json: RequestHandler }): Router {
  const { datasets, events, clock, who, json } = deps;
  const router = Router();
  const existing = (name: string) => {
    const dataset = datasets.get(name);
    if (!dataset) throw new NotFoundError(`Dataset ${JSON.stringify(name)} not found.`);
    return dataset;
  };

  for (const version of ['/v1', '/v2']) {
    router
      .route(`${version}/datasets`)
      .get((_req, res) => {
        res.json(datasets.list());
      })
      .post(json, async (req, res) => {
        const input = parseNewDataset(req.body, who);
        const created = await datasets.create(input, clock());
        if (!created) throw new ConflictError(`Dataset ${JSON.stringify(input.name)} already exists.`);
        res.status(200).json(created);
      })
      .all(methodNotAllowed(['GET', 'POST']));

    router
      .route(`${version}/datasets/:id`)
      .get((req, res) => {
        res.json(existing(req.params.id));
      })
      .put(json, (req, res) => {
        const patch = parseDatasetPatch(req.body);
        existing(req.params.id);
        res.json(datasets.update(req.params.id, patch, clock()));
      })
      .delete(async (req, res) => {
        if (!(await datasets.delete(req.params.id))) throw new NotFoundError(`Dataset ${JSON.stringify(req.params.id)} not found.`);
        res.status(204).end();
      })
      .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

    router
      .route(`${version}/datasets/:id/trim`)
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
  }

  // Map fields (map-fields.ts), in the hosted shapes: a list of names, `{"name"}` to add one.
  router
    .route('/v2/datasets/:id/mapfields')
    .get((req, res) => {
      res.json(existing(req.params.id).mapFields);
    })
    .post(json, (req, res) => {
      const name = parseMapFieldBody(req.body);
      const dataset = existing(req.params.id);
      datasets.setMapFields(dataset.name, withMapField(dataset.name, dataset.mapFields, name));
      res.json({ name });
    })
    .put(json, (req, res) => {
      const names = parseMapFieldList(req.body);
      const dataset = existing(req.params.id);
      datasets.setMapFields(dataset.name, names);
      res.json(names);
    })
    .all(methodNotAllowed(['GET', 'POST', 'PUT']));

  router
    .route('/v2/datasets/:id/mapfields/:name')
    .delete((req, res) => {
      const name = parseMapFieldName(req.params.name, 'map field name');
      const dataset = existing(req.params.id);
      datasets.setMapFields(dataset.name, withoutMapField(dataset.name, dataset.mapFields, name));
      res.status(204).end();
    })
    .all(methodNotAllowed(['DELETE']));

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

/** Longest `region` or `edgeDeployment` kept: the hosted names are short (`eu-central-1.aws`). */
const MAX_PLACEMENT_LENGTH = 128;

/**
 * A create request as the clients send it: `name`, and optionally `description`, `kind`,
 * `region` (axiom-py, @axiomhq/js), `edgeDeployment`, `retentionDays` and `useRetentionPeriod`
 * (axiom-go sends the last two always).
 */
function parseNewDataset(body: unknown, who: string): NewDataset {
  const { name, description, kind, region, edgeDeployment, ...retention } = objectBody(body, '{"name": "production"}');
  if (typeof name !== 'string' || !DATASET_NAME_PATTERN.test(name)) {
    throw new InputError(`Invalid name ${previewJson(name ?? null)}. ${INVALID_DATASET_NAME}`);
  }
  if (description !== undefined && description !== null && typeof description !== 'string') {
    throw new InputError(`Invalid description ${previewJson(description)}. Expected a string.`);
  }
  if (kind !== undefined && kind !== null && !(DATASET_KINDS as readonly unknown[]).includes(kind)) {
    throw new InputError(`Invalid kind ${previewJson(kind)}. Expected one of: ${DATASET_KINDS.join(', ')}.`);
  }
  const placement = (label: string, value: unknown): string | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string' || value.length > MAX_PLACEMENT_LENGTH || /[\u0000-\u001f]/.test(value)) {
      throw new InputError(`Invalid ${label} ${previewJson(value)}. Expected a name such as "eu-central-1.aws" of at most ${MAX_PLACEMENT_LENGTH} characters.`);
    }
    return value;
  };
  const input: NewDataset = { name, description: typeof description === 'string' ? description : '', who, ...parseDatasetPatch(retention, true) };
  if (typeof kind === 'string') input.kind = kind as DatasetKind;
  const chosenRegion = placement('region', region);
  if (chosenRegion !== undefined) input.region = chosenRegion;
  const chosenEdge = placement('edgeDeployment', edgeDeployment);
  if (chosenEdge !== undefined) input.edgeDeployment = chosenEdge;
  return input;
}

/** An update's members; `retentionOnly` reads only the retention members (of a create request). */
function parseDatasetPatch(body: unknown, retentionOnly = false): DatasetPatch {
  const { description, retentionDays, useRetentionPeriod } = objectBody(body, '{"description": "Production logs"}');
  const patch: DatasetPatch = {};
  if (!retentionOnly && description !== undefined && description !== null) {
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
