/**
 * Prometheus Alertmanager webhook receiver (payload version 4).
 *
 * Alertmanager cannot sign: configure `http_config.authorization.credentials` so it sends
 * `Authorization: Bearer <secret>`. Each alert in a delivery is its own event (see alert-group.ts).
 */

import { alertEvent, readAlert } from './alert-group.js';
import { firstPresent } from './context.js';
import { JsonReader } from './json.js';
import type { BridgeEvent, IncomingWebhook, ParseResult, VerifyResult, WebhookSource } from './types.js';
import { MalformedPayloadError } from './types.js';
import { verifyBearer } from './verify.js';

async function verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult> {
  return verifyBearer('alertmanager', webhook, secrets);
}

function parse(webhook: IncomingWebhook): ParseResult {
  const body = JsonReader.parse(webhook.rawBody);
  const version = body.string('version');
  if (version !== '4') {
    throw new MalformedPayloadError(`Field "version" is ${JSON.stringify(version)}. Expected "4" (Alertmanager webhook payload version 4).`);
  }
  const externalUrl = body.optionalString('externalURL');
  const receiver = body.optionalString('receiver');
  const events: BridgeEvent[] = [];
  for (const alert of body.objects('alerts')) {
    const reading = readAlert(alert);
    if (reading === undefined) continue;
    events.push(
      alertEvent(reading, {
        source: 'alertmanager',
        // The expression's graph in Prometheus says most about why it fired.
        url: firstPresent(alert.optionalString('generatorURL'), externalUrl),
        receivedAt: webhook.receivedAt,
        extraContext: { receiver },
      }),
    );
  }
  if (events.length === 0) return { kind: 'ignored', reason: 'The delivery carries no firing or resolved alert.' };
  return { kind: 'events', events };
}

export const alertmanagerSource: WebhookSource = { name: 'alertmanager', verify, parse };
