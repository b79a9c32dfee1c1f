/**
 * Argo CD notifications (the `webhook` notification service).
 *
 * Argo CD cannot sign: the service sends `Authorization: Bearer <secret>` as a configured header.
 * The body is whatever the user's template renders, so the bridge ships one recommended template
 * (webhook-server/templates/argocd-notifications.yaml) and reads exactly that shape:
 * `{app, namespace, project, phase, startedAt, finishedAt, revision, health, message, url}`.
 *
 * Dedupe: app + operation start + phase (the `on-deployed` trigger re-sends a Succeeded that
 * `on-sync-succeeded` already sent). Correlation: `namespace/app` + operation startedAt, so every
 * sync of the same app is its own span.
 */

import { buildContext, shortSha } from './context.js';
import { JsonReader } from './json.js';
import { keyTime, parseRfc3339 } from './times.js';
import type { IncomingWebhook, Outcome, ParseResult, VerifyResult, WebhookSource } from './types.js';
import { MalformedPayloadError } from './types.js';
import { verifyBearer } from './verify.js';

async function verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult> {
  return verifyBearer('argocd', webhook, secrets);
}

const PHASES: Record<string, { phase: 'start' } | { phase: 'finish'; outcome: Outcome }> = {
  Running: { phase: 'start' },
  Succeeded: { phase: 'finish', outcome: 'success' },
  Failed: { phase: 'finish', outcome: 'failure' },
  Error: { phase: 'finish', outcome: 'error' },
};

/**
 * Go templates render a field that is absent from the Application as `<no value>` (the app is an
 * unstructured map), e.g. finishedAt while the sync is running: that means "not set".
 */
function templated(body: JsonReader, key: string): string | undefined {
  const value = body.optionalString(key);
  return value === undefined || value === '<no value>' ? undefined : value;
}

function requiredTemplated(body: JsonReader, key: string): string {
  const value = templated(body, key);
  if (value !== undefined) return value;
  const raw = body.raw(key);
  throw new MalformedPayloadError(
    `Field "${key}" is ${raw === undefined ? 'missing' : JSON.stringify(raw)}. Expected a non-empty string: check that the notification template renders it.`,
  );
}

function parse(webhook: IncomingWebhook): ParseResult {
  const body = JsonReader.parse(webhook.rawBody);
  const app = requiredTemplated(body, 'app');
  const namespace = requiredTemplated(body, 'namespace');
  const phase = requiredTemplated(body, 'phase');
  const mapped = PHASES[phase];
  // Terminating, or a phase a newer Argo CD adds: no span starts or ends.
  if (mapped === undefined) return { kind: 'ignored', reason: `Argo CD operation phase "${phase}" changes nothing.` };
  const startedAt = parseRfc3339('startedAt', requiredTemplated(body, 'startedAt'));
  const finishedAtText = templated(body, 'finishedAt');
  const finishedAt = finishedAtText === undefined ? undefined : parseRfc3339('finishedAt', finishedAtText);
  const revision = templated(body, 'revision');
  const message = templated(body, 'message');
  const url = templated(body, 'url');
  const identity = `${namespace}/${app}`;
  const startKey = keyTime(startedAt);

  return {
    kind: 'events',
    events: [
      {
        source: 'argocd',
        dedupeKey: `argocd:${identity}:${startKey}:${phase}`,
        correlationKey: `argocd:${identity}:${startKey}`,
        phase: mapped.phase,
        ...(mapped.phase === 'finish' ? { outcome: mapped.outcome } : {}),
        // A finish rendered without finishedAt (a custom template) is dated by its arrival.
        occurredAt: mapped.phase === 'start' ? startedAt : (finishedAt ?? webhook.receivedAt),
        startedAt,
        category: 'deploy',
        title: `Sync ${app}${revision === undefined ? '' : ` to ${shortSha(revision)}`}`,
        ...(message === undefined ? {} : { description: message }),
        ...(url === undefined ? {} : { url }),
        context: buildContext({
          app,
          namespace,
          project: templated(body, 'project'),
          revision,
          sha: revision !== undefined && /^[0-9a-f]{40}$/i.test(revision) ? revision : undefined,
          phase,
          health: templated(body, 'health'),
        }),
      },
    ],
  };
}

export const argocdSource: WebhookSource = { name: 'argocd', verify, parse };
