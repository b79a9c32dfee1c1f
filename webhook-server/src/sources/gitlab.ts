/**
 * GitLab Deployment Hooks.
 *
 * Authenticity: `X-Gitlab-Token` carries the secret token in plain text (GitLab does not sign).
 * Dedupe: `Idempotency-Key` (GitLab 17.4+, kept on retries), else instance + deployment id + status.
 * Correlation: instance + project id + deployment id. GitLab may disable a hook that gets 4xx
 * replies, so everything valid that the bridge does not use is answered as ignored (2xx).
 */

import { buildContext, firstPresent, shortSha } from './context.js';
import { JsonReader } from './json.js';
import { parseGitlabTime } from './times.js';
import type { IncomingWebhook, Outcome, ParseResult, VerifyResult, WebhookSource } from './types.js';
import { MalformedPayloadError } from './types.js';
import { header, matchesAnyToken, noSecretConfigured, rejected, usableSecrets, VERIFIED } from './verify.js';

async function verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult> {
  const usable = usableSecrets(secrets);
  if (usable.length === 0) return noSecretConfigured('gitlab');
  const token = header(webhook, 'x-gitlab-token');
  if (token === undefined) return rejected('Missing X-Gitlab-Token header.');
  return matchesAnyToken(usable, token) ? VERIFIED : rejected('X-Gitlab-Token does not match any configured secret.');
}

const STATUSES: Record<string, { phase: 'start' } | { phase: 'finish'; outcome: Outcome }> = {
  running: { phase: 'start' },
  success: { phase: 'finish', outcome: 'success' },
  failed: { phase: 'finish', outcome: 'failure' },
  canceled: { phase: 'finish', outcome: 'canceled' },
};

function parse(webhook: IncomingWebhook): ParseResult {
  const body = JsonReader.parse(webhook.rawBody);
  const kind = body.string('object_kind');
  // A hook with more triggers than "Deployment events" also sends pushes, pipelines, …
  if (kind !== 'deployment') return { kind: 'ignored', reason: `GitLab ${kind} events are not used by the bridge.` };
  const status = body.string('status');
  const mapped = STATUSES[status];
  if (mapped === undefined) return { kind: 'ignored', reason: `Deployment status "${status}" changes nothing.` };

  const project = body.object('project');
  const projectId = project.id('id');
  const projectPath = project.string('path_with_namespace');
  const projectUrl = project.string('web_url');
  const deploymentId = body.id('deployment_id');
  const environment = body.string('environment');
  const occurredAt = parseGitlabTime('status_changed_at', body.string('status_changed_at'));
  const commitUrl = body.optionalString('commit_url');
  // The hook has only the short sha; the commit URL ends with the full one.
  const sha = commitUrl?.split('/').pop() ?? body.string('short_sha');
  // Without the instance header (older GitLab), the project's host tells instances apart.
  const instance = header(webhook, 'x-gitlab-instance') ?? originOf(projectUrl);
  const idempotencyKey = header(webhook, 'idempotency-key');
  const url = firstPresent(body.optionalString('deployable_url'), body.optionalString('environment_external_url'), commitUrl, projectUrl);
  const description = body.optionalString('commit_title');

  return {
    kind: 'events',
    events: [
      {
        source: 'gitlab',
        dedupeKey: idempotencyKey === undefined ? `gitlab:${instance}:${deploymentId}:${status}` : `gitlab:idempotency:${idempotencyKey}`,
        correlationKey: `gitlab:${instance}:${projectId}:deployment:${deploymentId}`,
        phase: mapped.phase,
        ...(mapped.phase === 'finish' ? { outcome: mapped.outcome } : {}),
        occurredAt,
        category: 'deploy',
        title: `Deploy ${projectPath} to ${environment} (${shortSha(sha)})`,
        ...(description === undefined ? {} : { description }),
        ...(url === undefined ? {} : { url }),
        context: buildContext({
          repository: projectPath,
          project: projectPath,
          environment,
          ref: body.optionalString('ref'),
          sha,
          status,
          user: body.optionalObject('user')?.optionalString('username'),
          deployment_id: deploymentId,
          instance,
        }),
      },
    ],
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new MalformedPayloadError(`Field "project.web_url" is ${JSON.stringify(url)}. Expected a URL.`);
  }
}

export const gitlabSource: WebhookSource = { name: 'gitlab', verify, parse };
