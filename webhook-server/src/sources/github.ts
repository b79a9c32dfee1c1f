/**
 * GitHub `deployment`, `deployment_status` and (optionally) `workflow_run` webhooks, from
 * github.com, GitHub Enterprise Server and GHE.com alike.
 *
 * Authenticity: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>`, checked by
 * @octokit/webhooks-methods. Dedupe: `X-GitHub-Delivery`, which a manual redelivery keeps.
 * Correlation: host + repository + deployment id (or workflow run id + attempt).
 */

import { verify as verifySignature } from '@octokit/webhooks-methods';
import { buildContext, firstPresent, shortSha } from './context.js';
import { decodeUtf8, JsonReader } from './json.js';
import { parseRfc3339 } from './times.js';
import type { BridgeEvent, IncomingWebhook, Outcome, ParseResult, VerifyResult, WebhookSource } from './types.js';
import { MalformedPayloadError } from './types.js';
import { header, noSecretConfigured, rejected, usableSecrets, VERIFIED } from './verify.js';

const SIGNATURE_HEADER = 'x-hub-signature-256';

async function verify(webhook: IncomingWebhook, secrets: readonly string[]): Promise<VerifyResult> {
  const usable = usableSecrets(secrets);
  if (usable.length === 0) return noSecretConfigured('github');
  const signature = header(webhook, SIGNATURE_HEADER);
  if (signature === undefined) return rejected('Missing X-Hub-Signature-256 header.');
  // @octokit/webhooks-methods signs the UTF-8 encoding of a string. A strict decode makes that
  // encoding the exact bytes received: a body that is not UTF-8 could otherwise be verified as other bytes.
  const payload = decodeUtf8(webhook.rawBody);
  if (payload === undefined || payload === '') return rejected('X-Hub-Signature-256 does not match the body.');
  let matched = false;
  for (const secret of usable) {
    // Every secret is tried, so the time taken does not tell which one matched.
    const result = await verifySignature(secret, payload, signature);
    matched = result || matched;
  }
  return matched ? VERIFIED : rejected('X-Hub-Signature-256 does not match the body under any configured secret.');
}

function parse(webhook: IncomingWebhook): ParseResult {
  const event = header(webhook, 'x-github-event');
  if (event === undefined) throw new MalformedPayloadError('Missing X-GitHub-Event header.');
  if (event === 'ping') return { kind: 'ignored', reason: 'ping: the webhook is set up.' };
  if (event !== 'deployment' && event !== 'deployment_status' && event !== 'workflow_run') {
    return { kind: 'ignored', reason: `GitHub event "${event}" is not used by the bridge.` };
  }
  const body = JsonReader.parse(webhook.rawBody);
  const delivery = header(webhook, 'x-github-delivery');
  switch (event) {
    case 'deployment':
      return parseDeployment(body, delivery);
    case 'deployment_status':
      return parseDeploymentStatus(body, delivery);
    case 'workflow_run':
      return parseWorkflowRun(body, delivery);
  }
}

/**
 * Where a repository lives. GitHub Enterprise Server instances and github.com number their
 * deployments and workflow runs independently and can hold repositories of the same name, so
 * two hosts feeding one bridge must never share a key.
 */
interface Repository {
  fullName: string;
  url: string;
  /** Lower-case host of the repository's web address: github.com, a GHES host, <name>.ghe.com. */
  host: string;
  /**
   * The repository as it appears in keys: `owner/name` on github.com (the keys that bridges
   * recorded before hosts were told apart stay valid), `host/owner/name` elsewhere. A full name
   * has exactly one slash, so the two forms cannot collide.
   */
  key: string;
}

/** Read from the signed body, not from a header such as X-GitHub-Enterprise-Host that a proxy may drop. */
function readRepository(body: JsonReader): Repository {
  const repository = body.object('repository');
  const fullName = repository.string('full_name');
  const url = repository.string('html_url');
  const host = URL.canParse(url) ? new URL(url).host.toLowerCase() : '';
  if (host === '') {
    throw new MalformedPayloadError(
      `Field "repository.html_url" is ${JSON.stringify(url)}. Expected the repository's web address, e.g. "https://github.com/${fullName}".`,
    );
  }
  return { fullName, url, host, key: host === 'github.com' ? fullName : `${host}/${fullName}` };
}

