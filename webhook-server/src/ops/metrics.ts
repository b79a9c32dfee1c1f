/** The bridge's metrics (prom-client), served at /metrics with the process and HTTP metrics. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { createHttpMetrics, createMetricsRegistry, type HttpMetrics } from '../../../src/common/metrics.js';
import type { OutboxCounts } from '../store/types.js';

export interface BridgeMetrics {
  registry: Registry;
  http: HttpMetrics;
  received: Counter<'source'>;
  deduped: Counter<'source'>;
  ignored: Counter<'source'>;
  rejected: Counter<'source' | 'reason'>;
  applied: Counter<'source'>;
  applyFailures: Counter<'source'>;
  deadLettered: Counter<'source'>;
  ackLatency: Histogram;
  applyLatency: Histogram<'source'>;
}

/** `outboxCounts` is read at scrape time, so the depth is the store's, across every replica. */
export function createBridgeMetrics(options: { outboxCounts: () => Promise<OutboxCounts> }): BridgeMetrics {
  const registry = createMetricsRegistry();
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> =>
    new Counter({ name, help, labelNames, registers: [registry] });
  new Gauge({
    name: 'timemark_bridge_outbox_depth',
    help: 'Episodes by outbox status: pending (not yet applied), dead (given up), synced.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const counts = await options.outboxCounts();
      for (const [status, value] of Object.entries(counts)) this.set({ status }, value);
    },
  });
  return {
    registry,
    http: createHttpMetrics(registry, 'timemark_bridge'),
    received: counter('timemark_bridge_events_received_total', 'Events accepted from verified deliveries, by source.', ['source']),
    deduped: counter('timemark_bridge_events_deduped_total', 'Events dropped as redeliveries of events already recorded, by source.', ['source']),
    ignored: counter('timemark_bridge_deliveries_ignored_total', 'Verified deliveries with nothing to do (pings, other event types), by source.', ['source']),
    rejected: counter('timemark_bridge_deliveries_rejected_total', 'Deliveries refused, by source and reason.', ['source', 'reason']),
    applied: counter('timemark_bridge_events_applied_total', 'Annotation creates and updates that succeeded, by source.', ['source']),
    applyFailures: counter(
      'timemark_bridge_events_failed_total',
      'Annotation creates and updates that failed (and will be retried or dead-lettered), by source.',
      ['source'],
    ),
    deadLettered: counter('timemark_bridge_dead_letters_total', 'Episodes moved to the dead-letter state, by source.', ['source']),
    ackLatency: new Histogram({
      name: 'timemark_bridge_ack_latency_seconds',
      help: 'From the end of the request body to the 2xx, including the durable write.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    applyLatency: new Histogram({
      name: 'timemark_bridge_apply_latency_seconds',
      help: 'From the last recorded change of an episode to its annotation matching it, by source.',
      labelNames: ['source'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
      registers: [registry],
    }),
  };
}
