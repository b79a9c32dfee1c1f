import { describe, expect, it } from 'vitest';
import { pagerdutySource } from '../../../webhook-server/src/sources/pagerduty.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';
import { fixtureBody, fixtureWebhook, hmacHex, modifiedBody, webhook } from './fixtures.js';
import { onlyEvent } from './helpers.js';

const SECRET = 'test-pagerduty-secret';
const OLD_SECRET = 'test-pagerduty-secret-being-rotated-out';

const v1 = (name: string, secret: string) => `v1=${hmacHex('sha256', secret, fixtureBody('pagerduty', name))}`;
const withSignature = (name: string, signature: string) => fixtureWebhook('pagerduty', name, { 'x-pagerduty-signature': signature });
const signed = (name: string) => withSignature(name, v1(name, SECRET));

describe('pagerduty source: verify', () => {
  it('accepts v1=<hex HMAC-SHA256> of the body', async () => {
    expect(await pagerdutySource.verify(signed('incident.triggered'), [SECRET])).toEqual({ ok: true });
  });

  it('accepts the second secret during a rotation', async () => {
    const hook = withSignature('incident.triggered', v1('incident.triggered', OLD_SECRET));
    expect(await pagerdutySource.verify(hook, [SECRET, OLD_SECRET])).toEqual({ ok: true });
  });

  it('accepts a header listing several signatures when any one matches', async () => {
    const header = `v1=${'ab'.repeat(32)}, ${v1('incident.triggered', SECRET)}`;
    expect(await pagerdutySource.verify(withSignature('incident.triggered', header), [SECRET])).toEqual({ ok: true });
  });

  it('rejects a header whose signatures all fail, without repeating them', async () => {
    const signature = v1('incident.triggered', 'not-the-secret');
    const result = await pagerdutySource.verify(withSignature('incident.triggered', `${signature},v1=${'cd'.repeat(32)}`), [SECRET]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).not.toContain(signature.slice(3));
    expect(result.reason).not.toContain(SECRET);
  });

  it('rejects signatures of a scheme other than v1', async () => {
    const header = v1('incident.triggered', SECRET).replace('v1=', 'v2=');
    expect((await pagerdutySource.verify(withSignature('incident.triggered', header), [SECRET])).ok).toBe(false);
  });

  it('rejects a delivery without X-PagerDuty-Signature', async () => {
    expect(await pagerdutySource.verify(fixtureWebhook('pagerduty', 'incident.triggered'), [SECRET])).toEqual({
      ok: false,
      reason: 'Missing X-PagerDuty-Signature header.',
    });
  });

  it('rejects everything when no secret is configured', async () => {
    expect((await pagerdutySource.verify(signed('incident.triggered'), [])).ok).toBe(false);
  });
});

describe('pagerduty source: parse', () => {
  it('starts an incident span when an incident triggers', () => {
    expect(onlyEvent(pagerdutySource.parse(signed('incident.triggered')))).toEqual({
      source: 'pagerduty',
      dedupeKey: 'pagerduty:01DEN9B2H8Z3K4P5Q6R7S8T9UV',
      correlationKey: 'pagerduty:incident:Q2GHKH8ZOLXUVR',
      phase: 'start',
      occurredAt: Date.parse('2024-06-28T14:55:57.169Z'),
      category: 'incident',
      title: 'Incident #1842 triggered: Checkout error rate above 10/min',
      description: 'Checkout error rate above 10/min (Checkout API)',
      url: 'https://acme.pagerduty.com/incidents/Q2GHKH8ZOLXUVR',
      context: {
        service: 'Checkout API',
        service_id: 'PF9KMXH',
        incident_id: 'Q2GHKH8ZOLXUVR',
        incident_number: '1842',
        status: 'triggered',
        urgency: 'high',
        priority: 'P1',
        escalation_policy: 'Payments on-call',
        created_at: '2024-06-28T14:55:57Z',
        event_type: 'incident.triggered',
      },
    });
  });

  it('resolves the span of the same incident', () => {
    const start = onlyEvent(pagerdutySource.parse(signed('incident.triggered')));
    const finish = onlyEvent(pagerdutySource.parse(signed('incident.resolved')));
    expect(finish).toMatchObject({ phase: 'finish', outcome: 'resolved', occurredAt: Date.parse('2024-06-28T15:12:57.120Z') });
    expect(finish.correlationKey).toBe(start.correlationKey);
    expect(finish.dedupeKey).not.toBe(start.dedupeKey);
  });

  it('starts a new episode of the same incident when it is reopened', () => {
    const resolved = onlyEvent(pagerdutySource.parse(signed('incident.resolved')));
    const reopened = onlyEvent(pagerdutySource.parse(signed('incident.reopened')));
    expect(reopened).toMatchObject({ phase: 'start', title: expect.stringContaining('reopened'), context: expect.objectContaining({ reopened: 'true' }) });
    expect(reopened.correlationKey).toBe(resolved.correlationKey);
    // The core opens a new span because the start is after the latest end.
    expect(reopened.occurredAt).toBeGreaterThan(resolved.occurredAt);
    // Without a startedAt a later resolve cannot stretch the reopened span back to the first trigger.
    expect(resolved.startedAt).toBeUndefined();
  });

  it('keeps the dedupe key across a retry', () => {
    const first = onlyEvent(pagerdutySource.parse(signed('incident.resolved')));
    expect(onlyEvent(pagerdutySource.parse(signed('incident.resolved'))).dedupeKey).toBe(first.dedupeKey);
  });

  it('ignores the pagey.ping test event', () => {
    expect(pagerdutySource.parse(signed('pagey.ping'))).toMatchObject({ kind: 'ignored' });
  });

  it('ignores incident events that neither open nor close it', () => {
    expect(pagerdutySource.parse(signed('incident.acknowledged'))).toMatchObject({ kind: 'ignored' });
  });

  it('rejects a body that is not JSON', () => {
    expect(() => pagerdutySource.parse(webhook('{"event":'))).toThrow(MalformedPayloadError);
  });

  it.each([
    ['event', (b: Record<string, any>) => delete b.event],
    ['event.event_type', (b: Record<string, any>) => delete b.event.event_type],
    ['event.data.id', (b: Record<string, any>) => delete b.event.data.id],
    ['event.data.title', (b: Record<string, any>) => delete b.event.data.title],
    ['event.occurred_at', (b: Record<string, any>) => (b.event.occurred_at = 'June 28')],
  ])('names %s when it is missing or unreadable', (field, change) => {
    const hook = webhook(modifiedBody('pagerduty', 'incident.triggered', change));
    expect(() => pagerdutySource.parse(hook)).toThrow(MalformedPayloadError);
    expect(() => pagerdutySource.parse(hook)).toThrow(`"${field}"`);
  });
});
