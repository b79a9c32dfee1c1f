import { describe, expect, it } from 'vitest';
import { githubSource } from '../../../webhook-server/src/sources/github.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';
import { fixtureBody, fixtureHeaders, fixtureWebhook, hmacHex, modifiedBody, webhook } from './fixtures.js';
import { onlyEvent } from './helpers.js';

const SECRET = 'test-github-secret';
const OLD_SECRET = 'test-github-secret-being-rotated-out';

function signed(name: string, secret = SECRET, extra: Record<string, string> = {}) {
  const signature = `sha256=${hmacHex('sha256', secret, fixtureBody('github', name))}`;
  return fixtureWebhook('github', name, { 'x-hub-signature-256': signature, ...extra });
}

describe('github source: verify', () => {
  it('accepts the documented test vector', async () => {
    const hook = webhook('Hello, World!', {
      'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    });
    expect(await githubSource.verify(hook, ["It's a Secret to Everybody"])).toEqual({ ok: true });
  });

  it('accepts a delivery signed with the configured secret', async () => {
    expect(await githubSource.verify(signed('deployment.created'), [SECRET])).toEqual({ ok: true });
  });

  it('accepts a delivery signed with the second secret during a rotation', async () => {
    expect(await githubSource.verify(signed('deployment.created', OLD_SECRET), [SECRET, OLD_SECRET])).toEqual({ ok: true });
  });

  it('ignores empty entries in the secrets list', async () => {
    expect(await githubSource.verify(signed('deployment.created'), ['', SECRET, ''])).toEqual({ ok: true });
  });

  it('rejects a signature made with another secret, without revealing secret or signature', async () => {
    const hook = signed('deployment.created', 'not-the-secret');
    const result = await githubSource.verify(hook, [SECRET, OLD_SECRET]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toMatch(/X-Hub-Signature-256/);
    expect(result.reason).not.toContain(SECRET);
    expect(result.reason).not.toContain(hook.headers['x-hub-signature-256']!.slice(7, 20));
  });

  it('rejects a body changed after signing', async () => {
    const hook = signed('deployment.created');
    const tampered = webhook(Buffer.concat([hook.rawBody, Buffer.from(' ')]), hook.headers);
    expect((await githubSource.verify(tampered, [SECRET])).ok).toBe(false);
  });

  it('rejects a delivery without X-Hub-Signature-256', async () => {
    const result = await githubSource.verify(fixtureWebhook('github', 'deployment.created'), [SECRET]);
    expect(result).toEqual({ ok: false, reason: 'Missing X-Hub-Signature-256 header.' });
  });

  it('rejects the legacy SHA-1 signature format', async () => {
    const body = fixtureBody('github', 'deployment.created');
    const hook = fixtureWebhook('github', 'deployment.created', {
      'x-hub-signature-256': `sha1=${hmacHex('sha1', SECRET, body)}`,
    });
    expect((await githubSource.verify(hook, [SECRET])).ok).toBe(false);
  });

  it('rejects a body that is not UTF-8 even when its bytes are signed', async () => {
    const body = Buffer.from([0x7b, 0xff, 0x7d]);
    const hook = webhook(body, { 'x-hub-signature-256': `sha256=${hmacHex('sha256', SECRET, body)}` });
    expect((await githubSource.verify(hook, [SECRET])).ok).toBe(false);
  });

  it('rejects everything when no secret is configured', async () => {
    const result = await githubSource.verify(signed('deployment.created'), []);
    expect(result.ok).toBe(false);
  });
});

describe('github source: hosts', () => {
  const GHES = 'https://ghes.example.com/acme/shop';
  const onHost = (name: string, htmlUrl: string) =>
    onlyEvent(
      githubSource.parse(
        webhook(
          modifiedBody('github', name, (b) => {
            b.repository.html_url = htmlUrl;
          }),
          fixtureHeaders('github', name),
        ),
      ),
    );

  it('keeps github.com keys as owner/name and puts any other host in front', () => {
    expect(onHost('deployment.created', 'https://github.com/acme/shop').correlationKey).toBe('github:acme/shop:deployment:1234567890');
    expect(onHost('deployment.created', GHES).correlationKey).toBe('github:ghes.example.com/acme/shop:deployment:1234567890');
    expect(onHost('workflow_run.completed', 'https://Octo.GHE.com/acme/shop').correlationKey).toBe('github:octo.ghe.com/acme/shop:workflow_run:9712345678:2');
  });

  it('never gives the same deployment id and repository name on two hosts one key', () => {
    for (const name of ['deployment.created', 'deployment_status.success', 'workflow_run.completed']) {
      const dotcom = onHost(name, 'https://github.com/acme/shop');
      const ghes = onHost(name, GHES);
      const ghesOnPort = onHost(name, 'https://ghes.example.com:8443/acme/shop');
      expect(new Set([dotcom.correlationKey, ghes.correlationKey, ghesOnPort.correlationKey]).size, name).toBe(3);
    }
  });

  it('keys the fallback dedupe key by host too, for deliveries without X-GitHub-Delivery', () => {
    const hook = (htmlUrl: string) =>
      webhook(
        modifiedBody('github', 'deployment_status.success', (b) => {
          b.repository.html_url = htmlUrl;
        }),
        { ...fixtureHeaders('github', 'deployment_status.success'), 'x-github-delivery': '' },
      );
    expect(onlyEvent(githubSource.parse(hook(GHES))).dedupeKey).toBe('github:deployment_status:ghes.example.com/acme/shop:7002:success');
  });

  it('reports the host as a fact the mapping rules can match on', () => {
    expect(onHost('deployment.created', GHES).context).toMatchObject({ host: 'ghes.example.com', repository: 'acme/shop' });
  });
});

describe('github source: parse', () => {
  it('ignores the ping sent when the hook is created', () => {
    expect(githubSource.parse(signed('ping')).kind).toBe('ignored');
  });

  it('ignores events the bridge does not use', () => {
    const hook = webhook('{"action":"opened"}', { 'x-github-event': 'pull_request' });
    expect(githubSource.parse(hook)).toMatchObject({ kind: 'ignored' });
  });

  it('starts a span when a deployment is created', () => {
    const event = onlyEvent(githubSource.parse(signed('deployment.created')));
    expect(event).toEqual({
      source: 'github',
      dedupeKey: 'github:delivery:5f8b3a40-3556-11ef-8a0e-9d1f0c6a1e01:deployment:created',
      correlationKey: 'github:acme/shop:deployment:1234567890',
      phase: 'start',
      occurredAt: Date.parse('2024-06-28T14:55:57Z'),
      startedAt: Date.parse('2024-06-28T14:55:57Z'),
      category: 'deploy',
      title: 'Deploy acme/shop to production (9f2c1e7)',
      description: 'Release v2.14.0',
      url: 'https://github.com/acme/shop',
      context: {
        repository: 'acme/shop',
        host: 'github.com',
        environment: 'production',
        ref: 'main',
        sha: '9f2c1e7a5b3d4c6e8f0a1b2c3d4e5f60718293a4',
        task: 'deploy',
        creator: 'octocat',
        deployment_id: '1234567890',
        event: 'deployment',
      },
    });
  });

  it('starts a span when a deployment status says it is in progress, linking the log', () => {
    const event = onlyEvent(githubSource.parse(signed('deployment_status.in_progress')));
    expect(event.phase).toBe('start');
    expect(event.outcome).toBeUndefined();
    expect(event.occurredAt).toBe(Date.parse('2024-06-28T14:56:03Z'));
    expect(event.startedAt).toBe(Date.parse('2024-06-28T14:55:57Z'));
    expect(event.url).toBe('https://github.com/acme/shop/actions/runs/9712345678/job/26805551234');
    expect(event.context.state).toBe('in_progress');
  });

  it.each([
    ['queued', 'start', undefined],
    ['pending', 'start', undefined],
    ['in_progress', 'start', undefined],
    ['success', 'finish', 'success'],
    ['failure', 'finish', 'failure'],
    ['error', 'finish', 'error'],
  ])('maps deployment status %s to %s', (state, phase, outcome) => {
    const body = modifiedBody('github', 'deployment_status.success', (b) => {
      b.deployment_status.state = state;
    });
    const event = onlyEvent(githubSource.parse(webhook(body, fixtureHeaders('github', 'deployment_status.success'))));
    expect(event.phase).toBe(phase);
    expect(event.outcome).toBe(outcome);
  });

  it('closes the span when the deployment succeeds, with the start it carries', () => {
    const event = onlyEvent(githubSource.parse(signed('deployment_status.success')));
    expect(event).toMatchObject({
      phase: 'finish',
      outcome: 'success',
      occurredAt: Date.parse('2024-06-28T15:02:41Z'),
      startedAt: Date.parse('2024-06-28T14:55:57Z'),
      description: 'Deployment finished successfully.',
    });
  });

  it('records a failure and falls back to the repository link when the status has no links', () => {
    const event = onlyEvent(githubSource.parse(signed('deployment_status.failure')));
    expect(event.outcome).toBe('failure');
    expect(event.url).toBe('https://github.com/acme/shop');
  });

  it('prefers the log, then the environment, then the target link', () => {
    const headers = fixtureHeaders('github', 'deployment_status.success');
    const withLinks = (links: Record<string, string>) =>
      onlyEvent(
        githubSource.parse(
          webhook(
            modifiedBody('github', 'deployment_status.success', (b) => Object.assign(b.deployment_status, links)),
            headers,
          ),
        ),
      ).url;
    expect(withLinks({ log_url: 'https://l', environment_url: 'https://e', target_url: 'https://t' })).toBe('https://l');
    expect(withLinks({ log_url: '', environment_url: 'https://e', target_url: 'https://t' })).toBe('https://e');
    expect(withLinks({ log_url: '', environment_url: '', target_url: 'https://t' })).toBe('https://t');
  });

  it('ignores inactive statuses, which change no span', () => {
    expect(githubSource.parse(signed('deployment_status.inactive'))).toMatchObject({ kind: 'ignored' });
  });

  it('gives start and finish of one deployment the same correlation key', () => {
    const keys = ['deployment.created', 'deployment_status.in_progress', 'deployment_status.success'].map(
      (name) => onlyEvent(githubSource.parse(signed(name))).correlationKey,
    );
    expect(new Set(keys).size).toBe(1);
  });

  it('gives a redelivery the same dedupe key and different events different keys', () => {
    const first = onlyEvent(githubSource.parse(signed('deployment_status.success')));
    const again = onlyEvent(githubSource.parse(signed('deployment_status.success')));
    const other = onlyEvent(githubSource.parse(signed('deployment_status.in_progress')));
    expect(again.dedupeKey).toBe(first.dedupeKey);
    expect(other.dedupeKey).not.toBe(first.dedupeKey);
  });

  it('derives a dedupe key from the status id when the delivery header is missing', () => {
    const hook = signed('deployment_status.success', SECRET, { 'x-github-delivery': '' });
    expect(onlyEvent(githubSource.parse(hook)).dedupeKey).toBe('github:deployment_status:acme/shop:7002:success');
  });

  it('reads a deployment whose creator and description are null', () => {
    const body = modifiedBody('github', 'deployment.created', (b) => {
      b.deployment.creator = null;
      b.deployment.description = null;
      b.deployment.payload = '';
    });
    const event = onlyEvent(githubSource.parse(webhook(body, fixtureHeaders('github', 'deployment.created'))));
    expect(event.description).toBeUndefined();
    expect(event.context.creator).toBeUndefined();
  });

  it('starts a workflow run span keyed by run id and attempt', () => {
    const event = onlyEvent(githubSource.parse(signed('workflow_run.in_progress')));
    expect(event).toMatchObject({
      phase: 'start',
      correlationKey: 'github:acme/shop:workflow_run:9712345678:2',
      occurredAt: Date.parse('2024-06-28T14:58:05Z'),
      startedAt: Date.parse('2024-06-28T14:58:02Z'),
      title: 'Workflow Deploy #412 on acme/shop (main)',
      url: 'https://github.com/acme/shop/actions/runs/9712345678',
    });
  });

  it('closes a workflow run span with its conclusion', () => {
    const event = onlyEvent(githubSource.parse(signed('workflow_run.completed')));
    expect(event).toMatchObject({
      phase: 'finish',
      outcome: 'failure',
      correlationKey: 'github:acme/shop:workflow_run:9712345678:2',
      occurredAt: Date.parse('2024-06-28T15:01:15Z'),
      context: expect.objectContaining({ conclusion: 'failure', run_attempt: '2' }),
    });
  });

  it("records the time of a workflow run's head commit, for the change lead time", () => {
    expect(onlyEvent(githubSource.parse(signed('workflow_run.in_progress'))).committedAt).toBe(Date.parse('2024-06-28T14:41:09Z'));
    const body = modifiedBody('github', 'workflow_run.completed', (b) => {
      delete b.workflow_run.head_commit;
    });
    expect(onlyEvent(githubSource.parse(webhook(body, fixtureHeaders('github', 'workflow_run.completed')))).committedAt).toBeUndefined();
  });

  it('maps a cancelled workflow run to canceled', () => {
    const body = modifiedBody('github', 'workflow_run.completed', (b) => {
      b.workflow_run.conclusion = 'cancelled';
    });
    const event = onlyEvent(githubSource.parse(webhook(body, fixtureHeaders('github', 'workflow_run.completed'))));
    expect(event.outcome).toBe('canceled');
  });

  it('closes a workflow run span whose completed run has a null conclusion, with an unknown outcome', () => {
    const body = modifiedBody('github', 'workflow_run.completed', (b) => {
      b.workflow_run.conclusion = null;
    });
    const event = onlyEvent(githubSource.parse(webhook(body, fixtureHeaders('github', 'workflow_run.completed'))));
    expect(event).toMatchObject({ phase: 'finish', outcome: 'unknown' });
    expect(event.context.conclusion).toBeUndefined();
  });

  it('rejects a body that is not JSON', () => {
    const hook = webhook('{"deployment":', { 'x-github-event': 'deployment' });
    expect(() => githubSource.parse(hook)).toThrow(MalformedPayloadError);
  });

  it('rejects a delivery without X-GitHub-Event', () => {
    const hook = webhook(fixtureBody('github', 'deployment.created'), {});
    expect(() => githubSource.parse(hook)).toThrow(/X-GitHub-Event/);
  });

  it.each([
    ['deployment.created', 'deployment.id', (b: Record<string, any>) => delete b.deployment.id],
    ['deployment.created', 'repository.full_name', (b: Record<string, any>) => delete b.repository.full_name],
    ['deployment_status.success', 'deployment_status.created_at', (b: Record<string, any>) => delete b.deployment_status.created_at],
    ['deployment_status.success', 'deployment.sha', (b: Record<string, any>) => delete b.deployment.sha],
    ['workflow_run.completed', 'repository.html_url', (b: Record<string, any>) => (b.repository.html_url = 'not a url')],
  ])('names the missing field when %s lacks %s', (name, field, change) => {
    const hook = webhook(modifiedBody('github', name, change), fixtureHeaders('github', name));
    expect(() => githubSource.parse(hook)).toThrow(MalformedPayloadError);
    expect(() => githubSource.parse(hook)).toThrow(`"${field}"`);
  });

  it('rejects a timestamp that is not RFC 3339', () => {
    const body = modifiedBody('github', 'deployment.created', (b) => {
      b.deployment.created_at = 'yesterday';
    });
    expect(() => githubSource.parse(webhook(body, fixtureHeaders('github', 'deployment.created')))).toThrow(
      /deployment.created_at/,
    );
  });
});
