import { InputError } from '../common/errors.js';
import { previewJson } from '../common/json-preview.js';
import { parseWireTime } from '../common/time.js';

/**
 * Readers for the members of JSON request bodies. The hosted service decodes bodies with Go's
 * encoding/json, which matches member names case-insensitively (the Go client sends
 * `IntervalMinutes`, older code `notifierIDs`), so these readers do too. `null` means absent.
 */
export type Fields = ReadonlyMap<string, unknown>;

/**
 * Reads an object's members under their canonical names. Members in `ignored` (read-only ones
 * such as `id` or `createdAt`, which clients send back with the object they fetched) are dropped;
 * any other unknown member is an error naming it. `what` names the object in messages.
 */
export function readFields(value: unknown, what: string, known: readonly string[], ignored: readonly string[] = []): Fields {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(`${capitalize(what)} must be a JSON object, got ${previewJson(value)}.`);
  }
  const canonical = new Map(known.map((name) => [name.toLowerCase(), name]));
  const skipped = new Set(ignored.map((name) => name.toLowerCase()));
  const fields = new Map<string, unknown>();
  for (const [key, member] of Object.entries(value)) {
    const lower = key.toLowerCase();
    const name = canonical.get(lower);
    if (name === undefined) {
      if (skipped.has(lower)) continue;
      throw new InputError(`Unknown field ${JSON.stringify(key)} in ${what}. Expected only: ${known.join(', ')}.`);
    }
    if (member === null) continue;
    // Compared through bounded previews: a hostile body may nest thousands deep.
    if (fields.has(name) && previewJson(fields.get(name), 4096) !== previewJson(member, 4096)) {
      throw new InputError(`Field ${name} is given twice in ${what} with different values (the names differ only in case). Expected it once.`);
    }
    fields.set(name, member);
  }
  return fields;
}

export function optionalString(fields: Fields, name: string, maxLength: number): string | undefined {
  const value = fields.get(name);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InputError(`Invalid ${name} ${previewJson(value)}. Expected a string.`);
  if (value.length > maxLength) throw new InputError(`Invalid ${name}: ${value.length} characters. Expected at most ${maxLength}.`);
  return value;
}

export function requiredString(fields: Fields, name: string, maxLength: number, example: string): string {
  const value = optionalString(fields, name, maxLength);
  if (value === undefined || value.trim() === '') {
    throw new InputError(`Missing ${name}. Expected a non-empty string such as ${JSON.stringify(example)}.`);
  }
  return value;
}

export function optionalBoolean(fields: Fields, name: string): boolean | undefined {
  const value = fields.get(name);
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new InputError(`Invalid ${name} ${previewJson(value)}. Expected true or false.`);
  return value;
}

export function optionalNumber(fields: Fields, name: string): number | undefined {
  const value = fields.get(name);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new InputError(`Invalid ${name} ${previewJson(value)}. Expected a number.`);
  return value;
}

export function requiredInteger(fields: Fields, name: string, min: number, max: number): number {
  const value = fields.get(name);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const got = value === undefined ? 'is missing' : `is ${previewJson(value)}`;
    throw new InputError(`${name} ${got}. Expected a whole number from ${min} to ${max}.`);
  }
  return value;
}

/** An RFC 3339 time; Go's zero time means "not set", as for every time on the wire. */
export function optionalTime(fields: Fields, name: string): number | undefined {
  const value = fields.get(name);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw new InputError(`Invalid ${name} ${previewJson(value)}. Expected an RFC 3339 timestamp string such as "2024-05-01T12:00:00Z".`);
  }
  return value === '' ? undefined : parseWireTime(name, value);
}

export function optionalStringArray(fields: Fields, name: string, maxItems: number, maxLength: number): string[] | undefined {
  const value = fields.get(name);
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new InputError(`Invalid ${name} ${previewJson(value)}. Expected an array of strings.`);
  if (value.length > maxItems) throw new InputError(`Invalid ${name}: ${value.length} entries. Expected at most ${maxItems}.`);
  const items: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string' || item === '' || item.length > maxLength) {
      throw new InputError(`Invalid entry ${previewJson(item)} in ${name}. Expected non-empty strings of at most ${maxLength} characters.`);
    }
    if (!items.includes(item)) items.push(item);
  }
  return items;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
