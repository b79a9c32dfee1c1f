import { formatDatetime, formatTimespan } from '../apl/literals.js';
import type { ScalarType } from '../plan/types.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * A DuckDB value (as the store reads it: BIGINT as bigint) as the JSON a result carries:
 * datetimes as RFC 3339 with trimmed nanoseconds, timespans as `[d.]hh:mm:ss[.f]`, dynamic values
 * parsed from their JSON text, non-finite reals as null (JSON has no NaN).
 */
export function toJson(value: unknown, type: ScalarType): JsonValue {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'datetime':
      return formatDatetime(toBigInt(value));
    case 'timespan':
      return formatTimespan(toBigInt(value));
    case 'long':
      return typeof value === 'bigint' ? Number(value) : Number(value);
    case 'real': {
      const number = Number(value);
      return Number.isFinite(number) ? number : null;
    }
    case 'bool':
      return value === true;
    case 'string':
      return String(value);
    case 'dynamic':
      return parseDynamic(String(value));
  }
}

function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  return BigInt(String(value));
}

function parseDynamic(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    // A json column widened to string keeps its earlier values' JSON text and plain strings alike.
    return text;
  }
}

/** Roughly how many bytes a value adds to the JSON reply: the result-size cap needs a cheap estimate. */
export function jsonSize(value: JsonValue): number {
  if (value === null) return 4;
  switch (typeof value) {
    case 'string':
      return Buffer.byteLength(value) + 2;
    case 'number':
      return 12;
    case 'boolean':
      return 5;
    default:
      return JSON.stringify(value).length;
  }
}
