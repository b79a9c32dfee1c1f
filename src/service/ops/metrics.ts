import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { createHttpMetrics, createMetricsRegistry, type HttpMetrics } from '../../common/metrics.js';

/**
 * The local service's metrics, all in `registry` (served at /metrics). Modules that grow the
 * service receive this object and record into it, or add their own metrics to `registry`.
 */
export interface ServiceMetrics {
  registry: Registry;
  http: HttpMetrics;
  /** Events made durable by ingest, by dataset. */
  ingestedEvents: Counter<'dataset'>;
  /** Time to answer a query, by kind (`apl`, `structured`). */
  queryDuration: Histogram<'kind'>;
}

export function createServiceMetrics(options: { countAnnotations: () => number }): ServiceMetrics {
  const registry = createMetricsRegistry();
  new Gauge({
    name: 'timemark_service_annotations',
    help: 'Annotations stored.',
    registers: [registry],
    collect() {
      this.set(options.countAnnotations());
    },
  });
  return {
    registry,
    http: createHttpMetrics(registry, 'timemark_service'),
    ingestedEvents: new Counter({
      name: 'timemark_service_ingested_events_total',
      help: 'Events made durable by ingest, by dataset.',
      labelNames: ['dataset'],
      registers: [registry],
    }),
    queryDuration: new Histogram({
      name: 'timemark_service_query_duration_seconds',
      help: 'From receiving a query to its reply, by kind (apl, structured).',
      labelNames: ['kind'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}
