import { describe, expect, it } from 'vitest';
import { fluxSource } from '../../../webhook-server/src/sources/flux.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';
import { fixtureBody, fixtureWebhook, hmacHex, modifiedBody, webhook } from './fixtures.js';
import { onlyEvent } from './helpers.js';

const SECRET = 'test-flux-token';
const OLD_SECRET = 'test-flux-token-being-rotated-out';
const REVISION = 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1';

const signed = (name: string, secret = SECRET) =>
  fixtureWebhook('flux', name, { 'x-signature': `sha256=${hmacHex('sha256', secret, fixtureBody('flux', name))}` });

const parseChanged = (name: string, change: (body: Record<string, any>) => void) =>
  fluxSource.parse(webhook(modifiedBody('flux', name, change)));

describe('flux source: verify', () => {
  it('accepts sha256=<hex HMAC> of the body', async () => {
    expect(await fluxSource.verify(signed('progressing'), [SECRET])).toEqual({ ok: true });
  });

  it('accepts the second secret during a rotation', async () => {
    expect(await fluxSource.verify(signed('progressing', OLD_SECRET), [SECRET, OLD_SECRET])).toEqual({ ok: true });
  });

  it('rejects a signature made with another secret without repeating it', async () => {
    const hook = signed('progressing', 'not-the-secret');
    const result = await fluxSource.verify(hook, [SECRET]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).not.toContain(hook.headers['x-signature']!.slice(7));
    expect(result.reason).not.toContain(SECRET);
  });

  it('rejects a signature without the sha256= prefix', async () => {
    const hook = fixtureWebhook('flux', 'progressing', { 'x-signature': hmacHex('sha256', SECRET, fixtureBody('flux', 'progressing')) });
    expect((await fluxSource.verify(hook, [SECRET])).ok).toBe(false);
  });

  it('rejects a delivery without X-Signature', async () => {
    expect(await fluxSource.verify(fixtureWebhook('flux', 'progressing'), [SECRET])).toEqual({
      ok: false,
      reason: 'Missing X-Signature header.',
    });
  });

  it('rejects everything when no secret is configured', async () => {
    expect((await fluxSource.verify(signed('progressing'), [])).ok).toBe(false);
  });
});

describe('flux source: parse', () => {
  it('starts a span on the first info event of a revision', () => {
    expect(onlyEvent(fluxSource.parse(signed('progressing')))).toMatchObject({
      source: 'flux',
      correlationKey: `flux:Kustomization/flux-system/apps:${REVISION}`,
      phase: 'start',
      occurredAt: Date.parse('2024-06-28T14:55:57Z'),
      category: 'deploy',
      title: 'Reconcile Kustomization flux-system/apps to main@731f7ea',
      description: 'Deployment/podinfo/podinfo configured\nService/podinfo/podinfo unchanged',
      context: {
        kind: 'Kustomization',
        name: 'apps',
        namespace: 'flux-system',
        revision: REVISION,
        ref: 'main',
        sha: '731f7eaddfb6af01cb2173e18f0f75b0ba780ef1',
        reason: 'Progressing',
        severity: 'info',
        controller: 'kustomize-controller',
      },
    });
  });

  it('finishes the span with success on ReconciliationSucceeded', () => {
    expect(onlyEvent(fluxSource.parse(signed('reconciliation-succeeded')))).toMatchObject({
      phase: 'finish',
      outcome: 'success',
      occurredAt: Date.parse('2024-06-28T14:56:31Z'),
    });
  });

  it('finishes the span with failure on a *Failed reason, reading a group-qualified revision', () => {
    const event = onlyEvent(fluxSource.parse(signed('health-check-failed')));
    expect(event).toMatchObject({ phase: 'finish', outcome: 'failure', correlationKey: `flux:Kustomization/flux-system/apps:${REVISION}` });
  });

  it('finishes a Helm release on UpgradeSucceeded', () => {
    const event = onlyEvent(parseChanged('reconciliation-succeeded', (b) => (b.reason = 'UpgradeSucceeded')));
    expect(event).toMatchObject({ phase: 'finish', outcome: 'success' });
  });

  it.each([
    ['originRevision', { originRevision: REVISION }],
    ['commit', { commit: REVISION }],
  ])('reads the revision from %s', (_, metadata) => {
    const event = onlyEvent(parseChanged('progressing', (b) => (b.metadata = metadata)));
    expect(event.context.revision).toBe(REVISION);
  });

  it('reads the pre-2.1 revision format', () => {
    const event = onlyEvent(
      parseChanged('progressing', (b) => (b.metadata = { revision: 'main/731f7eaddfb6af01cb2173e18f0f75b0ba780ef1' })),
    );
    expect(event.context).toMatchObject({ ref: 'main', sha: '731f7eaddfb6af01cb2173e18f0f75b0ba780ef1' });
  });

  it('ignores an event without a revision', () => {
    expect(fluxSource.parse(signed('dependency-not-ready'))).toMatchObject({ kind: 'ignored' });
  });

  it('ignores error events that are not failures of a reconciliation', () => {
    expect(parseChanged('progressing', (b) => ((b.severity = 'error'), (b.reason = 'DependencyNotReady')))).toMatchObject({
      kind: 'ignored',
    });
  });

  it('gives every event of one revision the same correlation key and each its own dedupe key', () => {
    const events = ['progressing', 'reconciliation-succeeded', 'health-check-failed'].map((name) =>
      onlyEvent(fluxSource.parse(signed(name))),
    );
    expect(new Set(events.map((e) => e.correlationKey)).size).toBe(1);
    expect(new Set(events.map((e) => e.dedupeKey)).size).toBe(3);
  });

  it('keeps the dedupe key when the event is sent again', () => {
    const first = onlyEvent(fluxSource.parse(signed('reconciliation-succeeded')));
    expect(onlyEvent(fluxSource.parse(signed('reconciliation-succeeded'))).dedupeKey).toBe(first.dedupeKey);
  });

  it('starts a new span for a new revision', () => {
    const next = onlyEvent(parseChanged('progressing', (b) => (b.metadata.revision = 'main@sha1:0123456789abcdef0123456789abcdef01234567')));
    expect(next.correlationKey).not.toBe(onlyEvent(fluxSource.parse(signed('progressing'))).correlationKey);
  });

  it('rejects a body that is not JSON', () => {
    expect(() => fluxSource.parse(webhook(''))).toThrow(MalformedPayloadError);
  });

  it.each([
    ['involvedObject', (b: Record<string, any>) => delete b.involvedObject],
    ['involvedObject.kind', (b: Record<string, any>) => delete b.involvedObject.kind],
    ['reason', (b: Record<string, any>) => delete b.reason],
    ['timestamp', (b: Record<string, any>) => (b.timestamp = '1719586557')],
  ])('names %s when it is missing or unreadable', (field, change) => {
    const hook = webhook(modifiedBody('flux', 'progressing', change));
    expect(() => fluxSource.parse(hook)).toThrow(MalformedPayloadError);
    expect(() => fluxSource.parse(hook)).toThrow(`"${field}"`);
  });
});
