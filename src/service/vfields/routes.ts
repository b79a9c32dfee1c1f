import { Router, type Response } from 'express';
import { ConflictError, InputError, NotFoundError } from '../../common/errors.js';
import { methodNotAllowed } from '../../common/http/error-reply.js';
import { jsonBody } from '../../common/http/json-body.js';
import { jsonObject } from '../../common/json-object.js';
import { previewJson } from '../../common/json-preview.js';
import { checkVirtualField } from '../../engine/check/virtual-fields.js';
import { QUERY_LIMITS } from '../../engine/query/execute.js';
import type { EventReader } from '../../engine/store/types.js';
import type { Action } from '../access/capabilities.js';
import { requireAccess } from '../access/gate.js';
import { principalOf } from '../auth.js';
import type { Datasets } from '../datasets/datasets.js';
import { QUERY_BODY_LIMIT_BYTES } from '../query/answer-query.js';
import type { VirtualFieldInput, VirtualFieldStore } from './store.js';

/** A virtual field's name and its text members; the expression may be as long as a query. */
export const VIRTUAL_FIELD_LIMITS = { name: 256, text: 1024, expression: QUERY_LIMITS.maxQueryLength } as const;

/**
 * `/v2/vfields`: the hosted virtual fields API (`axiom-go`'s VirtualFieldsService). A field
 * belongs to a dataset that exists, its expression is APL checked when saved, and queries of
 * the dataset see it as a field (see query-reader.ts). Access is the `virtualFields` capability
 * on the field's dataset, checked here because the dataset comes from the body or the field.
 */
export function createVirtualFieldRoutes(deps: { store: VirtualFieldStore; datasets: Datasets; events: EventReader; clock: () => number }): Router {
  const { store, datasets, events, clock } = deps;
  // An expression may be as long as a query, so a body may be as large as a query's.
  const json = jsonBody({ limitBytes: QUERY_BODY_LIMIT_BYTES });
  const router = Router();
  const allowed = (res: Response, dataset: string, action: Action): void => {
    requireAccess(principalOf(res), { dataset, capability: 'virtualFields', action });
    if (!datasets.get(dataset)) throw new NotFoundError(`Dataset ${JSON.stringify(dataset)} not found.`);
  };
  const existing = (id: string) => store.get(id) ?? notFound(id);

  router
    .route('/v2/vfields')
    .get((req, res) => {
      const dataset = Array.isArray(req.query.dataset) ? req.query.dataset[0] : req.query.dataset;
      if (typeof dataset !== 'string' || dataset === '') {
        throw new InputError('Missing the dataset query parameter. Expected /v2/vfields?dataset=<name>.');
      }
      allowed(res, dataset, 'read');
      res.json(store.list(dataset));
    })
    .post(json, (req, res) => {
      const input = parseVirtualField(req.body);
      allowed(res, input.dataset, 'create');
      checkVirtualField(input.expression, events.schema(input.dataset));
      const created = store.create(input, clock());
      if (!created) throw new ConflictError(`Dataset ${JSON.stringify(input.dataset)} already has a virtual field ${JSON.stringify(input.name)}.`);
      res.json(created);
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/v2/vfields/:id')
    .get((req, res) => {
      const field = existing(req.params.id);
      allowed(res, field.dataset, 'read');
      res.json(field);
    })
    .put(json, (req, res) => {
      const input = parseVirtualField(req.body);
      const field = existing(req.params.id);
      allowed(res, field.dataset, 'update');
      if (input.dataset !== field.dataset) {
        throw new InputError(`Invalid dataset ${previewJson(input.dataset)}: a virtual field stays in its dataset, ${JSON.stringify(field.dataset)}. Expected that dataset, or create the field in the other one.`);
      }
      checkVirtualField(input.expression, events.schema(input.dataset));
      const updated = store.update(req.params.id, input);
      if (updated === 'conflict') throw new ConflictError(`Dataset ${JSON.stringify(input.dataset)} already has a virtual field ${JSON.stringify(input.name)}.`);
      res.json(updated ?? notFound(req.params.id));
    })
    .delete((req, res) => {
      const field = existing(req.params.id);
      allowed(res, field.dataset, 'delete');
      store.delete(req.params.id);
      res.status(204).end();
    })
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}

function notFound(id: string): never {
  throw new NotFoundError(`Virtual field ${JSON.stringify(id)} not found.`);
}

/** `{dataset, name, expression, description?, type?, unit?}`, as the clients send a VirtualField. */
function parseVirtualField(value: unknown): VirtualFieldInput {
  const { dataset, name, expression, description, type, unit } = jsonObject('The request body', value);
  // An expression may span lines, as query text does; the other members are one line.
  const text = (label: string, member: unknown, max: number, required: boolean, controls = /[\u0000-\u001f]/): string | undefined => {
    if ((member === undefined || member === null || member === '') && !required) return undefined;
    if (typeof member !== 'string' || member.trim() === '' || member.length > max || controls.test(member)) {
      throw new InputError(`Invalid ${label} ${previewJson(member ?? null)}. Expected ${required ? 'a non-empty' : 'a'} string of at most ${max} characters without control characters.`);
    }
    return member;
  };
  const input: VirtualFieldInput = {
    dataset: text('dataset', dataset, 128, true) as string,
    name: text('name', name, VIRTUAL_FIELD_LIMITS.name, true) as string,
    expression: text('expression', expression, VIRTUAL_FIELD_LIMITS.expression, true, /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/) as string,
  };
  const optional = { description: text('description', description, VIRTUAL_FIELD_LIMITS.text, false), type: text('type', type, VIRTUAL_FIELD_LIMITS.text, false), unit: text('unit', unit, VIRTUAL_FIELD_LIMITS.text, false) };
  for (const [key, member] of Object.entries(optional)) if (member !== undefined) input[key as 'description' | 'type' | 'unit'] = member;
  return input;
}
