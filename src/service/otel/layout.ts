/**
 * OTLP records as events in the field layout of the hosted service's OTel datasets (the
 * `otel-demo-traces` fields of the APL reference): `trace_id`, `span_id`, `parent_span_id`,
 * `name`, `kind`, `duration` (a timespan), `error`, `status.code`, `status.message`,
 * `service.name`, `scope.*`, `attributes.*`, `resource.*`, `events` and `links`; logs have
 * `body`, `severity`, `severity_number`, `trace_id`, `span_id` beside the same `service.name`,
 * `scope.*`, `attributes.*` and `resource.*`; metrics one event per data point (metricEvents).
 * A span's attributes go under `attributes.<key>`, except, when its dataset has the
 * `attributes.custom` map field (OTel trace datasets are made with it), the custom ones: those
 * that are not names of the semantic conventions (semantic-conventions.ts) go into that map, one
 * key each, as the hosted service files them. Log and metric attributes all go under
 * `attributes.<key>`.
 */
import { InputError } from '../../common/errors.js';
import { formatDatetime } from '../../engine/apl/literals.js';
import { TimespanValue } from '../../engine/ingest/timespan-value.js';
import { SEMANTIC_CONVENTION_ATTRIBUTES, SEMANTIC_CONVENTION_TEMPLATE_PREFIXES } from './semantic-conventions.js';
import { attributes, child, double, doubleOf, enumValue, id, int64, int64Of, jsonInteger, list, text, anyValue, type OtlpObject } from './otlp.js';

const SPAN_KINDS = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER'];
const KIND_NAMES = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
const STATUS_CODES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];
const SEVERITY_NUMBERS = ['SEVERITY_NUMBER_UNSPECIFIED', ...['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'].flatMap((name) => ['', '2', '3', '4'].map((n) => `SEVERITY_NUMBER_${name}${n}`))];

/** An event under construction: no prototype, so that no key is anything but data. */
type Event = Record<string, unknown>;

const newEvent = (): Event => Object.create(null) as Event;

/** `resource.*` (with `service.name` at the top) and `scope.*`, shared by every record of a scope. */
function context(resource: OtlpObject | undefined, scope: OtlpObject | undefined, path: string, scopePath: string): Event {
  const event = newEvent();
  if (resource) {
    for (const [key, value] of Object.entries(attributes(resource, 'attributes', `${path}.resource.attributes`))) {
      if (key === 'service.name') event['service.name'] = value;
      else event[`resource.${key}`] = value;
    }
  }
  if (scope) {
    const name = text(scope, 'name', `${scopePath}.scope.name`);
    const version = text(scope, 'version', `${scopePath}.scope.version`);
    if (name !== '') event['scope.name'] = name;
    if (version !== '') event['scope.version'] = version;
    for (const [key, value] of Object.entries(attributes(scope, 'attributes', `${scopePath}.scope.attributes`))) event[`scope.attributes.${key}`] = value;
  }
  return event;
}

function addAttributes(event: Event, values: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(values)) event[`attributes.${key}`] = value;
}

/** How spans are laid out for their dataset. */
export interface SpanLayout {
  /** The map field that takes the custom attributes (`attributes.custom`); absent: every attribute is `attributes.<key>`. */
  readonly customAttributes?: string;
}

const SEMANTIC_NAMES: ReadonlySet<string> = new Set(SEMANTIC_CONVENTION_ATTRIBUTES);

/** Whether an attribute is one of the semantic conventions: a name of the registry, or a template's prefix and a key. */
export function isSemanticConventionAttribute(key: string): boolean {
  return SEMANTIC_NAMES.has(key) || SEMANTIC_CONVENTION_TEMPLATE_PREFIXES.some((prefix) => key.length > prefix.length && key.startsWith(prefix));
}

/** A span's attributes: the conventions' under `attributes.<key>`, the rest in the map field, as one object. */
function addSpanAttributes(event: Event, values: Record<string, unknown>, layout: SpanLayout): void {
  if (layout.customAttributes === undefined) {
    addAttributes(event, values);
    return;
  }
  const custom = newEvent();
  let any = false;
  for (const [key, value] of Object.entries(values)) {
    if (isSemanticConventionAttribute(key)) event[`attributes.${key}`] = value;
    else {
      custom[key] = value;
      any = true;
    }
  }
  if (any) event[layout.customAttributes] = custom;
}

/** A time in nanoseconds as `_time` takes it, exactly; undefined for 0 (not set: the ingest time is used). */
function time(ns: bigint): string | undefined {
  return ns > 0n ? formatDatetime(ns) : undefined;
}

/**
 * Walks an export request's resources, their scopes and the scopes' records (`names`), calling
 * `each` with every record, its path for errors and the fields its resource and scope give it.
 */
