import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useLocalService } from '../../helpers/local-service.js';
import { eventually, startTestBridge, TEST_SECRET, type TestBridge } from '../../webhook-server/helpers/bridge.js';
import { httpEvents, serviceApi } from '../../helpers/service-api.js';

/**
 * The service's monitor notifications, sent to the real bridge's /webhooks/monitor: the bridge
 * turns Open into an incident span and Closed into its end, on the service itself.
 */
describe('monitor notifications through the webhook bridge', () => {
  const service = useLocalService({ monitors: { delivery: { baseDelayMs: 20, maxDelayMs: 200, stopGraceMs: 200 } } });
  const api = serviceApi(service);
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, config: { mapping: { datasets: ['incidents'], types: { deploy: 'deploy', incident: 'incident' }, rules: [] } } });
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('opens a span when the monitor triggers and ends it when the monitor resolves, per group', async () => {
    await api.ingest('bridged', [...httpEvents(7, { service: 'checkout' }), ...httpEvents(2, { service: 'search' })]);
    const notifier = await api.call('POST', '/v2/notifiers', {
      name: 'Timemark bridge',
      properties: { customWebhook: { url: `${bridge.url}/webhooks/monitor`, headers: { Authorization: `Bearer ${TEST_SECRET}` } } },
    });
    const definition = {
      name: 'Checkout errors',
      type: 'Threshold',
      description: '5xx by service',
      aplQuery: "['bridged'] | where status >= 500 | summarize count() by service",
      operator: 'Above',
      threshold: 5,
      notifyByGroup: true,
      intervalMinutes: 60,
      rangeMinutes: 10,
      notifierIds: [notifier.body.id],
    };
    const monitor = (await api.call('POST', '/v2/monitors', definition)).body;

    const opened = await api.run(monitor.id);
    expect(opened.body).toMatchObject({ opened: 1, notifications: 1 });
    const span = await eventually(async () => (await api.annotations('incidents'))[0], 'the bridge to open the incident span');
    expect(span).toEqual({
      id: expect.stringMatching(/^ann_/),
      datasets: ['incidents'],
      type: 'incident',
      time: opened.body.endTime,
      title: 'Monitor Checkout errors (checkout) opened',
      description: expect.stringContaining('5xx by service'),
    });

    await api.call('PUT', `/v2/monitors/${monitor.id}`, { ...definition, threshold: 50 });
    const closed = await api.run(monitor.id);
    expect(closed.body).toMatchObject({ closed: 1, notifications: 1 });
    const ended = await eventually(async () => {
      const [annotation] = await api.annotations('incidents');
      return annotation?.endTime === undefined ? undefined : annotation;
    }, 'the bridge to end the incident span');
    expect(ended).toMatchObject({ id: span.id, time: opened.body.endTime, endTime: closed.body.endTime });
    expect(await api.annotations('incidents')).toHaveLength(1);

    // The service's own annotation of the same episode, on the monitored dataset.
    expect(await api.annotations('bridged')).toEqual([
      expect.objectContaining({ type: 'monitor', title: 'Checkout errors (checkout)', time: opened.body.endTime, endTime: closed.body.endTime }),
    ]);
  });
});
