/**
 * PagerDuty V3 webhooks (generic webhook subscriptions).
 *
 * Authenticity: `X-PagerDuty-Signature: v1=<hex HMAC-SHA256(secret, raw body)>[,v1=<hex>…]`.
 * PagerDuty lists one signature per active secret while it rotates them; any entry may match.
 *
 * Dedupe: `event.id`. It identifies the event, survives retries, and is inside the signed body
 * (unlike the `X-Webhook-Id` header, used only when the body has no id).
 * Correlation: the incident id. `incident.triggered` starts the span, `incident.resolved`
 * finishes it. `incident.reopened` starts a new episode under the same key: PagerDuty sends no
 * episode id, so, as for monitors, the core separates episodes by time (a start after the
 * latest span ended opens a new span).
 */

import { buildContext } from './context.js';
import { JsonReader } from './json.js';
import { parseRfc3339 } from './times.js';
import type { IncomingWebhook, ParseResult, VerifyResult, WebhookSource } from './types.js';
import { header, matchesAnyHmac, noSecretConfigured, rejected, usableSecrets, VERIFIED } from './verify.js';

async function verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult> {
  const usable = usableSecrets(secrets);
  if (usable.length === 0) return noSecretConfigured('pagerduty');
  const value = header(webhook, 'x-pagerduty-signature');
  if (value === undefined) return rejected('Missing X-PagerDuty-Signature header.');
  const signatures = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith('v1='))
    .map((entry) => entry.slice('v1='.length));
  if (signatures.length === 0) return rejected('X-PagerDuty-Signature has no v1= signature.');
  return matchesAnyHmac('sha256', usable, webhook.rawBody, signatures)
    ? VERIFIED
    : rejected('X-PagerDuty-Signature does not match the body under any configured secret.');
}

function parse(webhook: IncomingWebhook): ParseResult {
  const body = JsonReader.parse(webhook.rawBody);
  const event = body.object('event');
  const type = event.string('event_type');
  if (type === 'pagey.ping') return { kind: 'ignored', reason: 'pagey.ping: the subscription is set up.' };
  if (type !== 'incident.triggered' && type !== 'incident.resolved' && type !== 'incident.reopened') {
    return { kind: 'ignored', reason: `PagerDuty event "${type}" neither opens nor closes an incident.` };
  }
  const eventId = event.optionalString('id') ?? header(webhook, 'x-webhook-id') ?? event.string('id');
  const occurredAt = parseRfc3339('event.occurred_at', event.string('occurred_at'));
  const incident = event.object('data');
  const incidentId = incident.id('id');
  const number = incident.optionalNumber('number');
  const title = incident.string('title');
  const service = incident.optionalObject('service');
  const serviceName = service?.optionalString('summary');
  const url = incident.optionalString('html_url');
  const finish = type === 'incident.resolved';
  const label = number === undefined ? incidentId : `#${number}`;
  const verb = type === 'incident.triggered' ? 'triggered' : type === 'incident.reopened' ? 'reopened' : 'resolved';

  return {
    kind: 'events',
    events: [
      {
        source: 'pagerduty',
        dedupeKey: `pagerduty:${eventId}`,
        correlationKey: `pagerduty:incident:${incidentId}`,
        phase: finish ? 'finish' : 'start',
        ...(finish ? { outcome: 'resolved' as const } : {}),
        // No startedAt on resolved: the incident's created_at is the first episode's start, and
        // after a reopen it would stretch the new span back over the resolved gap.
        occurredAt,
        category: 'incident',
        title: `Incident ${label} ${verb}: ${title}`,
        description: `${title}${serviceName === undefined ? '' : ` (${serviceName})`}`,
        ...(url === undefined ? {} : { url }),
        context: buildContext({
          service: serviceName,
          service_id: service?.optionalString('id'),
          incident_id: incidentId,
          incident_number: number,
          status: incident.optionalString('status'),
          urgency: incident.optionalString('urgency'),
          priority: incident.optionalObject('priority')?.optionalString('summary'),
          escalation_policy: incident.optionalObject('escalation_policy')?.optionalString('summary'),
          created_at: incident.optionalString('created_at'),
          event_type: type,
          reopened: type === 'incident.reopened' ? 'true' : undefined,
        }),
      },
    ],
  };
}

export const pagerdutySource: WebhookSource = { name: 'pagerduty', verify, parse };