function eachRecord(request: OtlpObject, names: readonly [string, string, string], each: (record: OtlpObject, path: string, shared: Event) => void): void {
  const [resources, scopes, records] = names;
  list(request, resources, resources).forEach((resourceItem, r) => {
    const resourcePath = `${resources}[${r}]`;
    const resource = child(resourceItem, 'resource', `${resourcePath}.resource`);
    list(resourceItem, scopes, `${resourcePath}.${scopes}`).forEach((scopeItem, s) => {
      const scopePath = `${resourcePath}.${scopes}[${s}]`;
      const shared = context(resource, child(scopeItem, 'scope', `${scopePath}.scope`), resourcePath, scopePath);
      list(scopeItem, records, `${scopePath}.${records}`).forEach((record, i) => each(record, `${scopePath}.${records}[${i}]`, shared));
    });
  });
}

/** Every span of an ExportTraceServiceRequest as an event. */
export function spanEvents(request: OtlpObject, layout: SpanLayout = {}): Event[] {
  const events: Event[] = [];
  eachRecord(request, ['resourceSpans', 'scopeSpans', 'spans'], (span, path, shared) => events.push(spanEvent(span, path, shared, layout)));
  return events;
}

function spanEvent(span: OtlpObject, path: string, shared: Event, layout: SpanLayout): Event {
  const event = newEvent();
  const start = int64(span, 'startTimeUnixNano', `${path}.startTimeUnixNano`);
  const end = int64(span, 'endTimeUnixNano', `${path}.endTimeUnixNano`);
  const startTime = time(start);
  if (startTime !== undefined) event._time = startTime;
  setDefined(event, 'trace_id', id(span, 'traceId', `${path}.traceId`, 16));
  setDefined(event, 'span_id', id(span, 'spanId', `${path}.spanId`, 8));
  setDefined(event, 'parent_span_id', id(span, 'parentSpanId', `${path}.parentSpanId`, 8));
  event.name = text(span, 'name', `${path}.name`);
  event.kind = KIND_NAMES[enumValue(span, 'kind', `${path}.kind`, SPAN_KINDS)] ?? 'unspecified';
  event.duration = new TimespanValue(start > 0n && end >= start ? end - start : 0n);
  const status = child(span, 'status', `${path}.status`);
  const code = status ? enumValue(status, 'code', `${path}.status.code`, STATUS_CODES) : 0;
  event.error = code === 2;
  if (code === 1) event['status.code'] = 'OK';
  if (code === 2) event['status.code'] = 'ERROR';
  const statusMessage = status ? text(status, 'message', `${path}.status.message`) : '';
  if (statusMessage !== '') event['status.message'] = statusMessage;
  Object.assign(event, shared);
  addSpanAttributes(event, attributes(span, 'attributes', `${path}.attributes`), layout);
  const spanEvents = list(span, 'events', `${path}.events`).map((item, index) => {
    const at = `${path}.events[${index}]`;
    const entry = newEvent();
    entry.name = text(item, 'name', `${at}.name`);
    setDefined(entry, 'timestamp', time(int64(item, 'timeUnixNano', `${at}.timeUnixNano`)));
    entry.attributes = attributes(item, 'attributes', `${at}.attributes`);
    return entry;
  });
  if (spanEvents.length > 0) event.events = spanEvents;
  const links = list(span, 'links', `${path}.links`).map((item, index) => {
    const at = `${path}.links[${index}]`;
    const entry = newEvent();
    setDefined(entry, 'trace_id', id(item, 'traceId', `${at}.traceId`, 16));
    setDefined(entry, 'span_id', id(item, 'spanId', `${at}.spanId`, 8));
    entry.attributes = attributes(item, 'attributes', `${at}.attributes`);
    return entry;
  });
  if (links.length > 0) event.links = links;
  return event;
}

/** Every log record of an ExportLogsServiceRequest as an event. */
export function logEvents(request: OtlpObject): Event[] {
  const events: Event[] = [];
  eachRecord(request, ['resourceLogs', 'scopeLogs', 'logRecords'], (record, path, shared) => events.push(logEvent(record, path, shared)));
  return events;
}

function logEvent(record: OtlpObject, path: string, shared: Event): Event {
  const event = newEvent();
  const at = int64(record, 'timeUnixNano', `${path}.timeUnixNano`) || int64(record, 'observedTimeUnixNano', `${path}.observedTimeUnixNano`);
  setDefined(event, '_time', time(at));
  const body = anyValue(record.body, `${path}.body`);
  if (body !== null) event.body = body;
  const number = enumValue(record, 'severityNumber', `${path}.severityNumber`, SEVERITY_NUMBERS);
  const severity = text(record, 'severityText', `${path}.severityText`) || severityName(number);
  if (severity !== '') event.severity = severity;
  if (number > 0) event.severity_number = number;
  setDefined(event, 'trace_id', id(record, 'traceId', `${path}.traceId`, 16));
  setDefined(event, 'span_id', id(record, 'spanId', `${path}.spanId`, 8));
  const eventName = text(record, 'eventName', `${path}.eventName`);
  if (eventName !== '') event.event_name = eventName;
  Object.assign(event, shared);
  addAttributes(event, attributes(record, 'attributes', `${path}.attributes`));
  return event;
}