interface Deployment {
  repository: Repository;
  id: string;
  sha: string;
  ref: string;
  task: string | undefined;
  environment: string;
  description: string | undefined;
  creator: string | undefined;
  createdAt: number;
}

function readDeployment(body: JsonReader): Deployment {
  const repository = readRepository(body);
  const deployment = body.object('deployment');
  return {
    repository,
    id: deployment.id('id'),
    sha: deployment.string('sha'),
    ref: deployment.string('ref'),
    task: deployment.optionalString('task'),
    environment: deployment.string('environment'),
    description: deployment.optionalString('description'),
    creator: deployment.optionalObject('creator')?.optionalString('login'),
    createdAt: parseRfc3339('deployment.created_at', deployment.string('created_at')),
  };
}

/**
 * GitHub gives one event one delivery id (a redelivery keeps it), and the same event sent to a
 * repository hook and an organization hook pointing at the bridge should count once. The event
 * name and its action or state are added anyway, so a key can never collide across event kinds.
 * Without the header (a proxy that drops it) a content-derived key still tells a redelivery
 * (same deployment or status id) from a new event.
 */
function dedupeKey(delivery: string | undefined, event: string, qualifier: string, fallbackId: string): string {
  return delivery === undefined
    ? `github:${event}:${fallbackId}:${qualifier}`
    : `github:delivery:${delivery}:${event}:${qualifier}`;
}

function deploymentKey(d: Deployment): string {
  return `github:${d.repository.key}:deployment:${d.id}`;
}

function deploymentTitle(d: Deployment, environment: string): string {
  return `Deploy ${d.repository.fullName} to ${environment} (${shortSha(d.sha)})`;
}

function deploymentContext(d: Deployment, environment: string, extra: Record<string, string | undefined>) {
  return buildContext({
    repository: d.repository.fullName,
    host: d.repository.host,
    environment,
    ref: d.ref,
    sha: d.sha,
    task: d.task,
    creator: d.creator,
    deployment_id: d.id,
    ...extra,
  });
}

function parseDeployment(body: JsonReader, delivery: string | undefined): ParseResult {
  const action = body.optionalString('action') ?? 'created';
  if (action !== 'created') return { kind: 'ignored', reason: `deployment action "${action}" changes nothing.` };
  const d = readDeployment(body);
  const event: BridgeEvent = {
    source: 'github',
    dedupeKey: dedupeKey(delivery, 'deployment', action, `${d.repository.key}:${d.id}`),
    correlationKey: deploymentKey(d),
    phase: 'start',
    occurredAt: d.createdAt,
    startedAt: d.createdAt,
    category: 'deploy',
    title: deploymentTitle(d, d.environment),
    ...(d.description === undefined ? {} : { description: d.description }),
    url: d.repository.url,
    context: deploymentContext(d, d.environment, { event: 'deployment' }),
  };
  return { kind: 'events', events: [event] };
}

const STATUS_PHASES: Record<string, { phase: 'start' } | { phase: 'finish'; outcome: Outcome }> = {
  queued: { phase: 'start' },
  pending: { phase: 'start' },
  in_progress: { phase: 'start' },
  success: { phase: 'finish', outcome: 'success' },
  failure: { phase: 'finish', outcome: 'failure' },
  error: { phase: 'finish', outcome: 'error' },
};

