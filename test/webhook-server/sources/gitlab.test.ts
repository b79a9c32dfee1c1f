import { describe, expect, it } from 'vitest';
import { gitlabSource } from '../../../webhook-server/src/sources/gitlab.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';
import { fixtureBody, fixtureHeaders, fixtureWebhook, modifiedBody, webhook } from './fixtures.js';
import { onlyEvent } from './helpers.js';

const SECRET = 'test-gitlab-token';
const OLD_SECRET = 'test-gitlab-token-being-rotated-out';

const delivery = (name: string, extra: Record<string, string | undefined> = {}) =>
  fixtureWebhook('gitlab', name, { 'x-gitlab-token': SECRET, ...extra });

describe('gitlab source: verify', () => {
  it('accepts the configured secret token', async () => {
    expect(await gitlabSource.verify(delivery('deployment.running'), [SECRET])).toEqual({ ok: true });
  });

  it('accepts the second secret during a rotation', async () => {
    const hook = delivery('deployment.running', { 'x-gitlab-token': OLD_SECRET });
    expect(await gitlabSource.verify(hook, [SECRET, OLD_SECRET])).toEqual({ ok: true });
  });

  it('rejects a wrong token without repeating it or the secret', async () => {
    const result = await gitlabSource.verify(delivery('deployment.running', { 'x-gitlab-token': 'guessed' }), [SECRET]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toMatch(/X-Gitlab-Token/);
    expect(result.reason).not.toContain('guessed');
    expect(result.reason).not.toContain(SECRET);
  });

  it('rejects a delivery without X-Gitlab-Token', async () => {
    const result = await gitlabSource.verify(fixtureWebhook('gitlab', 'deployment.running'), [SECRET]);
    expect(result).toEqual({ ok: false, reason: 'Missing X-Gitlab-Token header.' });
  });

  it('rejects everything when no secret is configured', async () => {
    expect((await gitlabSource.verify(delivery('deployment.running', { 'x-gitlab-token': '' }), [''])).ok).toBe(false);
  });
});

describe('gitlab source: parse', () => {
  it('starts a span when the deployment is running, reading GitLab\'s time format', () => {
    expect(onlyEvent(gitlabSource.parse(delivery('deployment.running')))).toEqual({
      source: 'gitlab',
      dedupeKey: 'gitlab:idempotency:5d0f4a2e-7c1b-4f3e-9a8d-6b2c1e0f9a11',
      correlationKey: 'gitlab:https://gitlab.example.com:30:deployment:4711',
      phase: 'start',
      occurredAt: Date.parse('2024-06-28T14:55:57Z'),
      category: 'deploy',
      title: 'Deploy platform/checkout to production (279484c)',
      description: 'Release v3.2.0',
      url: 'https://gitlab.example.com/platform/checkout/-/jobs/796123',
      context: {
        repository: 'platform/checkout',
        project: 'platform/checkout',
        environment: 'production',
        ref: 'v3.2.0',
        sha: '279484c09fbe69ededfced8c1bb6e6d24616b468',
        status: 'running',
        user: 'ada',
        deployment_id: '4711',
        instance: 'https://gitlab.example.com',
      },
    });
  });

  it.each([
    ['deployment.success', 'success', '2024-06-28T15:03:12Z'],
    ['deployment.failed', 'failure', '2024-06-28T15:01:40Z'],
  ])('finishes the span on %s', (name, outcome, at) => {
    const event = onlyEvent(gitlabSource.parse(delivery(name)));
    expect(event).toMatchObject({ phase: 'finish', outcome, occurredAt: Date.parse(at) });
  });

  it('records a canceled deployment as canceled', () => {
    const body = modifiedBody('gitlab', 'deployment.success', (b) => (b.status = 'canceled'));
    expect(onlyEvent(gitlabSource.parse(webhook(body, fixtureHeaders('gitlab', 'deployment.success')))).outcome).toBe('canceled');
  });

  it('ignores statuses that neither start nor finish a rollout', () => {
    expect(gitlabSource.parse(delivery('deployment.created'))).toMatchObject({ kind: 'ignored' });
  });

  it('ignores other hook kinds sent to the same URL', () => {
    const hook = webhook('{"object_kind":"push","ref":"refs/heads/main"}', { 'x-gitlab-event': 'Push Hook' });
    expect(gitlabSource.parse(hook)).toMatchObject({ kind: 'ignored' });
  });

  it('gives start and finish the same correlation key', () => {
    const start = onlyEvent(gitlabSource.parse(delivery('deployment.running')));
    const finish = onlyEvent(gitlabSource.parse(delivery('deployment.success')));
    expect(finish.correlationKey).toBe(start.correlationKey);
    expect(finish.dedupeKey).not.toBe(start.dedupeKey);
  });

  it('keeps the dedupe key across a retry', () => {
    const first = onlyEvent(gitlabSource.parse(delivery('deployment.success')));
    const retry = onlyEvent(gitlabSource.parse(delivery('deployment.success')));
    expect(retry.dedupeKey).toBe(first.dedupeKey);
  });

  it('falls back to instance, deployment and status without Idempotency-Key', () => {
    const event = onlyEvent(gitlabSource.parse(delivery('deployment.success', { 'idempotency-key': undefined })));
    expect(event.dedupeKey).toBe('gitlab:https://gitlab.example.com:4711:success');
  });

  it('takes the instance from the project URL when X-Gitlab-Instance is missing', () => {
    const event = onlyEvent(gitlabSource.parse(delivery('deployment.running', { 'x-gitlab-instance': undefined })));
    expect(event.correlationKey).toBe('gitlab:https://gitlab.example.com:30:deployment:4711');
  });

  it('reads the older "UTC" time format', () => {
    const body = modifiedBody('gitlab', 'deployment.running', (b) => (b.status_changed_at = '2024-06-28 14:55:57 UTC'));
    const event = onlyEvent(gitlabSource.parse(webhook(body, fixtureHeaders('gitlab', 'deployment.running'))));
    expect(event.occurredAt).toBe(Date.parse('2024-06-28T14:55:57Z'));
  });

  it('rejects a body that is not JSON', () => {
    expect(() => gitlabSource.parse(webhook(fixtureBody('gitlab', 'deployment.running').subarray(0, 40)))).toThrow(
      MalformedPayloadError,
    );
  });

  it.each([
    ['deployment_id', (b: Record<string, any>) => delete b.deployment_id],
    ['project.id', (b: Record<string, any>) => delete b.project.id],
    ['environment', (b: Record<string, any>) => delete b.environment],
    ['status_changed_at', (b: Record<string, any>) => (b.status_changed_at = '28/06/2024 14:55')],
  ])('names %s when it is missing or unreadable', (field, change) => {
    const hook = webhook(modifiedBody('gitlab', 'deployment.running', change), fixtureHeaders('gitlab', 'deployment.running'));
    expect(() => gitlabSource.parse(hook)).toThrow(MalformedPayloadError);
    expect(() => gitlabSource.parse(hook)).toThrow(`"${field}"`);
  });
});
