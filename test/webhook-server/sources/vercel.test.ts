import { describe, expect, it } from 'vitest';
import { vercelSource } from '../../../webhook-server/src/sources/vercel.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';
import { fixtureBody, fixtureWebhook, hmacHex, modifiedBody, webhook } from './fixtures.js';
import { onlyEvent } from './helpers.js';

const SECRET = 'test-vercel-secret';
const OLD_SECRET = 'test-vercel-secret-being-rotated-out';

const signed = (name: string, secret = SECRET) =>
  fixtureWebhook('vercel', name, { 'x-vercel-signature': hmacHex('sha1', secret, fixtureBody('vercel', name)) });

const signedBody = (body: Buffer) => webhook(body, { 'x-vercel-signature': hmacHex('sha1', SECRET, body) });

describe('vercel source: verify', () => {
  it('accepts a bare hex HMAC-SHA1 of the body', async () => {
    expect(await vercelSource.verify(signed('deployment.created'), [SECRET])).toEqual({ ok: true });
  });

  it('accepts the second secret during a rotation', async () => {
    expect(await vercelSource.verify(signed('deployment.created', OLD_SECRET), [SECRET, OLD_SECRET])).toEqual({ ok: true });
  });

  it('accepts upper-case hex', async () => {
    const hook = fixtureWebhook('vercel', 'deployment.created', {
      'x-vercel-signature': hmacHex('sha1', SECRET, fixtureBody('vercel', 'deployment.created')).toUpperCase(),
    });
    expect(await vercelSource.verify(hook, [SECRET])).toEqual({ ok: true });
  });

  it('rejects a signature made with another secret without repeating it', async () => {
    const hook = signed('deployment.created', 'not-the-secret');
    const result = await vercelSource.verify(hook, [SECRET]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).not.toContain(hook.headers['x-vercel-signature']!);
    expect(result.reason).not.toContain(SECRET);
  });

  it('rejects a SHA-256 signature where Vercel sends SHA-1', async () => {
    const hook = fixtureWebhook('vercel', 'deployment.created', {
      'x-vercel-signature': hmacHex('sha256', SECRET, fixtureBody('vercel', 'deployment.created')),
    });
    expect((await vercelSource.verify(hook, [SECRET])).ok).toBe(false);
  });

  it('rejects a prefixed signature', async () => {
    const hook = fixtureWebhook('vercel', 'deployment.created', {
      'x-vercel-signature': `sha1=${hmacHex('sha1', SECRET, fixtureBody('vercel', 'deployment.created'))}`,
    });
    expect((await vercelSource.verify(hook, [SECRET])).ok).toBe(false);
  });

  it('rejects a delivery without x-vercel-signature', async () => {
    const result = await vercelSource.verify(fixtureWebhook('vercel', 'deployment.created'), [SECRET]);
    expect(result).toEqual({ ok: false, reason: 'Missing x-vercel-signature header.' });
  });

  it('rejects everything when no secret is configured', async () => {
    expect((await vercelSource.verify(signed('deployment.created'), [])).ok).toBe(false);
  });
});

describe('vercel source: parse', () => {
  it('starts a span when a deployment is created', () => {
    expect(onlyEvent(vercelSource.parse(signed('deployment.created')))).toEqual({
      source: 'vercel',
      dedupeKey: 'vercel:uDPqrHpVDxqbcG4bBoUjMsgB',
      correlationKey: 'vercel:deployment:dpl_2euZBFqxYdDMDCGJbFH5t7hgaVEU',
      phase: 'start',
      occurredAt: 1719586557631,
      category: 'deploy',
      title: 'Deploy storefront to production (a1b2c3d)',
      description: 'Speed up product listing',
      url: 'https://vercel.com/acme/storefront/2euZBFqxYdDMDCGJbFH5t7hgaVEU',
      context: {
        project: 'storefront',
        environment: 'production',
        ref: 'main',
        sha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
        repository: 'acme/storefront',
        deployment_id: 'dpl_2euZBFqxYdDMDCGJbFH5t7hgaVEU',
        host: 'storefront-4k2j9x7qp-acme.vercel.app',
        type: 'deployment.created',
      },
    });
  });

  it('finishes the span with success when the deployment succeeded', () => {
    const event = onlyEvent(vercelSource.parse(signed('deployment.succeeded')));
    expect(event).toMatchObject({ phase: 'finish', outcome: 'success', occurredAt: 1719586689214 });
  });

  it('treats the legacy deployment.ready as succeeded', () => {
    const body = modifiedBody('vercel', 'deployment.succeeded', (b) => (b.type = 'deployment.ready'));
    expect(onlyEvent(vercelSource.parse(signedBody(body)))).toMatchObject({ phase: 'finish', outcome: 'success' });
  });

  it('finishes the span with failure on deployment.error and canceled on deployment.canceled', () => {
    expect(onlyEvent(vercelSource.parse(signed('deployment.error'))).outcome).toBe('failure');
    const body = modifiedBody('vercel', 'deployment.error', (b) => (b.type = 'deployment.canceled'));
    expect(onlyEvent(vercelSource.parse(signedBody(body))).outcome).toBe('canceled');
  });

  it('ignores events that change no deployment span', () => {
    expect(vercelSource.parse(signed('deployment.promoted'))).toMatchObject({ kind: 'ignored' });
  });

  it('gives start and finish the same correlation key and each event its own dedupe key', () => {
    const start = onlyEvent(vercelSource.parse(signed('deployment.created')));
    const finish = onlyEvent(vercelSource.parse(signed('deployment.succeeded')));
    expect(finish.correlationKey).toBe(start.correlationKey);
    expect(finish.dedupeKey).not.toBe(start.dedupeKey);
    expect(onlyEvent(vercelSource.parse(signed('deployment.succeeded'))).dedupeKey).toBe(finish.dedupeKey);
  });

  it('names a preview deployment and links the host when there is no dashboard link', () => {
    const body = modifiedBody('vercel', 'deployment.created', (b) => {
      b.payload.target = null;
      delete b.payload.links;
    });
    const event = onlyEvent(vercelSource.parse(signedBody(body)));
    expect(event.context.environment).toBe('preview');
    expect(event.url).toBe('https://storefront-4k2j9x7qp-acme.vercel.app');
  });

  it('rejects a body that is not JSON', () => {
    expect(() => vercelSource.parse(webhook('not json'))).toThrow(MalformedPayloadError);
  });

  it.each([
    ['payload.deployment.id', (b: Record<string, any>) => delete b.payload.deployment.id],
    ['payload.deployment', (b: Record<string, any>) => delete b.payload.deployment],
    ['createdAt', (b: Record<string, any>) => (b.createdAt = '2024-06-28T14:55:57Z')],
    ['type', (b: Record<string, any>) => delete b.type],
  ])('names %s when it is missing or unreadable', (field, change) => {
    const hook = signedBody(modifiedBody('vercel', 'deployment.created', change));
    expect(() => vercelSource.parse(hook)).toThrow(MalformedPayloadError);
    expect(() => vercelSource.parse(hook)).toThrow(`"${field}"`);
  });
});
