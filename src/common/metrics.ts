import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * A Prometheus registry for one process part (the service, the bridge), with Node's process
 * metrics (CPU, memory, event-loop delay, GC). Each part's modules receive it and add their own.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** What the HTTP boundary records about every request. */
export interface HttpMetrics {
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
}

/** `prefix` names the part, e.g. `timemark_service` → `timemark_service_http_requests_total`. */
export function createHttpMetrics(registry: Registry, prefix: string): HttpMetrics {
  return {
    requests: new Counter({
      name: `${prefix}_http_requests_total`,
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: `${prefix}_http_request_duration_seconds`,
      help: 'From the start of a request to the end of its reply, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
