/**
 * Reading sender payloads. Every reader names the field it wanted by its path in the payload
 * ("deployment.id", "alerts[2].fingerprint"), so a 400 tells the sender exactly what was missing.
 */

import { ANNOTATION_LIMITS } from '../../../src/common/annotation-contract.js';
import { previewJson } from '../../../src/common/json-preview.js';
import { MalformedPayloadError } from './types.js';

export type JsonObject = { readonly [key: string]: unknown };

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes the raw body as strict UTF-8; a byte sequence that is not UTF-8 is not JSON. */
export function decodeUtf8(rawBody: Buffer): string | undefined {
  try {
    return UTF8.decode(rawBody);
  } catch {
    return undefined;
  }
}

/** Parses the raw body as a JSON object. */
export function parseJsonObject(rawBody: Buffer): JsonObject {
  const text = decodeUtf8(rawBody);
  if (text === undefined) throw new MalformedPayloadError('The body is not valid UTF-8. Expected a JSON object.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedPayloadError('The body is not valid JSON. Expected a JSON object.');
  }
  if (!isObject(value)) throw new MalformedPayloadError(`The body is ${describe(value)}. Expected a JSON object.`);
  return value;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value === 'object' ? 'an object' : `the ${typeof value} ${String(value)}`}`;
}

function invalid(path: string, value: unknown, expected: string): MalformedPayloadError {
  const what = value === undefined ? 'missing' : describe(value);
  return new MalformedPayloadError(`Field "${path}" is ${what}. Expected ${expected}.`);
}

/** Joins a parent path and a key: child('alerts[0]', 'labels') → "alerts[0].labels". */
export function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/**
 * A view of one JSON object that knows its path in the payload. Readers named `required*`
 * throw MalformedPayloadError; `optional*` return undefined for a missing or null field and
 * throw only when the field is present with the wrong type.
 */
export class JsonReader {
  constructor(
    readonly value: JsonObject,
    readonly path: string = '',
  ) {}

  static parse(rawBody: Buffer): JsonReader {
    return new JsonReader(parseJsonObject(rawBody));
  }

  has(key: string): boolean {
    return this.value[key] !== undefined && this.value[key] !== null;
  }

  raw(key: string): unknown {
    return this.value[key];
  }

  object(key: string): JsonReader {
    const value = this.value[key];
    if (!isObject(value)) throw invalid(child(this.path, key), value, 'an object');
    return new JsonReader(value, child(this.path, key));
  }

  optionalObject(key: string): JsonReader | undefined {
    const value = this.value[key];
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) throw invalid(child(this.path, key), value, 'an object');
    return new JsonReader(value, child(this.path, key));
  }

  /** A non-empty string. */
  string(key: string): string {
    const value = this.value[key];
    if (typeof value !== 'string' || value === '') throw invalid(child(this.path, key), value, 'a non-empty string');
    return value;
  }

  /** A string, or undefined when missing, null or empty (senders use all three for "not set"). */
  optionalString(key: string): string | undefined {
    const value = this.value[key];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw invalid(child(this.path, key), value, 'a string');
    return value;
  }

  number(key: string): number {
    const value = this.value[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(child(this.path, key), value, 'a number');
    return value;
  }

  optionalNumber(key: string): number | undefined {
    const value = this.value[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(child(this.path, key), value, 'a number');
    return value;
  }

  /** An identifier that senders write as a number or a string; returned as a string. */
  id(key: string): string {
    const value = this.value[key];
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    if (typeof value === 'string' && value !== '') return value;
    throw invalid(child(this.path, key), value, 'an identifier (a number or a non-empty string)');
  }

  array(key: string): unknown[] {
    const value = this.value[key];
    if (!Array.isArray(value)) throw invalid(child(this.path, key), value, 'an array');
    return value;
  }

  optionalArray(key: string): unknown[] | undefined {
    const value = this.value[key];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) throw invalid(child(this.path, key), value, 'an array');
    return value;
  }

  /** The elements of an array of objects, each with its own path ("alerts[3]"). */
  objects(key: string): JsonReader[] {
    return this.array(key).map((item, index) => {
      const path = child(child(this.path, key), index);
      if (!isObject(item)) throw invalid(path, item, 'an object');
      return new JsonReader(item, path);
    });
  }

  /**
   * A map of strings such as alert labels. Values that are not strings are written as JSON (cut
   * to a title's length) rather than rejected: labels only feed titles and matching.
   */
  stringMap(key: string): Record<string, string> {
    const reader = this.optionalObject(key);
    const result: Record<string, string> = {};
    if (reader === undefined) return result;
    for (const [name, value] of Object.entries(reader.value)) {
      if (value === undefined || value === null) continue;
      result[name] = typeof value === 'string' ? value : previewJson(value, ANNOTATION_LIMITS.title);
    }
    return result;
  }
}
