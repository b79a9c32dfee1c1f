/**
 * Grafana alerting webhook contact point.
 *
 * Authenticity: when the contact point has an HMAC secret, `X-Grafana-Alerting-Signature` is the
 * bare hex HMAC-SHA256 of the body, or of `"<unix seconds>:<body>"` when a timestamp header is
 * configured (`X-Grafana-Alerting-Signature-Timestamp`). Without HMAC, the contact point's
 * authorization setting sends `Authorization: Bearer <secret>`; the bridge accepts either.
 *
 * The payload extends Alertmanager's; each alert is its own event (see alert-group.ts). Keys are
 * scoped by orgId because fingerprints are hashes of labels, which two orgs may share.
 */

import { alertEvent, readAlert } from './alert-group.js';
import { firstPresent } from './context.js';
import { JsonReader } from './json.js';
import type { BridgeEvent, IncomingWebhook, ParseResult, VerifyResult, WebhookSource } from './types.js';
import { header, matchesAnyHmac, noSecretConfigured, rejected, usableSecrets, verifyBearer, VERIFIED } from './verify.js';

const SIGNATURE_HEADER = 'x-grafana-alerting-signature';
const TIMESTAMP_HEADER = 'x-grafana-alerting-signature-timestamp';
/** Signed deliveries older or newer than this are replays (or a clock far off): Grafana sends at once. */
export const GRAFANA_TIMESTAMP_TOLERANCE_MS = 5 * 60_000;

async function verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult> {
  const signature = header(webhook, SIGNATURE_HEADER);
  if (signature === undefined) return verifyBearer('grafana', webhook, secrets);
  const usable = usableSecrets(secrets);
  if (usable.length === 0) return noSecretConfigured('grafana');
  const timestamp = header(webhook, TIMESTAMP_HEADER);
  if (timestamp !== undefined) {
    if (!/^\d{1,12}$/.test(timestamp)) return rejected('X-Grafana-Alerting-Signature-Timestamp must be Unix seconds.');
    if (Math.abs(webhook.receivedAt - Number(timestamp) * 1000) > GRAFANA_TIMESTAMP_TOLERANCE_MS) {
      return rejected('X-Grafana-Alerting-Signature-Timestamp is more than 5 minutes away from the time received.');
    }
  }
  const prefix = timestamp === undefined ? undefined : `${timestamp}:`;
  return matchesAnyHmac('sha256', usable, webhook.rawBody, [signature], prefix)
    ? VERIFIED
    : rejected('X-Grafana-Alerting-Signature does not match the body under any configured secret.');
}

/** Grafana's "Test" button sends this made-up alert; it is not an incident. */
function isTestAlert(labels: Record<string, string>): boolean {
  return labels.alertname === 'TestAlert' && labels.instance === 'Grafana';
}

function parse(webhook: IncomingWebhook): ParseResult {
  const body = JsonReader.parse(webhook.rawBody);
  const orgId = body.has('orgId') ? body.id('orgId') : undefined;
  const externalUrl = body.optionalString('externalURL');
  const receiver = body.optionalString('receiver');
  const events: BridgeEvent[] = [];
  for (const alert of body.objects('alerts')) {
    const reading = readAlert(alert);
    if (reading === undefined || isTestAlert(reading.labels)) continue;
    events.push(
      alertEvent(reading, {
        source: 'grafana',
        ...(orgId === undefined ? {} : { scope: `org${orgId}` }),
        url: firstPresent(
          alert.optionalString('panelURL'),
          alert.optionalString('dashboardURL'),
          alert.optionalString('generatorURL'),
          externalUrl,
        ),
        receivedAt: webhook.receivedAt,
        extraContext: {
          receiver,
          org_id: orgId,
          folder: reading.labels.grafana_folder,
          values: alert.optionalString('valueString'),
        },
      }),
    );
  }
  if (events.length === 0) return { kind: 'ignored', reason: 'The delivery carries no firing or resolved alert.' };
  return { kind: 'events', events };
}

export const grafanaSource: WebhookSource = { name: 'grafana', verify, parse };
