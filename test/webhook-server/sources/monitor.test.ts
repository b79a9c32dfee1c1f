import { describe, expect, it } from 'vitest';
import { monitorSource } from '../../../webhook-server/src/sources/monitor.js';
import { MalformedPayloadError } from '../../../webhook-server/src/sources/types.js';
import { BEARER_SECRET, bearerVerifyCases } from './bearer-cases.js';
import { fixtureWebhook, modifiedBody, webhook } from './fixtures.js';
import { onlyEvent } from './helpers.js';

const delivery = (name: string) => fixtureWebhook('monitor', name, { authorization: `Bearer ${BEARER_SECRET}` });
const parseChanged = (name: string, change: (body: Record<string, any>) => void) =>
  monitorSource.parse(webhook(modifiedBody('monitor', name, change)));

describe('monitor source: verify', () => {
  bearerVerifyCases(monitorSource, 'open');
});

describe('monitor source: parse', () => {
  it('starts an incident span when the monitor opens, reading Go\'s time format', () => {
    expect(onlyEvent(monitorSource.parse(delivery('open')))).toEqual({
      source: 'monitor',
      dedupeKey: 'monitor:mon_Xc7yEq2ZkP9rT4wB:Open:2024-06-28 14:55:57.631364493 +0000 UTC:["checkout","eu-west-1"]',
      correlationKey: 'monitor:mon_Xc7yEq2ZkP9rT4wB:["checkout","eu-west-1"]',
      phase: 'start',
      occurredAt: Date.parse('2024-06-28T14:55:57.631Z'),
      category: 'incident',
      title: 'Monitor Checkout error rate (checkout, eu-west-1) opened',
      description: '5xx responses per minute on the checkout service',
      context: {
        monitor: 'Checkout error rate',
        monitor_id: 'mon_Xc7yEq2ZkP9rT4wB',
        action: 'Open',
        value: '14.2',
        'group.service': 'checkout',
        'group.region': 'eu-west-1',
      },
    });
  });

  it('resolves the span when the monitor closes', () => {
    const event = onlyEvent(monitorSource.parse(delivery('closed')));
    expect(event).toMatchObject({ phase: 'finish', outcome: 'resolved', occurredAt: Date.parse('2024-06-28T15:12:57.120Z') });
    expect(event.startedAt).toBeUndefined();
  });

  it('gives open and close of one monitor group the same correlation key', () => {
    const open = onlyEvent(monitorSource.parse(delivery('open')));
    const closed = onlyEvent(monitorSource.parse(delivery('closed')));
    expect(closed.correlationKey).toBe(open.correlationKey);
    expect(closed.dedupeKey).not.toBe(open.dedupeKey);
    expect(onlyEvent(monitorSource.parse(delivery('open'))).dedupeKey).toBe(open.dedupeKey);
  });

  it('keeps groups of one monitor apart', () => {
    const other = onlyEvent(parseChanged('open', (b) => (b.event.groupValues = ['checkout', 'us-east-1'])));
    expect(other.correlationKey).not.toBe(onlyEvent(monitorSource.parse(delivery('open'))).correlationKey);
  });

  it('keys a monitor without groups by its id alone', () => {
    const event = onlyEvent(parseChanged('open', (b) => ((b.event.groupKeys = null), (b.event.groupValues = null))));
    expect(event.correlationKey).toBe('monitor:mon_Xc7yEq2ZkP9rT4wB');
    expect(event.title).toBe('Monitor Checkout error rate opened');
  });

  it('reads a Go time with a monotonic clock suffix and a non-UTC zone', () => {
    const event = onlyEvent(
      parseChanged('open', (b) => (b.event.timestamp = '2024-06-28 16:55:57.631364493 +0200 CEST m=+3600.000000001')),
    );
    expect(event.occurredAt).toBe(Date.parse('2024-06-28T14:55:57.631Z'));
  });

  it('ignores actions other than Open and Closed', () => {
    expect(parseChanged('open', (b) => (b.action = 'Muted'))).toMatchObject({ kind: 'ignored' });
  });

  it('rejects a body that is not JSON', () => {
    expect(() => monitorSource.parse(webhook('[1, 2'))).toThrow(MalformedPayloadError);
  });

  it.each([
    ['action', (b: Record<string, any>) => delete b.action],
    ['event.monitorID', (b: Record<string, any>) => delete b.event.monitorID],
    ['event.timestamp', (b: Record<string, any>) => delete b.event.timestamp],
    ['event.timestamp', (b: Record<string, any>) => (b.event.timestamp = '28 Jun 24 14:55 UTC')],
  ])('names %s when it is missing or unreadable', (field, change) => {
    const hook = webhook(modifiedBody('monitor', 'open', change));
    expect(() => monitorSource.parse(hook)).toThrow(MalformedPayloadError);
    expect(() => monitorSource.parse(hook)).toThrow(`"${field}"`);
  });
});
