import {
  checkDatasetNames,
  checkLength,
  checkOrder,
  checkType,
} from '../../common/annotation-contract.js';
import { InputError } from '../../common/errors.js';
import { jsonObject } from '../../common/json-object.js';
import { previewJson } from '../../common/json-preview.js';
import { parseWireTime } from '../../common/time.js';

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
  const fields = jsonObject('The request body', body, CREATE_KEYS);
  const datasets = optionalDatasets(fields.datasets);
  if (datasets === undefined) throw new InputError('Missing datasets. Expected a non-empty array of dataset names, e.g. ["production"].');
  const type = optionalType(fields.type);
  if (type === undefined) throw new InputError('Missing type. Expected lowercase letters, digits and dashes, e.g. "deploy".');
  const timeMs = optionalTime('time', fields.time);
  const endMs = optionalTime('endTime', fields.endTime);
  if (timeMs !== undefined && endMs !== undefined) assertOrdered(timeMs, endMs);
  return {
    datasets,
    type,
    timeMs,
    endMs,
    title: emptyToUndefined(optionalText('title', fields.title)),
    description: emptyToUndefined(optionalText('description', fields.description)),
    url: emptyToUndefined(optionalText('url', fields.url)),
  };
}

export function parsePatch(body: unknown, id: string): ValidPatch {
  const fields = jsonObject('The request body', body, UPDATE_KEYS);
  if (fields.id !== undefined && fields.id !== null && fields.id !== id) {
    throw new InputError(`The body's id ${previewJson(fields.id)} differs from the id in the path ${previewJson(id)}. Expected the same id or none.`);
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
  const title = optionalText('title', fields.title);
  if (title !== undefined) patch.title = title;
  const description = optionalText('description', fields.description);
  if (description !== undefined) patch.description = description;
  const url = optionalText('url', fields.url);
  if (url !== undefined) patch.url = url;
  return patch;
}

export function assertOrdered(timeMs: number, endMs: number): void {
  checkOrder('time', timeMs, 'endTime', endMs);
}

function optionalDatasets(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) {
    throw new InputError(`Invalid datasets ${previewJson(value)}. Expected a non-empty array of dataset names, e.g. ["production"].`);
  }
  return checkDatasetNames('datasets', value);
}

function optionalType(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InputError(`Invalid type ${previewJson(value)}. Expected a string of lowercase letters, digits and dashes, e.g. "deploy".`);
  return checkType('type', value);
}

function optionalTime(field: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new InputError(`Invalid ${field} ${previewJson(value)}. Expected an RFC 3339 timestamp string such as "2024-05-01T12:00:00Z".`);
  }
  return parseWireTime(field, value);
}

function optionalText(field: 'title' | 'description' | 'url', value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InputError(`Invalid ${field} ${previewJson(value)}. Expected a string.`);
  return checkLength(field, value, field);
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}
