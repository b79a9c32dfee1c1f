/**
 * The Alertmanager webhook shape (`{version: "4", status, alerts: [...]}`), shared by Prometheus
 * Alertmanager and Grafana alerting, which extends it.
 *
 * One delivery carries a whole alert group, so it becomes one event per alert, each read from the
 * alert's own `status` (the group's status is "firing" while any alert fires). An alert's identity
 * (its fingerprint, a hash of its labels) recurs every time the same condition fires again, so
 * each episode is told apart by the alert's `startsAt`. A firing alert's `endsAt` is only the time
 * Alertmanager would consider it stale, never an end. Firing groups are re-sent every repeat
 * interval: the dedupe key (fingerprint, startsAt, status) makes those repeats duplicates.
 */

import { buildContext, firstPresent, prefixed } from './context.js';
import type { JsonReader } from './json.js';
import { isZeroTime, keyTime, parseRfc3339 } from './times.js';
import type { BridgeEvent, SourceName } from './types.js';

export interface AlertReading {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  fingerprint: string;
  status: 'firing' | 'resolved';
  startsAt: number;
  endsAt: number | undefined;
}

/** Reads one alert; undefined when its status is neither firing nor resolved (nothing to do). */
export function readAlert(alert: JsonReader): AlertReading | undefined {
  const status = alert.string('status');
  const fingerprint = alert.string('fingerprint');
  const labels = alert.stringMap('labels');
  const annotations = alert.stringMap('annotations');
  const startsAt = parseRfc3339(`${alert.path}.startsAt`, alert.string('startsAt'));
  const endsAtText = alert.optionalString('endsAt');
  const endsAtMs = endsAtText === undefined ? undefined : parseRfc3339(`${alert.path}.endsAt`, endsAtText);
  const endsAt = endsAtMs === undefined || isZeroTime(endsAtMs) ? undefined : endsAtMs;
  if (status !== 'firing' && status !== 'resolved') return undefined;
  return { labels, annotations, fingerprint, status, startsAt, endsAt };
}

export interface AlertEventOptions {
  source: SourceName;
  /** Prepended to fingerprints in keys, e.g. the Grafana org, so equal label sets elsewhere stay apart. */
  scope?: string;
  url: string | undefined;
  receivedAt: number;
  extraContext?: Record<string, string | undefined>;
}

export function alertEvent(reading: AlertReading, options: AlertEventOptions): BridgeEvent {
  const { labels, annotations, fingerprint, status, startsAt, endsAt } = reading;
  const scope = options.scope === undefined ? '' : `${options.scope}:`;
  const episode = `${options.source}:${scope}${fingerprint}:${keyTime(startsAt)}`;
  const alertname = labels.alertname ?? fingerprint;
  const description = firstPresent(annotations.summary, annotations.description, annotations.message);
  const finish = status === 'resolved';
  return {
    source: options.source,
    dedupeKey: `${episode}:${status}`,
    correlationKey: episode,
    phase: finish ? 'finish' : 'start',
    ...(finish ? { outcome: 'resolved' as const } : {}),
    // A resolved alert's endsAt is when it stopped firing; without it, its arrival is the best guess.
    occurredAt: finish ? (endsAt ?? options.receivedAt) : startsAt,
    startedAt: startsAt,
    category: 'incident',
    title: `Alert ${alertname} ${status}`,
    ...(description === undefined ? {} : { description }),
    ...(options.url === undefined ? {} : { url: options.url }),
    context: {
      ...buildContext({
        alertname,
        severity: labels.severity,
        service: labels.service ?? labels.job,
        namespace: labels.namespace,
        status,
        fingerprint,
        ...options.extraContext,
      }),
      ...prefixed('labels', labels),
      ...prefixed('annotations', annotations),
    },
  };
}