function parseDeploymentStatus(body: JsonReader, delivery: string | undefined): ParseResult {
  const status = body.object('deployment_status');
  const state = status.string('state');
  const mapped = STATUS_PHASES[state];
  // `inactive` (a newer deployment replaced this one) and unknown future states change no span.
  if (mapped === undefined) return { kind: 'ignored', reason: `deployment_status state "${state}" changes nothing.` };
  const d = readDeployment(body);
  const statusId = status.id('id');
  const environment = status.optionalString('environment') ?? d.environment;
  const description = firstPresent(status.optionalString('description'), d.description);
  const url = firstPresent(
    status.optionalString('log_url'),
    status.optionalString('environment_url'),
    status.optionalString('target_url'),
    d.repository.url,
  );
  const event: BridgeEvent = {
    source: 'github',
    dedupeKey: dedupeKey(delivery, 'deployment_status', state, `${d.repository.key}:${statusId}`),
    correlationKey: deploymentKey(d),
    phase: mapped.phase,
    ...(mapped.phase === 'finish' ? { outcome: mapped.outcome } : {}),
    occurredAt: parseRfc3339('deployment_status.created_at', status.string('created_at')),
    // The rollout began when the deployment was created, whichever status arrives first.
    startedAt: d.createdAt,
    category: 'deploy',
    title: deploymentTitle(d, environment),
    ...(description === undefined ? {} : { description }),
    ...(url === undefined ? {} : { url }),
    context: deploymentContext(d, environment, { event: 'deployment_status', state }),
  };
  return { kind: 'events', events: [event] };
}

/** Conclusions of a completed run. `neutral` and `skipped` did no harm, so they count as success. */
const CONCLUSIONS: Record<string, Outcome> = {
  success: 'success',
  neutral: 'success',
  skipped: 'success',
  cancelled: 'canceled',
  failure: 'failure',
  timed_out: 'failure',
  startup_failure: 'failure',
  action_required: 'failure',
  stale: 'failure',
};

function parseWorkflowRun(body: JsonReader, delivery: string | undefined): ParseResult {
  const action = body.string('action');
  if (action !== 'requested' && action !== 'in_progress' && action !== 'completed') {
    return { kind: 'ignored', reason: `workflow_run action "${action}" changes nothing.` };
  }
  const repository = readRepository(body);
  const run = body.object('workflow_run');
  const id = run.id('id');
  // A re-run keeps the run id and increments run_attempt: each attempt is its own span.
  const attempt = run.optionalNumber('run_attempt') ?? 1;
  const name = run.optionalString('name') ?? 'workflow';
  const sha = run.string('head_sha');
  const branch = run.optionalString('head_branch');
  const runNumber = run.optionalNumber('run_number');
  const startedAt = parseRfc3339(
    'workflow_run.run_started_at',
    run.optionalString('run_started_at') ?? run.string('created_at'),
  );
  let phase: 'start' | 'finish' = 'start';
  let outcome: Outcome | undefined;
  let conclusion: string | undefined;
  if (action === 'completed') {
    phase = 'finish';
    // GitHub documents completed runs whose conclusion is null: the run is over, its verdict unknown.
    conclusion = run.optionalString('conclusion');
    outcome = conclusion === undefined ? 'unknown' : (CONCLUSIONS[conclusion] ?? 'failure');
  }
  const occurredAt =
    action === 'requested' ? startedAt : parseRfc3339('workflow_run.updated_at', run.string('updated_at'));
  // The head commit's time, for the change lead time; deployment events carry no commit time.
  const committedText = run.optionalObject('head_commit')?.optionalString('timestamp');
  const committedAt = committedText === undefined ? undefined : parseRfc3339('workflow_run.head_commit.timestamp', committedText);
  const event: BridgeEvent = {
    source: 'github',
    dedupeKey: dedupeKey(delivery, 'workflow_run', action, `${repository.key}:${id}:${attempt}`),
    correlationKey: `github:${repository.key}:workflow_run:${id}:${attempt}`,
    phase,
    ...(outcome === undefined ? {} : { outcome }),
    occurredAt,
    startedAt,
    ...(committedAt === undefined ? {} : { committedAt }),
    category: 'deploy',
    title: `Workflow ${name}${runNumber === undefined ? '' : ` #${runNumber}`} on ${repository.fullName}${branch === undefined ? '' : ` (${branch})`}`,
    description: run.optionalString('display_title') ?? `${name} at ${shortSha(sha)}`,
    url: run.string('html_url'),
    context: buildContext({
      repository: repository.fullName,
      host: repository.host,
      workflow: name,
      ref: branch,
      sha,
      run_id: id,
      run_attempt: attempt,
      run_number: runNumber,
      trigger: run.optionalString('event'),
      conclusion,
      event: 'workflow_run',
    }),
  };
  return { kind: 'events', events: [event] };
}

export const githubSource: WebhookSource = { name: 'github', verify, parse };
