import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Monitor evaluations, the episodes they open and close, and the deliveries of their notifications. */
export interface MonitorMetrics {
  /** Labels: type (Threshold, MatchEvent), outcome (ok, failed, overlapping, superseded). */
  evaluations: Counter<'type' | 'outcome'>;
  evaluationSeconds: Histogram<'type'>;
  /** Episodes opened (and matches notified) or closed. Labels: action (Open, Closed). */
  transitions: Counter<'action'>;
  /** Delivery attempts. Labels: outcome (delivered, retried, given_up). */
  deliveries: Counter<'outcome'>;
}

export function createMonitorMetrics(registry: Registry, readPendingDeliveries: () => number): MonitorMetrics {
  new Gauge({
    name: 'timemark_service_monitor_notifications_pending',
    help: 'Notifications in the outbox waiting for (another) delivery attempt.',
    registers: [registry],
    collect() {
      this.set(readPendingDeliveries());
    },
  });
  return {
    evaluations: new Counter({
      name: 'timemark_service_monitor_evaluations_total',
      help: 'Monitor evaluations, by monitor type and outcome (ok, failed, overlapping: skipped because the previous run had not finished, superseded: the monitor changed while its query ran).',
      labelNames: ['type', 'outcome'],
      registers: [registry],
    }),
    evaluationSeconds: new Histogram({
      name: 'timemark_service_monitor_evaluation_duration_seconds',
      help: 'Time from the start of a monitor evaluation to its recorded outcome.',
      labelNames: ['type'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    transitions: new Counter({
      name: 'timemark_service_monitor_triggers_total',
      help: 'Episodes a monitor opened (a threshold crossed, an event matched) or closed.',
      labelNames: ['action'],
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'timemark_service_monitor_notification_deliveries_total',
      help: 'Notification delivery attempts, by outcome (delivered, retried, given_up).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}
