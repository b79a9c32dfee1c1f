/** A small Prometheus text-format registry: counters, gauges read at scrape time, one histogram kind. */

type Labels = Readonly<Record<string, string>>;

export interface Counter {
  inc(labels?: Labels, by?: number): void;
}

export interface Histogram {
  observe(seconds: number, labels?: Labels): void;
}

export interface MetricsRegistry {
  counter(name: string, help: string): Counter;
  histogram(name: string, help: string, buckets: readonly number[]): Histogram;
  /** A gauge whose value is read when scraped (e.g. the outbox depth from the store). */
  gauge(name: string, help: string, read: () => Promise<Array<{ labels?: Labels; value: number }>>): void;
  render(): Promise<string>;
}

export function createMetricsRegistry(): MetricsRegistry {
  const sections: Array<() => Promise<string[]>> = [];

  return {
    counter(name, help) {
      const values = new Map<string, number>();
      sections.push(async () => [
        `# HELP ${name} ${help}`,
        `# TYPE ${name} counter`,
        ...[...values].map(([labels, value]) => `${name}${labels} ${value}`),
      ]);
      return {
        inc(labels = {}, by = 1) {
          const key = formatLabels(labels);
          values.set(key, (values.get(key) ?? 0) + by);
        },
      };
    },
    histogram(name, help, buckets) {
      const series = new Map<string, { counts: number[]; sum: number; count: number }>();
      sections.push(async () => {
        const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
        for (const [key, data] of series) {
          const labels = JSON.parse(key) as Labels;
          buckets.forEach((bound, index) => lines.push(`${name}_bucket${formatLabels({ ...labels, le: String(bound) })} ${data.counts[index]}`));
          lines.push(`${name}_bucket${formatLabels({ ...labels, le: '+Inf' })} ${data.count}`);
          lines.push(`${name}_sum${formatLabels(labels)} ${data.sum}`, `${name}_count${formatLabels(labels)} ${data.count}`);
        }
        return lines;
      });
      return {
        observe(seconds, labels = {}) {
          const key = JSON.stringify(labels);
          let data = series.get(key);
          if (!data) {
            data = { counts: buckets.map(() => 0), sum: 0, count: 0 };
            series.set(key, data);
          }
          buckets.forEach((bound, index) => {
            if (seconds <= bound) data.counts[index] = (data.counts[index] ?? 0) + 1;
          });
          data.sum += seconds;
          data.count++;
        },
      };
    },
    gauge(name, help, read) {
      sections.push(async () => {
        const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`];
        for (const { labels = {}, value } of await read()) lines.push(`${name}${formatLabels(labels)} ${value}`);
        return lines;
      });
    },
    async render() {
      const parts = await Promise.all(sections.map((section) => section()));
      return `${parts.flat().join('\n')}\n`;
    },
  };
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([key, value]) => `${key}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
}

/** The bridge's own metrics, created once per app. */
export interface BridgeMetrics {
  registry: MetricsRegistry;
  received: Counter;
  deduped: Counter;
  ignored: Counter;
  rejected: Counter;
  applied: Counter;
  applyFailures: Counter;
  deadLettered: Counter;
  ackLatency: Histogram;
  applyLatency: Histogram;
}

export function createBridgeMetrics(): BridgeMetrics {
  const registry = createMetricsRegistry();
  return {
    registry,
    received: registry.counter('timemark_bridge_events_received_total', 'Events accepted from verified deliveries, by source.'),
    deduped: registry.counter('timemark_bridge_events_deduped_total', 'Events dropped as redeliveries of events already recorded, by source.'),
    ignored: registry.counter('timemark_bridge_deliveries_ignored_total', 'Verified deliveries with nothing to do (pings, other event types), by source.'),
    rejected: registry.counter('timemark_bridge_deliveries_rejected_total', 'Deliveries refused, by source and reason.'),
    applied: registry.counter('timemark_bridge_events_applied_total', 'Annotation creates and updates that succeeded, by source.'),
    applyFailures: registry.counter('timemark_bridge_events_failed_total', 'Annotation creates and updates that failed (and will be retried or dead-lettered), by source.'),
    deadLettered: registry.counter('timemark_bridge_dead_letters_total', 'Episodes moved to the dead-letter state, by source.'),
    ackLatency: registry.histogram(
      'timemark_bridge_ack_latency_seconds',
      'From the end of the request body to the 2xx, including the durable write.',
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    ),
    applyLatency: registry.histogram(
      'timemark_bridge_apply_latency_seconds',
      'From the last recorded change of an episode to its annotation matching it, by source.',
      [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
    ),
  };
}