const TEMPORALITIES = ['AGGREGATION_TEMPORALITY_UNSPECIFIED', 'AGGREGATION_TEMPORALITY_DELTA', 'AGGREGATION_TEMPORALITY_CUMULATIVE'];
const TEMPORALITY_NAMES = ['unspecified', 'delta', 'cumulative'];
const METRIC_TYPES = [
  ['gauge', 'gauge'],
  ['sum', 'sum'],
  ['histogram', 'histogram'],
  ['exponentialHistogram', 'exponential_histogram'],
  ['summary', 'summary'],
] as const;

/**
 * Every data point of an ExportMetricsServiceRequest as an event. The hosted service keeps
 * metrics in a store of their own, queried with MPL; here they are events a query reads with
 * APL: `_time`, `name`, `description`, `unit`, `type` (`gauge`, `sum`, `histogram`,
 * `exponential_histogram`, `summary`), `temporality` and `monotonic` where the type has them,
 * `start_time`, the point's numbers (`value`; or `count`, `sum`, `min`, `max` with
 * `bucket_counts` and `explicit_bounds`, `scale` and `zero_count`, or `quantiles`), and the
 * same `service.name`, `resource.*`, `scope.*` and `attributes.*` as spans.
 */
export function metricEvents(request: OtlpObject): Event[] {
  const events: Event[] = [];
  eachRecord(request, ['resourceMetrics', 'scopeMetrics', 'metrics'], (metric, path, shared) => {
    const base = newEvent();
    base.name = text(metric, 'name', `${path}.name`);
    const description = text(metric, 'description', `${path}.description`);
    if (description !== '') base.description = description;
    const unit = text(metric, 'unit', `${path}.unit`);
    if (unit !== '') base.unit = unit;
    for (const [key, type] of METRIC_TYPES) {
      const data = child(metric, key, `${path}.${key}`);
      if (!data) continue;
      base.type = type;
      if (type !== 'gauge' && type !== 'summary') {
        base.temporality = TEMPORALITY_NAMES[enumValue(data, 'aggregationTemporality', `${path}.${key}.aggregationTemporality`, TEMPORALITIES)] ?? 'unspecified';
      }
      if (type === 'sum') base.monotonic = data.isMonotonic === true;
      list(data, 'dataPoints', `${path}.${key}.dataPoints`).forEach((point, p) => {
        events.push(dataPointEvent(point, `${path}.${key}.dataPoints[${p}]`, type, base, shared));
      });
    }
  });
  return events;
}

function dataPointEvent(point: OtlpObject, path: string, type: string, base: Event, shared: Event): Event {
  const event = newEvent();
  setDefined(event, '_time', time(int64(point, 'timeUnixNano', `${path}.timeUnixNano`)));
  Object.assign(event, base);
  setDefined(event, 'start_time', time(int64(point, 'startTimeUnixNano', `${path}.startTimeUnixNano`)));
  const number = (key: string, value: number | string | undefined): void => {
    if (value !== undefined) event[key] = value;
  };
  if (type === 'gauge' || type === 'sum') {
    const asInt = point.asInt;
    number('value', asInt !== undefined && asInt !== null ? jsonInteger(int64Of(asInt, `${path}.asInt`)) : double(point, 'asDouble', `${path}.asDouble`));
  } else {
    number('count', jsonInteger(int64(point, 'count', `${path}.count`)));
    number('sum', double(point, 'sum', `${path}.sum`));
    number('min', double(point, 'min', `${path}.min`));
    number('max', double(point, 'max', `${path}.max`));
  }
  if (type === 'histogram') {
    event.bucket_counts = numbers(point, 'bucketCounts', path).map((value, index) => jsonInteger(int64Of(value, `${path}.bucketCounts[${index}]`)));
    event.explicit_bounds = numbers(point, 'explicitBounds', path).map((value, index) => doubleOf(value, `${path}.explicitBounds[${index}]`) ?? null);
  }
  if (type === 'exponential_histogram') {
    event.scale = typeof point.scale === 'number' ? point.scale : 0;
    number('zero_count', jsonInteger(int64(point, 'zeroCount', `${path}.zeroCount`)));
  }
  if (type === 'summary') {
    event.quantiles = list(point, 'quantileValues', `${path}.quantileValues`).map((quantile, index) => ({
      quantile: double(quantile, 'quantile', `${path}.quantileValues[${index}].quantile`) ?? null,
      value: double(quantile, 'value', `${path}.quantileValues[${index}].value`) ?? null,
    }));
  }
  Object.assign(event, shared);
  addAttributes(event, attributes(point, 'attributes', `${path}.attributes`));
  return event;
}

/** A repeated scalar member (bucket counts, bounds); absent is none. */
function numbers(point: OtlpObject, key: string, path: string): unknown[] {
  const value = point[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new InputError(`Invalid ${path}.${key}. Expected an array of numbers.`);
  return value;
}

/** OTel's short name of a severity number: 9–12 are INFO, 17–20 ERROR; '' when unspecified. */
function severityName(number: number): string {
  if (number < 1 || number > 24) return '';
  return ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'][Math.floor((number - 1) / 4)] ?? '';
}

function setDefined(event: Event, key: string, value: string | undefined): void {
  if (value !== undefined) event[key] = value;
}
