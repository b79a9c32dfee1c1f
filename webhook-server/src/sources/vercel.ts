/**
 * Vercel deployment webhooks.
 *
 * Authenticity: `x-vercel-signature: <hex HMAC-SHA1(secret, raw body)>`, without a prefix.
 * Dedupe: the envelope `id`. Correlation: `payload.deployment.id`. Vercel does not promise order.
 */

import { buildContext, firstPresent, shortSha } from './context.js';
import { JsonReader } from './json.js';
import { parseEpochMs } from './times.js';
import type { IncomingWebhook, Outcome, ParseResult, VerifyResult, WebhookSource } from './types.js';
import { header, matchesAnyHmac, noSecretConfigured, rejected, usableSecrets, VERIFIED } from './verify.js';

async function verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult> {
  const usable = usableSecrets(secrets);
  if (usable.length === 0) return noSecretConfigured('vercel');
  const signature = header(webhook, 'x-vercel-signature');
  if (signature === undefined) return rejected('Missing x-vercel-signature header.');
  return matchesAnyHmac('sha1', usable, webhook.rawBody, [signature])
    ? VERIFIED
    : rejected('x-vercel-signature does not match the body under any configured secret.');
}

const TYPES: Record<string, { phase: 'start' } | { phase: 'finish'; outcome: Outcome }> = {
  'deployment.created': { phase: 'start' },
  'deployment.succeeded': { phase: 'finish', outcome: 'success' },
  // The legacy name of deployment.succeeded, still sent to older integrations.
  'deployment.ready': { phase: 'finish', outcome: 'success' },
  'deployment.error': { phase: 'finish', outcome: 'failure' },
  'deployment.canceled': { phase: 'finish', outcome: 'canceled' },
};

function parse(webhook: IncomingWebhook): ParseResult {
  const body = JsonReader.parse(webhook.rawBody);
  const type = body.string('type');
  const mapped = TYPES[type];
  if (mapped === undefined) return { kind: 'ignored', reason: `Vercel event "${type}" changes no deployment span.` };
  const id = body.id('id');
  const occurredAt = parseEpochMs('createdAt', body.raw('createdAt'));
  const payload = body.object('payload');
  const deployment = payload.object('deployment');
  const deploymentId = deployment.id('id');
  const name = deployment.string('name');
  const meta = deployment.optionalObject('meta');
  const sha = meta?.optionalString('githubCommitSha') ?? meta?.optionalString('gitlabCommitSha') ?? meta?.optionalString('bitbucketCommitSha');
  const ref = meta?.optionalString('githubCommitRef') ?? meta?.optionalString('gitlabCommitRef') ?? meta?.optionalString('bitbucketCommitRef');
  const org = meta?.optionalString('githubOrg') ?? meta?.optionalString('githubCommitOrg');
  const repo = meta?.optionalString('githubRepo') ?? meta?.optionalString('githubCommitRepo');
  // `target` is null for preview deployments.
  const environment = payload.optionalString('target') ?? 'preview';
  const host = deployment.optionalString('url');
  const hostUrl = host === undefined || /^https?:\/\//.test(host) ? host : `https://${host}`;
  const url = firstPresent(payload.optionalObject('links')?.optionalString('deployment'), hostUrl);
  const description = meta?.optionalString('githubCommitMessage')?.split('\n')[0];

  return {
    kind: 'events',
    events: [
      {
        source: 'vercel',
        dedupeKey: `vercel:${id}`,
        correlationKey: `vercel:deployment:${deploymentId}`,
        phase: mapped.phase,
        ...(mapped.phase === 'finish' ? { outcome: mapped.outcome } : {}),
        occurredAt,
        category: 'deploy',
        title: `Deploy ${name} to ${environment}${sha === undefined ? '' : ` (${shortSha(sha)})`}`,
        ...(description === undefined ? {} : { description }),
        ...(url === undefined ? {} : { url }),
        context: buildContext({
          project: name,
          environment,
          ref,
          sha,
          repository: org !== undefined && repo !== undefined ? `${org}/${repo}` : undefined,
          deployment_id: deploymentId,
          host,
          type,
        }),
      },
    ],
  };
}

export const vercelSource: WebhookSource = { name: 'vercel', verify, parse };
