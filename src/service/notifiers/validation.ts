import { InputError } from '../../common/errors.js';
import { previewJson } from '../../common/json-preview.js';
import { optionalString, optionalTime, readFields, requiredString, type Fields } from '../json-fields.js';
import { compileBodyTemplate, TemplateError } from './template.js';

export const NOTIFIER_LIMITS = {
  name: 256,
  url: 2048,
  headers: 50,
  headerValue: 8192,
  body: 16_384,
} as const;

/**
 * What a GET shows instead of a header's value: headers carry credentials (the bridge's bearer
 * secret). An update that sends this text back for a header keeps the value stored for it, so that
 * a client may fetch a notifier, change its name and send it back without erasing its secrets.
 */
export const MASKED_HEADER_VALUE = '********';

/** A custom webhook notifier as a request describes it, after validation. */
export interface NotifierInput {
  name: string;
  url: string;
  /** Header name → value; `MASKED_HEADER_VALUE` means "keep the stored value" (updates only). */
  headers: Record<string, string>;
  /** A body template; "" sends Axiom's default payload. */
  body: string;
  disabledUntilMs: number | undefined;
}

const NOTIFIER_FIELDS = ['name', 'properties', 'disabledUntil'];
const READ_ONLY_FIELDS = ['id', 'createdAt', 'createdBy', 'updatedAt', 'labelIds'];
/** Kinds of notifier the hosted service has; only the custom webhook is delivered locally. */
const PROPERTY_KINDS = ['customWebhook', 'discord', 'discordWebhook', 'email', 'opsgenie', 'pagerduty', 'slack', 'webhook', 'microsoftTeams'];
const WEBHOOK_FIELDS = ['url', 'headers', 'body'];

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers that describe the connection or the body framing, which the HTTP client sets itself. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);

export function parseNotifier(body: unknown): NotifierInput {
  const fields = readFields(body, 'the request body', NOTIFIER_FIELDS, READ_ONLY_FIELDS);
  const name = requiredString(fields, 'name', NOTIFIER_LIMITS.name, 'On-call webhook');
  const webhook = readCustomWebhook(fields);
  return { name, ...webhook, disabledUntilMs: optionalTime(fields, 'disabledUntil') };
}

function readCustomWebhook(fields: Fields): Pick<NotifierInput, 'url' | 'headers' | 'body'> {
  const expected = 'Expected properties.customWebhook with url, and optionally headers and body.';
  const propertiesValue = fields.get('properties');
  if (propertiesValue === undefined) throw new InputError(`Missing properties. ${expected}`);
  const properties = readFields(propertiesValue, 'properties', PROPERTY_KINDS);
  const other = [...properties.keys()].filter((kind) => kind !== 'customWebhook');
  if (other.length > 0) {
    throw new InputError(`Notifier kind ${other.join(', ')} is not delivered by the local service. ${expected}`);
  }
  const webhookValue = properties.get('customWebhook');
  if (webhookValue === undefined) throw new InputError(`Missing properties.customWebhook. ${expected}`);
  const webhook = readFields(webhookValue, 'properties.customWebhook', WEBHOOK_FIELDS);
  return {
    url: readUrl(webhook.get('url')),
    headers: readHeaders(webhook.get('headers')),
    body: readBody(webhook),
  };
}

/** The URL may carry credentials (userinfo, a token in the query), so messages never quote it. */
function readUrl(value: unknown): string {
  const expected = 'Expected an absolute http:// or https:// URL such as "http://127.0.0.1:8081/webhooks/monitor".';
  if (value === undefined || value === '') throw new InputError(`Missing properties.customWebhook.url. ${expected}`);
  if (typeof value !== 'string') throw new InputError(`Invalid properties.customWebhook.url ${previewJson(value)}. ${expected}`);
  if (value.length > NOTIFIER_LIMITS.url) {
    throw new InputError(`Invalid properties.customWebhook.url: ${value.length} characters. Expected at most ${NOTIFIER_LIMITS.url}.`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InputError(`Invalid properties.customWebhook.url: it is not an absolute URL. ${expected}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InputError(`Invalid properties.customWebhook.url: the scheme is ${JSON.stringify(url.protocol.slice(0, -1))}. ${expected}`);
  }
  return value;
}

/** Header values are secrets: messages name the header, never its value. */
function readHeaders(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError('Invalid properties.customWebhook.headers. Expected an object of header names to string values.');
  }
  const entries = Object.entries(value);
  if (entries.length > NOTIFIER_LIMITS.headers) {
    throw new InputError(`Invalid properties.customWebhook.headers: ${entries.length} headers. Expected at most ${NOTIFIER_LIMITS.headers}.`);
  }
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, headerValue] of entries) {
    const quoted = JSON.stringify(name.slice(0, 80));
    if (!HEADER_NAME.test(name)) throw new InputError(`Invalid header name ${quoted}. Expected letters, digits and -, such as "Authorization".`);
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) throw new InputError(`Header ${quoted} is set by the HTTP client itself. Expected any other header.`);
    if (seen.has(lower)) throw new InputError(`Header ${quoted} is given twice (names differ only in case). Expected it once.`);
    seen.add(lower);
    if (typeof headerValue !== 'string') throw new InputError(`The value of header ${quoted} is not a string. Expected a string.`);
    if (/[\r\n\0]/.test(headerValue)) throw new InputError(`The value of header ${quoted} contains a line break or NUL. Expected a single line.`);
    if (headerValue.length > NOTIFIER_LIMITS.headerValue) {
      throw new InputError(`The value of header ${quoted} has ${headerValue.length} characters. Expected at most ${NOTIFIER_LIMITS.headerValue}.`);
    }
    headers[name] = headerValue;
  }
  return headers;
}

function readBody(webhook: Fields): string {
  const body = optionalString(webhook, 'body', NOTIFIER_LIMITS.body) ?? '';
  try {
    compileBodyTemplate(body);
  } catch (error) {
    if (error instanceof TemplateError) throw new InputError(`Invalid properties.customWebhook.body: ${error.message}`);
    throw error;
  }
  return body;
}
