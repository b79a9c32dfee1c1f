/**
 * Reading OTLP/HTTP requests (traces, logs and metrics), in protobuf or JSON, into one shape the
 * converters walk. Protobuf is decoded by the OpenTelemetry project's own generated decoder
 * (protobufjs static code of the official opentelemetry-proto definitions, shipped in
 * @opentelemetry/otlp-transformer up to 0.214.0, the last release that carries decoders for
 * requests); nothing here reads the wire format by hand. OTLP/JSON is the same messages as
 * JSON (lowerCamelCase keys, ids in hex, 64-bit integers as strings or numbers, enums as
 * numbers), read with the same accessors.
 */
import { createRequire } from 'node:module';
import { InputError, UnsupportedMediaTypeError } from '../../common/errors.js';
import { previewJson } from '../../common/json-preview.js';

export type OtlpSignal = 'traces' | 'logs' | 'metrics';
export type OtlpFormat = 'protobuf' | 'json';

/** A decoded message: a protobufjs message object, or the JSON object of the same message. */
export type OtlpObject = Readonly<Record<string, unknown>>;

interface MessageType {
  decode(reader: Uint8Array): OtlpObject;
  encode(message: OtlpObject): { finish(): Uint8Array };
  fromObject(object: OtlpObject): OtlpObject;
}

interface GeneratedRoot {
  opentelemetry: {
    proto: {
      collector: {
        trace: { v1: { ExportTraceServiceRequest: MessageType; ExportTraceServiceResponse: MessageType } };
        logs: { v1: { ExportLogsServiceRequest: MessageType; ExportLogsServiceResponse: MessageType } };
        metrics: { v1: { ExportMetricsServiceRequest: MessageType; ExportMetricsServiceResponse: MessageType } };
      };
    };
  };
}

const require = createRequire(import.meta.url);
const root = (require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as GeneratedRoot).opentelemetry.proto.collector;

const MESSAGES: Readonly<Record<OtlpSignal, { request: MessageType; response: MessageType; items: string; rejected: string }>> = {
  traces: { request: root.trace.v1.ExportTraceServiceRequest, response: root.trace.v1.ExportTraceServiceResponse, items: 'resourceSpans', rejected: 'rejectedSpans' },
  logs: { request: root.logs.v1.ExportLogsServiceRequest, response: root.logs.v1.ExportLogsServiceResponse, items: 'resourceLogs', rejected: 'rejectedLogRecords' },
  metrics: { request: root.metrics.v1.ExportMetricsServiceRequest, response: root.metrics.v1.ExportMetricsServiceResponse, items: 'resourceMetrics', rejected: 'rejectedDataPoints' },
};

/** The body's format from its Content-Type, as OTLP/HTTP names them. */
export function otlpFormat(contentType: string | undefined): OtlpFormat {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  throw new UnsupportedMediaTypeError(`Unsupported Content-Type ${JSON.stringify(contentType ?? '')}. Expected application/x-protobuf or application/json (OTLP/HTTP).`);
}

