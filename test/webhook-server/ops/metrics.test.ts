import { describe, expect, it } from 'vitest';
import { createBridgeMetrics } from '../../../webhook-server/src/ops/metrics.js';
import type { OutboxCounts } from '../../../webhook-server/src/store/types.js';

describe('the bridge metrics', () => {
  it('read the outbox depth from the store when scraped, not when work happens', async () => {
    let counts: OutboxCounts = { pending: 3, synced: 10, dead: 1 };
    const metrics = createBridgeMetrics({ outboxCounts: async () => counts });
    const first = await metrics.registry.metrics();
    expect(first).toContain('timemark_bridge_outbox_depth{status="pending"} 3');
    expect(first).toContain('timemark_bridge_outbox_depth{status="dead"} 1');
    counts = { pending: 0, synced: 14, dead: 0 };
    const second = await metrics.registry.metrics();
    expect(second).toContain('timemark_bridge_outbox_depth{status="pending"} 0');
    expect(second).toContain('timemark_bridge_outbox_depth{status="synced"} 14');
  });

  it('count deliveries by source and reason, and time acknowledgements and applies in histograms', async () => {
    const metrics = createBridgeMetrics({ outboxCounts: async () => ({ pending: 0, synced: 0, dead: 0 }) });
    metrics.received.inc({ source: 'github' }, 2);
    metrics.rejected.inc({ source: 'gitlab', reason: 'unauthorized' });
    metrics.ackLatency.observe(0.003);
    metrics.applyLatency.observe({ source: 'github' }, 0.2);
    metrics.http.requests.inc({ method: 'POST', route: '/webhooks/:source', status: '202' });
    const text = await metrics.registry.metrics();
    expect(text).toContain('timemark_bridge_events_received_total{source="github"} 2');
    expect(text).toContain('timemark_bridge_deliveries_rejected_total{source="gitlab",reason="unauthorized"} 1');
    expect(text).toContain('timemark_bridge_ack_latency_seconds_bucket{le="0.005"} 1');
    expect(text).toContain('timemark_bridge_apply_latency_seconds_bucket{le="0.25",source="github"} 1');
    expect(text).toContain('timemark_bridge_http_requests_total{method="POST",route="/webhooks/:source",status="202"} 1');
  });

  it('are kept apart per bridge, so two bridges in one process do not add up', async () => {
    const a = createBridgeMetrics({ outboxCounts: async () => ({ pending: 0, synced: 0, dead: 0 }) });
    const b = createBridgeMetrics({ outboxCounts: async () => ({ pending: 0, synced: 0, dead: 0 }) });
    a.deadLettered.inc({ source: 'flux' });
    expect(await a.registry.metrics()).toContain('timemark_bridge_dead_letters_total{source="flux"} 1');
    expect(await b.registry.metrics()).not.toContain('timemark_bridge_dead_letters_total{source="flux"}');
  });
});
