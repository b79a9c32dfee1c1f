/**
 * Axiom-style monitor webhooks: `{action: "Open" | "Closed", event: {monitorID, title, …}}`.
 *
 * The sender cannot sign: it sends `Authorization: Bearer <secret>` as a custom header.
 * Open starts an incident span and Closed finishes it as resolved; match monitors only ever
 * send Open, so their spans are closed by the core's maximum open time.
 *
 * A monitor has no episode id: the same monitorID + group opens and closes again and again. The
 * correlation key is therefore monitorID + groupValues, and the core tells episodes apart by time
 * (a start after a finished span begins a new span).
 */

import { buildContext, prefixed } from './context.js';
import { JsonReader } from './json.js';
import { parseGoTime } from './times.js';
import type { IncomingWebhook, ParseResult, VerifyResult, WebhookSource } from './types.js';
import { verifyBearer } from './verify.js';

async function verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult> {
  return verifyBearer('monitor', webhook, secrets);
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function parse(webhook: IncomingWebhook): ParseResult {
  const body = JsonReader.parse(webhook.rawBody);
  const action = body.string('action');
  if (action !== 'Open' && action !== 'Closed') {
    return { kind: 'ignored', reason: `Monitor action "${action}" neither opens nor closes an incident.` };
  }
  const event = body.object('event');
  const monitorId = event.id('monitorID');
  const title = event.optionalString('title') ?? monitorId;
  const timestamp = event.string('timestamp');
  const occurredAt = parseGoTime('event.timestamp', timestamp);
  const groupKeys = (event.optionalArray('groupKeys') ?? []).map(asText);
  const groupValues = (event.optionalArray('groupValues') ?? []).map(asText);
  // JSON keeps ["a,b"] and ["a", "b"] apart, which joining with a comma would not.
  const group = groupValues.length === 0 ? '' : `:${JSON.stringify(groupValues)}`;
  const groups: Record<string, string> = {};
  groupKeys.forEach((key, index) => {
    const value = groupValues[index];
    if (value !== undefined) groups[key] = value;
  });
  const groupSuffix = groupValues.length === 0 ? '' : ` (${groupValues.join(', ')})`;
  const description = event.optionalString('description') ?? event.optionalString('body');
  const value = event.raw('value');

  return {
    kind: 'events',
    events: [
      {
        source: 'monitor',
        dedupeKey: `monitor:${monitorId}:${action}:${timestamp}${group}`,
        correlationKey: `monitor:${monitorId}${group}`,
        phase: action === 'Open' ? 'start' : 'finish',
        ...(action === 'Closed' ? { outcome: 'resolved' as const } : {}),
        occurredAt,
        category: 'incident',
        title: `Monitor ${title}${groupSuffix} ${action === 'Open' ? 'opened' : 'closed'}`,
        ...(description === undefined ? {} : { description }),
        context: {
          ...buildContext({
            monitor: title,
            monitor_id: monitorId,
            action,
            value: value === undefined || value === null ? undefined : asText(value),
          }),
          ...prefixed('group', groups),
        },
      },
    ],
  };
}

export const monitorSource: WebhookSource = { name: 'monitor', verify, parse };