/** Decodes an export request; a body that is not one is a 400 naming the format. */
export function decodeOtlpRequest(signal: OtlpSignal, format: OtlpFormat, body: Uint8Array): OtlpObject {
  const { request, items } = MESSAGES[signal];
  if (format === 'protobuf') {
    try {
      return request.decode(body);
    } catch (error) {
      throw new InputError(`The request body is not an OTLP ${signal} export request in protobuf (${(error as Error).message}). Expected an ExportServiceRequest encoded as Content-Type application/x-protobuf says.`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch (error) {
    throw new InputError(`The request body is not valid JSON (${(error as Error).message}). Expected an OTLP/JSON ${signal} export request such as {"${items}": […]}.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InputError(`The request body is ${previewJson(parsed)}. Expected an OTLP/JSON ${signal} export request such as {"${items}": […]}.`);
  }
  return parsed as OtlpObject;
}

/** The reply to an export: an empty response, or one stating what was rejected, in the request's format. */
export function encodeOtlpResponse(signal: OtlpSignal, format: OtlpFormat, rejected: { count: number; message: string }): { contentType: string; body: Uint8Array | string } {
  const response = rejected.count > 0 ? { partialSuccess: { [MESSAGES[signal].rejected]: rejected.count, errorMessage: rejected.message } } : {};
  if (format === 'json') return { contentType: 'application/json', body: JSON.stringify(response) };
  const type = MESSAGES[signal].response;
  return { contentType: 'application/x-protobuf', body: type.encode(type.fromObject(response)).finish() };
}

// ── Accessors: the same for a protobufjs message and for OTLP/JSON ───────────────────────────

/** A repeated or message member; absent is none. `path` names it in errors. */
export function list(object: OtlpObject, key: string, path: string): OtlpObject[] {
  const value = object[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw shape(path, value, 'an array');
  return value.map((item, index) => message(item, `${path}[${index}]`));
}

export function child(object: OtlpObject, key: string, path: string): OtlpObject | undefined {
  const value = object[key];
  return value === undefined || value === null ? undefined : message(value, path);
}

function message(value: unknown, path: string): OtlpObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw shape(path, value, 'an object');
  return value as OtlpObject;
}

export function text(object: OtlpObject, key: string, path: string): string {
  const value = object[key];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw shape(path, value, 'a string');
  return value;
}

/** A double: a number, or one of JSON's names for what is not one (read as absent). */
export function doubleOf(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(value)) return undefined;
  throw shape(path, value, 'a number');
}

export function double(object: OtlpObject, key: string, path: string): number | undefined {
  return doubleOf(object[key], path);
}

/** A 64-bit integer: protobufjs gives a Long (or a number), JSON a decimal string or a number. */
export function int64Of(value: unknown, path: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) return BigInt(value);
  if (typeof value === 'object' && 'low' in value && 'high' in value && typeof (value as { toString: unknown }).toString === 'function') {
    return BigInt(String(value as object));
  }
  throw shape(path, value, 'a 64-bit integer (a number or a decimal string)');
}

export function int64(object: OtlpObject, key: string, path: string): bigint {
  return int64Of(object[key], path);
}

/** A 64-bit integer as a JSON number, exact up to 2^53 and its decimal text beyond. */
export function jsonInteger(value: bigint): number | string {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
}

/** An enum: a number, or (from some JSON senders) the value's name looked up in `names`. */
export function enumValue(object: OtlpObject, key: string, path: string, names: readonly string[]): number {
  const value = object[key];
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && names.includes(value)) return names.indexOf(value);
  throw shape(path, value, `a number or one of ${names.join(', ')}`);
}

/** A trace or span id: bytes from protobuf, hex from JSON; undefined when empty (a root span's parent). */
export function id(object: OtlpObject, key: string, path: string, bytes: number): string | undefined {
  const value = object[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (value instanceof Uint8Array) {
    if (value.length === 0) return undefined;
    if (value.length !== bytes) throw shape(path, `${value.length} bytes`, `${bytes} bytes`);
    return Buffer.from(value).toString('hex');
  }
  if (typeof value === 'string' && value.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(value)) return value.toLowerCase();
  throw shape(path, value, `${bytes * 2} hexadecimal digits`);
}

/**
 * An AnyValue as a JSON value: strings, booleans, numbers (64-bit integers beyond 2^53 as their
 * decimal text), bytes as base64, arrays and key-value lists (objects without a prototype, so
 * that no key, `__proto__` included, is anything but data); an empty value is null.
 */
export function anyValue(value: unknown, path: string, depth = 0): unknown {
  if (value === undefined || value === null) return null;
  if (depth > 32) throw new InputError(`${path} is nested more than 32 levels deep. Expected attribute values nested less deeply.`);
  const object = message(value, path);
  if ('stringValue' in object && object.stringValue !== undefined && object.stringValue !== null) return text(object, 'stringValue', `${path}.stringValue`);
  if ('boolValue' in object && object.boolValue !== undefined && object.boolValue !== null) {
    if (typeof object.boolValue !== 'boolean') throw shape(`${path}.boolValue`, object.boolValue, 'true or false');
    return object.boolValue;
  }
  if ('intValue' in object && object.intValue !== undefined && object.intValue !== null) return jsonInteger(int64(object, 'intValue', `${path}.intValue`));
  if ('doubleValue' in object && object.doubleValue !== undefined && object.doubleValue !== null) return double(object, 'doubleValue', `${path}.doubleValue`) ?? null;
  if ('bytesValue' in object && object.bytesValue !== undefined && object.bytesValue !== null) {
    const bytes = object.bytesValue;
    if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString('base64');
    if (typeof bytes === 'string') return bytes;
    throw shape(`${path}.bytesValue`, bytes, 'base64 text');
  }
  const array = child(object, 'arrayValue', `${path}.arrayValue`);
  if (array) return list(array, 'values', `${path}.arrayValue.values`).map((item, index) => anyValue(item, `${path}.arrayValue.values[${index}]`, depth + 1));
  const kvlist = child(object, 'kvlistValue', `${path}.kvlistValue`);
  if (kvlist) return attributes(kvlist, 'values', `${path}.kvlistValue.values`, depth + 1);
  return null;
}

/** A list of KeyValue as an object without a prototype; the last value of a repeated key wins. */
export function attributes(object: OtlpObject, key: string, path: string, depth = 0): Record<string, unknown> {
  const result = Object.create(null) as Record<string, unknown>;
  list(object, key, path).forEach((pair, index) => {
    const name = text(pair, 'key', `${path}[${index}].key`);
    const value = anyValue(pair.value, `${path}[${index}].value`, depth);
    if (name !== '' && value !== null) result[name] = value;
  });
  return result;
}

function shape(path: string, value: unknown, expected: string): InputError {
  return new InputError(`Invalid ${path} ${typeof value === 'string' && value.endsWith('bytes') ? value : previewJson(value)}. Expected ${expected}.`);
}
