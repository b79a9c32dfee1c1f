/**
 * Flux notification-controller, `generic-hmac` provider.
 *
 * Authenticity: `X-Signature: sha256=<hex HMAC-SHA256(token, raw body)>`.
 * Flux sends one event per controller message, not per rollout: the first `info` event of a new
 * revision starts the span; `ReconciliationSucceeded` (or Helm's `InstallSucceeded` /
 * `UpgradeSucceeded`) finishes it with success, and any `*Failed` reason with failure.
 * Parsing is stateless, so every other info event of a revision is reported as a start too: the
 * core merges starts that share a correlation key, and a late start never reopens a finished span.
 */

import { createHash } from 'node:crypto';
import { buildContext } from './context.js';
import { JsonReader } from './json.js';
import { parseRfc3339 } from './times.js';
import type { IncomingWebhook, Outcome, ParseResult, VerifyResult, WebhookSource } from './types.js';
import { header, matchesAnyHmac, noSecretConfigured, rejected, usableSecrets, VERIFIED } from './verify.js';

async function verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult> {
  const usable = usableSecrets(secrets);
  if (usable.length === 0) return noSecretConfigured('flux');
  const signature = header(webhook, 'x-signature');
  if (signature === undefined) return rejected('Missing X-Signature header.');
  if (!signature.startsWith('sha256=')) return rejected('X-Signature must be of the form sha256=<hex>.');
  return matchesAnyHmac('sha256', usable, webhook.rawBody, [signature.slice('sha256='.length)])
    ? VERIFIED
    : rejected('X-Signature does not match the body under any configured secret.');
}

const SUCCESS_REASONS = new Set(['ReconciliationSucceeded', 'InstallSucceeded', 'UpgradeSucceeded']);

/**
 * The revision the object reconciled. Controllers name it differently: `revision`, a
 * group-qualified key such as `kustomize.toolkit.fluxcd.io/revision`, `originRevision` (the source
 * revision behind a Helm chart) or `commit` (older controllers).
 */
function revisionOf(metadata: JsonReader | undefined): string | undefined {
  if (metadata === undefined) return undefined;
  const qualified = Object.keys(metadata.value)
    .filter((key) => key.endsWith('/revision'))
    .sort()[0];
  return (
    metadata.optionalString('revision') ??
    (qualified === undefined ? undefined : metadata.optionalString(qualified)) ??
    metadata.optionalString('originRevision') ??
    metadata.optionalString('commit')
  );
}

/** Splits `main@sha1:<sha>` (Flux 2.1+) or `main/<sha>` (older) into ref and sha. */
function splitRevision(revision: string): { ref?: string; sha?: string } {
  const modern = /^(?:(.+)@)?(?:sha1|sha256|blake3):([0-9a-f]+)$/.exec(revision);
  if (modern) return { ...(modern[1] === undefined ? {} : { ref: modern[1] }), ...(modern[2] === undefined ? {} : { sha: modern[2] }) };
  const legacy = /^(.+)\/([0-9a-f]{40})$/.exec(revision);
  if (legacy) return { ...(legacy[1] === undefined ? {} : { ref: legacy[1] }), ...(legacy[2] === undefined ? {} : { sha: legacy[2] }) };
  if (/^[0-9a-f]{40}$/.test(revision)) return { sha: revision };
  return {};
}

function parse(webhook: IncomingWebhook): ParseResult {
  const body = JsonReader.parse(webhook.rawBody);
  const object = body.object('involvedObject');
  const kind = object.string('kind');
  const name = object.string('name');
  const namespace = object.string('namespace');
  const severity = body.string('severity');
  const reason = body.string('reason');
  const timestamp = body.string('timestamp');
  const occurredAt = parseRfc3339('timestamp', timestamp);

  let outcome: Outcome | undefined;
  if (reason.endsWith('Failed')) outcome = 'failure';
  else if (SUCCESS_REASONS.has(reason)) outcome = 'success';
  else if (severity !== 'info') {
    return { kind: 'ignored', reason: `Flux ${severity} event "${reason}" neither starts nor finishes a rollout.` };
  }
  const revision = revisionOf(body.optionalObject('metadata'));
  // Without a revision there is nothing to correlate (e.g. a failure to fetch the source at all).
  if (revision === undefined) return { kind: 'ignored', reason: `Flux event "${reason}" carries no revision.` };

  const identity = `${kind}/${namespace}/${name}`;
  const uid = object.optionalString('uid') ?? identity;
  const { ref, sha } = splitRevision(revision);
  const dedupeHash = createHash('sha256').update(JSON.stringify([uid, reason, revision, timestamp])).digest('hex');
  const message = body.optionalString('message');

  return {
    kind: 'events',
    events: [
      {
        source: 'flux',
        dedupeKey: `flux:${dedupeHash}`,
        correlationKey: `flux:${identity}:${revision}`,
        phase: outcome === undefined ? 'start' : 'finish',
        ...(outcome === undefined ? {} : { outcome }),
        occurredAt,
        category: 'deploy',
        title: `Reconcile ${kind} ${namespace}/${name} to ${ref === undefined || sha === undefined ? revision : `${ref}@${sha.slice(0, 7)}`}`,
        ...(message === undefined ? {} : { description: message }),
        context: buildContext({
          kind,
          name,
          namespace,
          revision,
          ref,
          sha,
          reason,
          severity,
          controller: body.optionalString('reportingController'),
        }),
      },
    ],
  };
}

export const fluxSource: WebhookSource = { name: 'flux', verify, parse };
