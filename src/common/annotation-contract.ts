/**
 * The annotation contract: the wire types and the hosted service's limits, in one module that the
 * local service's validation, the action's inputs, the CLI and the bridge's mapping all import.
 * Where the hosted service is known to be strict (the type pattern, lengths, an end before the
 * start) every part is strict the same way; where it accepts anything (`url` is any string), so do we.
 */
import { InputError } from './errors.js';
import { previewJson } from './json-preview.js';

/** An annotation as the service returns it. Unset keys are absent, never "" or null. */
export interface Annotation {
  id: string;
  datasets: string[];
  type: string;
  time: string;
  endTime?: string;
  title?: string;
  description?: string;
  url?: string;
}

/** The body of a create call. `time` defaults to now on the service. */
export interface NewAnnotation {
  datasets: string[];
  type: string;
  time?: string;
  endTime?: string;
  title?: string;
  description?: string;
  url?: string;
}

/** A partial update: only the keys present change. */
export type AnnotationPatch = Partial<NewAnnotation>;

/** Filters of the list call; every one is optional. */
export interface AnnotationFilter {
  datasets?: string[];
  start?: string;
  end?: string;
}

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

/** Checks an annotation type; `label` names where it came from (a JSON field, an input, a config key). */
export function checkType(label: string, type: string): string {
  if (!TYPE_PATTERN.test(type) || type.length > ANNOTATION_LIMITS.type) {
    throw new InputError(
      `Invalid ${label} ${previewJson(type)}. Expected 1 to ${ANNOTATION_LIMITS.type} lowercase letters, digits and dashes, e.g. "production-deploy".`,
    );
  }
  return type;
}

/** Checks the length of a text field (`title`, `description`, `url`). */
export function checkLength(label: string, text: string, field: 'title' | 'description' | 'url'): string {
  const limit = ANNOTATION_LIMITS[field];
  if (text.length > limit) throw new InputError(`Invalid ${label} ${previewJson(text, 40)}: ${text.length} characters. Expected at most ${limit}.`);
  return text;
}

/** Checks that a span does not end before it starts (times in epoch milliseconds). */
export function checkOrder(timeLabel: string, timeMs: number, endLabel: string, endMs: number): void {
  if (endMs < timeMs) {
    throw new InputError(
      `Invalid ${endLabel} ${new Date(endMs).toISOString()}: it is before ${timeLabel} ${new Date(timeMs).toISOString()}. Expected an end at or after the start.`,
    );
  }
}

/** Checks a list of dataset names and drops repeats, keeping the first-seen order. */
export function checkDatasetNames(label: string, names: readonly string[]): string[] {
  const expected = 'Expected a non-empty list of dataset names, e.g. ["production"].';
  if (names.length === 0) throw new InputError(`Invalid ${label}: the list is empty. ${expected}`);
  if (names.length > ANNOTATION_LIMITS.datasets) {
    throw new InputError(`Invalid ${label}: ${names.length} names. Expected at most ${ANNOTATION_LIMITS.datasets}.`);
  }
  const unique: string[] = [];
  for (const name of names) {
    if (name.trim() === '') throw new InputError(`Invalid dataset name ${previewJson(name)} in ${label}. ${expected}`);
    if (name !== name.trim()) {
      throw new InputError(`Invalid dataset name ${previewJson(name)} in ${label}: it has leading or trailing spaces. Expected the name alone.`);
    }
    if (name.length > ANNOTATION_LIMITS.datasetName) {
      throw new InputError(`Invalid dataset name ${previewJson(name)} in ${label}: longer than ${ANNOTATION_LIMITS.datasetName} characters.`);
    }
    if (!unique.includes(name)) unique.push(name);
  }
  return unique;
}
