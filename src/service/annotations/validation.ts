import { parseWireTime, TimeParseError } from '../../common/time.js';
import { ValidationError } from '../http-errors.js';

/** Limits of the hosted service, from its published API description. */
export const ANNOTATION_LIMITS = {
  type: 256,
  title: 256,
  description: 512,
  url: 512,
  datasetName: 128,
  datasets: 100,
} as const;

export const TYPE_PATTERN = /^[a-z0-9-]+$/;

/** A create request after validation. Absent optional fields are undefined. */
export interface ValidNewAnnotation {
  datasets: string[];
  type: string;
  timeMs: number | undefined;
  endMs: number | undefined;
  title: string | undefined;
  description: string | undefined;
  url: string | undefined;
}

/** An update after validation: undefined means "leave as is"; "" clears an optional text field. */
export type ValidPatch = Partial<Omit<ValidNewAnnotation, 'timeMs' | 'endMs'>> & {
  timeMs?: number;
  endMs?: number;
};

const CREATE_KEYS = new Set(['datasets', 'type', 'time', 'endTime', 'title', 'description', 'url']);
// Clients often send back the object they fetched, id included.
const UPDATE_KEYS = new Set([...CREATE_KEYS, 'id']);

export function parseNewAnnotation(body: unknown): ValidNewAnnotation {
  const fields = asObject(body, CREATE_KEYS);
  const datasets = optionalDatasets(fields.datasets);
  if (datasets === undefined) throw new ValidationError('Missing datasets. Expected a non-empty array of dataset names, e.g. ["production"].');
  const type = optionalType(fields.type);
  if (type === undefined) throw new ValidationError('Missing type. Expected lowercase letters, digits and dashes, e.g. "deploy".');
  const timeMs = optionalTime('time', fields.time);
  const endMs = optionalTime('endTime', fields.endTime);
  if (timeMs !== undefined && endMs !== undefined) assertOrdered(timeMs, endMs);
  return {
    datasets,
    type,
    timeMs,
    endMs,
    title: emptyToUndefined(optionalText('title', fields.title, ANNOTATION_LIMITS.title)),
    description: emptyToUndefined(optionalText('description', fields.description, ANNOTATION_LIMITS.description)),
    url: emptyToUndefined(optionalUrl(fields.url)),
  };
}

export function parsePatch(body: unknown, id: string): ValidPatch {
  const fields = asObject(body, UPDATE_KEYS);
  if (fields.id !== undefined && fields.id !== null && fields.id !== id) {
    throw new ValidationError(`The body's id ${JSON.stringify(fields.id)} differs from the id in the path ${JSON.stringify(id)}. Expected the same id or none.`);
  }
  const patch: ValidPatch = {};
  const datasets = optionalDatasets(fields.datasets);
  if (datasets !== undefined) patch.datasets = datasets;
  const type = optionalType(fields.type);
  if (type !== undefined) patch.type = type;
  const timeMs = optionalTime('time', fields.time);
  if (timeMs !== undefined) patch.timeMs = timeMs;
  const endMs = optionalTime('endTime', fields.endTime);
  if (endMs !== undefined) patch.endMs = endMs;
  const title = optionalText('title', fields.title, ANNOTATION_LIMITS.title);
  if (title !== undefined) patch.title = title;
  const description = optionalText('description', fields.description, ANNOTATION_LIMITS.description);
  if (description !== undefined) patch.description = description;
  const url = optionalUrl(fields.url);
  if (url !== undefined) patch.url = url;
  return patch;
}

export function assertOrdered(timeMs: number, endMs: number): void {
  if (endMs < timeMs) {
    throw new ValidationError(
      `Invalid endTime ${new Date(endMs).toISOString()}: it is before time ${new Date(timeMs).toISOString()}. Expected an endTime at or after time.`,
    );
  }
}

function asObject(body: unknown, allowed: ReadonlySet<string>): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError(`The request body must be a JSON object, got ${describeJson(body)}.`);
  }
  for (const key of Object.keys(body)) {
    if (!allowed.has(key)) {
      throw new ValidationError(`Unknown field ${JSON.stringify(key)}. Expected only: ${[...allowed].join(', ')}.`);
    }
  }
  return body as Record<string, unknown>;
}

function optionalDatasets(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const expected = 'Expected a non-empty array of dataset names, e.g. ["production"].';
  if (!Array.isArray(value)) throw new ValidationError(`Invalid datasets ${describeJson(value)}. ${expected}`);
  if (value.length === 0) throw new ValidationError(`Invalid datasets []: the list is empty. ${expected}`);
  if (value.length > ANNOTATION_LIMITS.datasets) {
    throw new ValidationError(`Invalid datasets: ${value.length} names. Expected at most ${ANNOTATION_LIMITS.datasets}.`);
  }
  const names: string[] = [];
  for (const name of value) {
    if (typeof name !== 'string' || name.trim() === '') {
      throw new ValidationError(`Invalid dataset name ${describeJson(name)} in datasets. ${expected}`);
    }
    if (name !== name.trim()) {
      throw new ValidationError(`Invalid dataset name ${JSON.stringify(name)}: it has leading or trailing spaces. Expected the name alone.`);
    }
    if (name.length > ANNOTATION_LIMITS.datasetName) {
      throw new ValidationError(`Invalid dataset name ${JSON.stringify(name.slice(0, 40))}…: longer than ${ANNOTATION_LIMITS.datasetName} characters.`);
    }
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

function optionalType(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !TYPE_PATTERN.test(value) || value.length > ANNOTATION_LIMITS.type) {
    throw new ValidationError(
      `Invalid type ${describeJson(value)}. Expected 1 to ${ANNOTATION_LIMITS.type} lowercase letters, digits and dashes, e.g. "production-deploy".`,
    );
  }
  return value;
}

function optionalTime(field: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new ValidationError(`Invalid ${field} ${describeJson(value)}. Expected an RFC 3339 timestamp string such as "2024-05-01T12:00:00Z".`);
  }
  try {
    return parseWireTime(field, value);
  } catch (error) {
    if (error instanceof TimeParseError) throw new ValidationError(error.message);
    throw error;
  }
}

function optionalText(field: string, value: unknown, limit: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ValidationError(`Invalid ${field} ${describeJson(value)}. Expected a string.`);
  if (value.length > limit) {
    throw new ValidationError(`Invalid ${field}: ${value.length} characters. Expected at most ${limit}.`);
  }
  return value;
}

function optionalUrl(value: unknown): string | undefined {
  const text = optionalText('url', value, ANNOTATION_LIMITS.url);
  if (text === undefined || text === '') return text;
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^[a-z][a-z0-9+.-]*:$/.test(parsed.protocol)) {
    throw new ValidationError(`Invalid url ${JSON.stringify(text)}. Expected an absolute URL such as "https://github.com/org/repo/pull/1".`);
  }
  return text;
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}

function describeJson(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
