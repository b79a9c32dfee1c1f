/**
 * OTLP records as events in the field layout of the hosted service's OTel datasets (the
 * `otel-demo-traces` fields of the APL reference): `trace_id`, `span_id`, `parent_span_id`,
 * `name`, `kind`, `duration` (a timespan), `error`, `status.code`, `status.message`,
 * `service.name`, `scope.*`, `attributes.*`, `resource.*`, `events` and `links`; logs have
 * `body`, `severity`, `severity_number`, `trace_id`, `span_id` beside the same `service.name`,
 * `scope.*`, `attributes.*` and `resource.*`. Every attribute goes under `attributes.<key>`: the
 * hosted service's split of custom attributes into the `attributes.custom` map (by the semantic
 * conventions of a version) is not made here.
 */
import { formatDatetime } from '../../engine/apl/literals.js';
import { TimespanValue } from '../../engine/ingest/timespan-value.js';
import { attributes, child, enumValue, id, int64, list, text, anyValue, type OtlpObject } from './otlp.js';

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

/** A time in nanoseconds as `_time` takes it, exactly; undefined for 0 (not set: the ingest time is used). */
function time(ns: bigint): string | undefined {
  return ns > 0n ? formatDatetime(ns) : undefined;
}

/** Every span of an ExportTraceServiceRequest as an event. */
export function spanEvents(request: OtlpObject): Event[] {
  const events: Event[] = [];
  list(request, 'resourceSpans', 'resourceSpans').forEach((resourceSpans, r) => {
    const resourcePath = `resourceSpans[${r}]`;
    const resource = child(resourceSpans, 'resource', `${resourcePath}.resource`);
    list(resourceSpans, 'scopeSpans', `${resourcePath}.scopeSpans`).forEach((scopeSpans, s) => {
      const scopePath = `${resourcePath}.scopeSpans[${s}]`;
      const shared = context(resource, child(scopeSpans, 'scope', `${scopePath}.scope`), resourcePath, scopePath);
      list(scopeSpans, 'spans', `${scopePath}.spans`).forEach((span, i) => {
        events.push(spanEvent(span, `${scopePath}.spans[${i}]`, shared));
      });
    });
  });
  return events;
}

function spanEvent(span: OtlpObject, path: string, shared: Event): Event {
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
  addAttributes(event, attributes(span, 'attributes', `${path}.attributes`));
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
  list(request, 'resourceLogs', 'resourceLogs').forEach((resourceLogs, r) => {
    const resourcePath = `resourceLogs[${r}]`;
    const resource = child(resourceLogs, 'resource', `${resourcePath}.resource`);
    list(resourceLogs, 'scopeLogs', `${resourcePath}.scopeLogs`).forEach((scopeLogs, s) => {
      const scopePath = `${resourcePath}.scopeLogs[${s}]`;
      const shared = context(resource, child(scopeLogs, 'scope', `${scopePath}.scope`), resourcePath, scopePath);
      list(scopeLogs, 'logRecords', `${scopePath}.logRecords`).forEach((record, i) => {
        events.push(logEvent(record, `${scopePath}.logRecords[${i}]`, shared));
      });
    });
  });
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

/** OTel's short name of a severity number: 9–12 are INFO, 17–20 ERROR; '' when unspecified. */
function severityName(number: number): string {
  if (number < 1 || number > 24) return '';
  return ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'][Math.floor((number - 1) / 4)] ?? '';
}

function setDefined(event: Event, key: string, value: string | undefined): void {
  if (value !== undefined) event[key] = value;
}
