/**
 * Map fields: fields whose objects are stored whole, as one value, rather than flattened into a
 * field per key (`geo` holding `{"city": …}` instead of `geo.city`). A dataset's map fields are
 * part of its metadata (`Dataset.mapFields`); ingest reads them to decide what to flatten. The
 * rules of the hosted API (`/v2/datasets/{id}/mapfields`, as axiom-go's integration tests pin
 * them): a name is declared once (a second declaration is a conflict), a list may not repeat a
 * name, names the service reserves are refused, and removing an undeclared name is not found.
 */
import { ConflictError, InputError, NotFoundError } from '../../common/errors.js';
import { previewJson } from '../../common/json-preview.js';
import { INGEST_LIMITS } from '../../engine/ingest/limits.js';
import type { DatasetKind } from './store.js';

/** At most this many map fields per dataset: the number of fields a dataset may hold. */
export const MAX_MAP_FIELDS = 1024;

/**
 * The map field the hosted service keeps an OTel span's custom attributes in (attributes outside
 * the semantic conventions it has fields for); OTel trace datasets are made with it.
 */
export const OTEL_CUSTOM_ATTRIBUTES = 'attributes.custom';

/** The map fields a new dataset of `kind` starts with: OTel trace datasets have `attributes.custom`, as hosted ones do. */
export function initialMapFields(kind: DatasetKind | undefined): string[] {
  return kind === 'otel:traces:v1' ? [OTEL_CUSTOM_ATTRIBUTES] : [];
}

const NAME_RULE = `Expected a field name of 1 to ${INGEST_LIMITS.maxFieldNameLength} characters, without control characters, not starting with "_" (the service's own fields) and without an empty part between dots, such as "attributes.custom" or "geo".`;

/** A map field's name, checked: `what` names it in the message (`name`, `mapFields[2]`). */
export function parseMapFieldName(value: unknown, what: string): string {
  if (
    typeof value !== 'string' ||
    value === '' ||
    value.length > INGEST_LIMITS.maxFieldNameLength ||
    /[\u0000-\u001f\u007f]/.test(value) ||
    value.startsWith('_') ||
    value.split('.').some((part) => part === '') ||
    !value.isWellFormed()
  ) {
    throw new InputError(`Invalid ${what} ${previewJson(value ?? null)}. ${NAME_RULE}`);
  }
  return value;
}

/** `{"name": "…"}`, the body of a create request. */
export function parseMapFieldBody(body: unknown): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InputError(`The request body must be a JSON object such as {"name": "attributes.custom"}, got ${body === undefined ? 'nothing' : previewJson(body)}.`);
  }
  return parseMapFieldName((body as Record<string, unknown>).name, 'name');
}

/** `["…", …]`, the body of a replace request: names, none twice. */
export function parseMapFieldList(body: unknown): string[] {
  if (!Array.isArray(body)) {
    throw new InputError(`The request body must be a JSON array of field names such as ["attributes.custom", "geo"], got ${body === undefined ? 'nothing' : previewJson(body)}.`);
  }
  if (body.length > MAX_MAP_FIELDS) throw new InputError(`The request body lists ${body.length} map fields. Expected at most ${MAX_MAP_FIELDS}.`);
  const names = body.map((name, index) => parseMapFieldName(name, `mapFields[${index}]`));
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new InputError(`The map field ${JSON.stringify(name)} is listed twice. Expected each name once.`);
    seen.add(name);
  }
  return names;
}

/** The list with `name` added; a conflict when it is there already. */
export function withMapField(dataset: string, current: readonly string[], name: string): string[] {
  if (current.includes(name)) throw new ConflictError(`Dataset ${JSON.stringify(dataset)} already has the map field ${JSON.stringify(name)}.`);
  if (current.length >= MAX_MAP_FIELDS) throw new InputError(`Dataset ${JSON.stringify(dataset)} has ${MAX_MAP_FIELDS} map fields. Expected at most ${MAX_MAP_FIELDS}: remove one first.`);
  return [...current, name];
}

/** The list without `name`; not found when it is not there. */
export function withoutMapField(dataset: string, current: readonly string[], name: string): string[] {
  if (!current.includes(name)) throw new NotFoundError(`Dataset ${JSON.stringify(dataset)} has no map field ${JSON.stringify(name)}.`);
  return current.filter((field) => field !== name);
}
