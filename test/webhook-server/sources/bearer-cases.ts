/**
 * The authenticity cases every source that cannot sign must pass: the secret travels as
 * `Authorization: Bearer <secret>` and is compared against every configured secret.
 */

import { expect, it } from 'vitest';
import type { WebhookSource } from '../../../webhook-server/src/sources/types.js';
import { fixtureWebhook } from './fixtures.js';

export const BEARER_SECRET = 'test-bearer-secret';
export const OLD_BEARER_SECRET = 'test-bearer-secret-being-rotated-out';

export function bearerVerifyCases(source: WebhookSource, fixture: string): void {
  const hook = (authorization?: string) =>
    fixtureWebhook(source.name, fixture, authorization === undefined ? {} : { authorization });

  it('accepts the configured secret as a bearer token', async () => {
    expect(await source.verify(hook(`Bearer ${BEARER_SECRET}`), [BEARER_SECRET])).toEqual({ ok: true });
  });

  it('accepts the second secret during a rotation', async () => {
    expect(await source.verify(hook(`Bearer ${OLD_BEARER_SECRET}`), [BEARER_SECRET, OLD_BEARER_SECRET])).toEqual({ ok: true });
  });

  it('accepts the scheme in any case', async () => {
    expect(await source.verify(hook(`bearer ${BEARER_SECRET}`), [BEARER_SECRET])).toEqual({ ok: true });
  });

  it('rejects a wrong token without repeating it or the secret', async () => {
    const result = await source.verify(hook('Bearer guessed-token'), [BEARER_SECRET, OLD_BEARER_SECRET]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).not.toContain('guessed-token');
    expect(result.reason).not.toContain(BEARER_SECRET);
  });

  it('rejects a token that is only a prefix of the secret', async () => {
    expect((await source.verify(hook(`Bearer ${BEARER_SECRET.slice(0, -1)}`), [BEARER_SECRET])).ok).toBe(false);
  });

  it('rejects the secret sent with another scheme', async () => {
    expect((await source.verify(hook(`Basic ${BEARER_SECRET}`), [BEARER_SECRET])).ok).toBe(false);
  });

  it('rejects a delivery without an Authorization header', async () => {
    const result = await source.verify(hook(), [BEARER_SECRET]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/Authorization/);
  });

  it('rejects everything when no secret is configured, even an empty token', async () => {
    expect((await source.verify(hook('Bearer '), [''])).ok).toBe(false);
    expect((await source.verify(hook(`Bearer ${BEARER_SECRET}`), [])).ok).toBe(false);
  });
}
