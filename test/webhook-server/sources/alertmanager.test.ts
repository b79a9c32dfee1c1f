import { describe, expect, it } from 'vitest';
import { alertmanagerSource } from '../../../webhook-server/src/sources/alertmanager.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';
import { BEARER_SECRET, bearerVerifyCases } from './bearer-cases.js';
import { fixtureWebhook, modifiedBody, webhook } from './fixtures.js';
import { eventsOf } from './helpers.js';

const delivery = (name: string) => fixtureWebhook('alertmanager', name, { authorization: `Bearer ${BEARER_SECRET}` });
const parseFixture = (name: string) => eventsOf(alertmanagerSource.parse(delivery(name)));
const parseChanged = (name: string, change: (body: Record<string, any>) => void) =>
  alertmanagerSource.parse(webhook(modifiedBody('alertmanager', name, change)));

const HIGH_ERROR_RATE = 'alertmanager:5d8a7f6b3c2e1a09:2024-06-28T14:55:57.631Z';

describe('alertmanager source: verify', () => {
  bearerVerifyCases(alertmanagerSource, 'group-firing');
});

describe('alertmanager source: parse', () => {
  it('starts one span per firing alert of the group', () => {
    const events = parseFixture('group-firing');
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({
      source: 'alertmanager',
      dedupeKey: `${HIGH_ERROR_RATE}:firing`,
      correlationKey: HIGH_ERROR_RATE,
      phase: 'start',
      occurredAt: Date.parse('2024-06-28T14:55:57.631Z'),
      startedAt: Date.parse('2024-06-28T14:55:57.631Z'),
      category: 'incident',
      title: 'Alert HighErrorRate firing',
      description: 'HighErrorRate on checkout',
      url: 'https://prometheus.example.com/graph?g0.expr=job%3Arequest_errors%3Arate5m%7Bservice%3D%22checkout%22%7D+%3E+0.05&g0.tab=1',
      context: {
        alertname: 'HighErrorRate',
        severity: 'page',
        service: 'checkout',
        namespace: 'shop',
        status: 'firing',
        fingerprint: '5d8a7f6b3c2e1a09',
        receiver: 'timemark',
        'labels.alertname': 'HighErrorRate',
        'labels.severity': 'page',
        'labels.service': 'checkout',
        'labels.namespace': 'shop',
        'labels.job': 'checkout-api',
        'annotations.summary': 'HighErrorRate on checkout',
        'annotations.runbook_url': 'https://runbooks.example.com/HighErrorRate',
      },
    });
    expect(events[1]).toMatchObject({ phase: 'start', title: 'Alert HighLatency firing', context: { severity: 'ticket' } });
  });

  it('reads each alert\'s own status, not the group\'s', () => {
    const [resolved, stillFiring] = parseFixture('group-one-resolved');
    expect(resolved).toMatchObject({
      phase: 'finish',
      outcome: 'resolved',
      correlationKey: HIGH_ERROR_RATE,
      occurredAt: Date.parse('2024-06-28T15:12:57.120Z'),
      startedAt: Date.parse('2024-06-28T14:55:57.631Z'),
    });
    expect(stillFiring).toMatchObject({ phase: 'start' });
  });

  it('never reads a firing alert\'s endsAt as an end', () => {
    const [event] = eventsOf(parseChanged('group-firing', (b) => (b.alerts[0].endsAt = '2024-06-28T15:00:57Z')));
    expect(event).toMatchObject({ phase: 'start', occurredAt: Date.parse('2024-06-28T14:55:57.631Z') });
  });

  it('makes a repeat-interval resend of a firing group a duplicate', () => {
    const first = parseFixture('group-firing').map((e) => e.dedupeKey);
    const stillFiring = parseFixture('group-one-resolved')[1]!;
    expect(first).toContain(stillFiring.dedupeKey);
  });

  it('gives firing and resolved of one episode the same correlation key', () => {
    const firing = parseFixture('group-firing');
    const resolved = parseFixture('group-resolved');
    expect(resolved.map((e) => e.correlationKey)).toEqual(firing.map((e) => e.correlationKey));
    expect(resolved.every((e) => e.phase === 'finish')).toBe(true);
  });

  it('starts a new episode when the same alert fires again later', () => {
    const [again] = eventsOf(parseChanged('group-firing', (b) => (b.alerts[0].startsAt = '2024-06-29T09:00:00Z')));
    expect(again!.correlationKey).not.toBe(HIGH_ERROR_RATE);
    expect(again!.correlationKey.startsWith('alertmanager:5d8a7f6b3c2e1a09:')).toBe(true);
  });

  it('links the Alertmanager when an alert has no generator URL', () => {
    const [event] = eventsOf(parseChanged('group-firing', (b) => (b.alerts[0].generatorURL = '')));
    expect(event!.url).toBe('https://alertmanager.example.com');
  });

  it('skips an alert whose status is neither firing nor resolved', () => {
    const events = eventsOf(parseChanged('group-firing', (b) => (b.alerts[0].status = 'suppressed')));
    expect(events.map((e) => e.title)).toEqual(['Alert HighLatency firing']);
  });

  it('ignores a delivery without alerts', () => {
    expect(parseChanged('group-firing', (b) => (b.alerts = []))).toMatchObject({ kind: 'ignored' });
  });

  it('rejects a payload version other than 4', () => {
    expect(() => parseChanged('group-firing', (b) => (b.version = '3'))).toThrow(/"version"/);
  });

  it('rejects a body that is not JSON', () => {
    expect(() => alertmanagerSource.parse(webhook('{'))).toThrow(MalformedPayloadError);
  });

  it.each([
    ['alerts', (b: Record<string, any>) => delete b.alerts],
    ['alerts[1].fingerprint', (b: Record<string, any>) => delete b.alerts[1].fingerprint],
    ['alerts[0].startsAt', (b: Record<string, any>) => delete b.alerts[0].startsAt],
    ['alerts[0].status', (b: Record<string, any>) => delete b.alerts[0].status],
    ['alerts[0].startsAt', (b: Record<string, any>) => (b.alerts[0].startsAt = '1719586557')],
  ])('names %s when it is missing or unreadable', (field, change) => {
    expect(() => parseChanged('group-firing', change)).toThrow(MalformedPayloadError);
    expect(() => parseChanged('group-firing', change)).toThrow(`"${field}"`);
  });
});
