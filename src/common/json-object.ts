import { InputError } from './errors.js';
import { previewJson } from './json-preview.js';

/**
 * `value` as a JSON object, or an InputError naming `what` (e.g. "The request body",
 * "dashboard.charts[2]"). With `allowed`, a key outside it is refused by name, so that a typo
 * such as `endtime` does not silently do nothing.
 */
export function jsonObject(what: string, value: unknown, allowed?: ReadonlySet<string>): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(`${what} must be a JSON object, got ${value === undefined ? 'nothing' : previewJson(value)}.`);
  }
  if (allowed) {
    for (const key of Object.keys(value)) {
      if (!allowed.has(key)) throw new InputError(`Unknown field ${previewJson(key)}. Expected only: ${[...allowed].join(', ')}.`);
    }
  }
  return value as Record<string, unknown>;
}
