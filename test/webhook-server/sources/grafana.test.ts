import { describe, expect, it } from 'vitest';
import { grafanaSource } from '../../../webhook-server/src/sources/grafana.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';
import { bearerVerifyCases } from './bearer-cases.js';
import { fixtureBody, fixtureWebhook, hmacHex, modifiedBody, RECEIVED_AT, webhook } from './fixtures.js';
import { onlyEvent } from './helpers.js';

const SECRET = 'test-grafana-secret';
const OLD_SECRET = 'test-grafana-secret-being-rotated-out';
const NOW_SECONDS = String(RECEIVED_AT / 1000);

const signed = (name: string, secret = SECRET) =>
  fixtureWebhook('grafana', name, { 'x-grafana-alerting-signature': hmacHex('sha256', secret, fixtureBody('grafana', name)) });

const signedWithTimestamp = (name: string, timestamp = NOW_SECONDS, signedTimestamp = timestamp) =>
  fixtureWebhook('grafana', name, {
    'x-grafana-alerting-signature': hmacHex('sha256', SECRET, `${signedTimestamp}:${fixtureBody('grafana', name).toString('utf8')}`),
    'x-grafana-alerting-signature-timestamp': timestamp,
  });

const parseChanged = (name: string, change: (body: Record<string, any>) => void) =>
  grafanaSource.parse(webhook(modifiedBody('grafana', name, change)));

const EPISODE = 'grafana:org1:57c6d9296de2ad39:2024-06-28T14:55:50.000Z';

describe('grafana source: verify with HMAC', () => {
  it('accepts a bare hex HMAC-SHA256 of the body', async () => {
    expect(await grafanaSource.verify(signed('firing'), [SECRET])).toEqual({ ok: true });
  });

  it('accepts the second secret during a rotation', async () => {
    expect(await grafanaSource.verify(signed('firing', OLD_SECRET), [SECRET, OLD_SECRET])).toEqual({ ok: true });
  });

  it('accepts an HMAC of "<timestamp>:<body>" when the timestamp header is set', async () => {
    expect(await grafanaSource.verify(signedWithTimestamp('firing'), [SECRET])).toEqual({ ok: true });
  });

  it('rejects a timestamped delivery whose timestamp was changed after signing', async () => {
    const hook = signedWithTimestamp('firing', String(RECEIVED_AT / 1000 - 10), NOW_SECONDS);
    expect((await grafanaSource.verify(hook, [SECRET])).ok).toBe(false);
  });

  it('rejects a signed timestamp more than five minutes old', async () => {
    const old = String(RECEIVED_AT / 1000 - 301);
    const result = await grafanaSource.verify(signedWithTimestamp('firing', old), [SECRET]);
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/5 minutes/) });
  });

  it('rejects a timestamp that is not Unix seconds', async () => {
    expect((await grafanaSource.verify(signedWithTimestamp('firing', '2024-07-01T00:00:00Z'), [SECRET])).ok).toBe(false);
  });

  it('rejects a signature made with another secret without repeating it', async () => {
    const hook = signed('firing', 'not-the-secret');
    const result = await grafanaSource.verify(hook, [SECRET]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).not.toContain(hook.headers['x-grafana-alerting-signature']!);
    expect(result.reason).not.toContain(SECRET);
  });

  it('does not fall back to the bearer token when a signature is present but wrong', async () => {
    const hook = fixtureWebhook('grafana', 'firing', {
      'x-grafana-alerting-signature': '00'.repeat(32),
      authorization: `Bearer ${SECRET}`,
    });
    expect((await grafanaSource.verify(hook, [SECRET])).ok).toBe(false);
  });

  it('rejects everything when no secret is configured', async () => {
    expect((await grafanaSource.verify(signed('firing'), [])).ok).toBe(false);
  });
});

describe('grafana source: verify without HMAC', () => {
  bearerVerifyCases(grafanaSource, 'firing');
});

describe('grafana source: parse', () => {
  it('starts a span when an alert fires, linking its panel', () => {
    expect(onlyEvent(grafanaSource.parse(signed('firing')))).toEqual({
      source: 'grafana',
      dedupeKey: `${EPISODE}:firing`,
      correlationKey: EPISODE,
      phase: 'start',
      occurredAt: Date.parse('2024-06-28T14:55:50Z'),
      startedAt: Date.parse('2024-06-28T14:55:50Z'),
      category: 'incident',
      title: 'Alert CheckoutLatencyHigh firing',
      description: 'p99 latency of checkout is above 800 ms',
      url: 'https://grafana.example.com/d/checkout01?orgId=1&viewPanel=4',
      context: {
        alertname: 'CheckoutLatencyHigh',
        severity: 'critical',
        service: 'checkout',
        status: 'firing',
        fingerprint: '57c6d9296de2ad39',
        receiver: 'timemark',
        org_id: '1',
        folder: 'Shop',
        values: "[ var='A' labels={service=checkout} value=912.4 ], [ var='C' labels={service=checkout} value=1 ]",
        'labels.alertname': 'CheckoutLatencyHigh',
        'labels.grafana_folder': 'Shop',
        'labels.service': 'checkout',
        'labels.severity': 'critical',
        'labels.team': 'payments',
        'annotations.summary': 'p99 latency of checkout is above 800 ms',
        'annotations.description': 'p99 latency has been above 800 ms for 5 minutes.',
      },
    });
  });

  it('resolves the span of the same episode, reading offsets in the timestamps', () => {
    const event = onlyEvent(grafanaSource.parse(signed('resolved')));
    expect(event).toMatchObject({
      phase: 'finish',
      outcome: 'resolved',
      correlationKey: EPISODE,
      occurredAt: Date.parse('2024-06-28T15:10:50Z'),
      startedAt: Date.parse('2024-06-28T14:55:50Z'),
    });
    expect(event.dedupeKey).not.toBe(`${EPISODE}:firing`);
  });

  it('ignores the test notification sent by the contact point\'s Test button', () => {
    expect(grafanaSource.parse(signed('test-notification'))).toMatchObject({ kind: 'ignored' });
  });

  it('keeps the same fingerprint in two orgs apart', () => {
    const other = onlyEvent(parseChanged('firing', (b) => (b.orgId = 2)));
    expect(other.correlationKey).not.toBe(EPISODE);
  });

  it('falls back to the dashboard, then the rule link', () => {
    const dashboard = onlyEvent(parseChanged('firing', (b) => (b.alerts[0].panelURL = '')));
    expect(dashboard.url).toBe('https://grafana.example.com/d/checkout01?orgId=1');
    const rule = onlyEvent(parseChanged('firing', (b) => ((b.alerts[0].panelURL = ''), (b.alerts[0].dashboardURL = ''))));
    expect(rule.url).toBe('https://grafana.example.com/alerting/grafana/fdq3x9k2/view?orgId=1');
  });

  it('rejects a body that is not JSON', () => {
    expect(() => grafanaSource.parse(webhook('<html>'))).toThrow(MalformedPayloadError);
  });

  it.each([
    ['alerts', (b: Record<string, any>) => delete b.alerts],
    ['alerts[0].fingerprint', (b: Record<string, any>) => delete b.alerts[0].fingerprint],
    ['alerts[0].startsAt', (b: Record<string, any>) => (b.alerts[0].startsAt = 'now')],
  ])('names %s when it is missing or unreadable', (field, change) => {
    expect(() => parseChanged('firing', change)).toThrow(MalformedPayloadError);
    expect(() => parseChanged('firing', change)).toThrow(`"${field}"`);
  });
});
