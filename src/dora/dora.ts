/**
 * The four DORA figures, drawn from annotations alone: deployment spans and points (with their
 * outcome, commit time and impact verdict from the facts line) and incident and monitor spans.
 * Pure: the caller lists the annotations (`GET /v2/annotations`, the public API), so the CLI and
 * the dashboard compute the same figures against the local service or the hosted one. Every
 * figure says how DORA defines it, what it was drawn from, and which spans it counted and why.
 */
import type { Annotation } from '../common/annotation-contract.js';
import { annotationKind } from '../common/annotation-kind.js';
import { FAILED_OUTCOMES, readFacts, type AnnotationFacts } from '../common/annotation-facts.js';
import { readableDuration } from '../common/duration.js';
import { formatTime } from '../common/time.js';

export const DORA_DEFAULTS = {
  deployType: 'deploy',
  incidentTypes: ['incident', 'monitor'],
  /** An incident that starts within this long after a deployment ended counts against it. */
  failureWindowMs: 3_600_000,
} as const;

export const DEFINITIONS = {
  deploymentFrequency: 'Deployment frequency (DORA): how often changes are deployed to production.',
  changeFailureRate: 'Change failure rate (DORA): the share of deployments that cause a failure in production and need a hotfix, a rollback or a fix.',
  timeToRestore: 'Time to restore service (DORA; since 2023 "failed deployment recovery time"): how long it takes to recover from a failure in production.',
  leadTime: 'Change lead time (DORA): how long a commit takes to be running in production.',
} as const;

export interface DoraRequest {
  /** Every annotation of the datasets that overlaps the period (and the failure window after it). */
  annotations: readonly Annotation[];
  datasets: readonly string[];
  startMs: number;
  endMs: number;
  deployType?: string;
  incidentTypes?: readonly string[];
  failureWindowMs?: number;
}

/** A span or point a figure looked at, and what it made of it. */
export interface CountedSpan {
  id: string;
  type: string;
  title?: string;
  time: string;
  endTime?: string;
  datasets: string[];
  facts: AnnotationFacts;
  /** Whether the figure counts it. */
  counted: boolean;
  /** Why (not): "failed: outcome failure", "in progress", "lead time 2 h 5 min"… */
  note: string;
}

export interface Figure {
  definition: string;
  /** How this report measures it, and from which data. */
  method: string;
  spans: CountedSpan[];
}

export interface DoraReport {
  period: { start: string; end: string; days: number };
  datasets: string[];
  deployType: string;
  incidentTypes: string[];
  failureWindow: string;
  deploymentFrequency: Figure & { deployments: number; perDay: number; perWeek: number };
  changeFailureRate: Figure & { deployments: number; failed: number; rate: number | null };
  timeToRestore: Figure & { restored: number; open: number; medianMs: number | null };
  leadTime: Figure & { known: number; unknown: number; medianMs: number | null };
}

const DAY_MS = 86_400_000;

export function computeDora(request: DoraRequest): DoraReport {
  const deployType = request.deployType ?? DORA_DEFAULTS.deployType;
  const incidentTypes = [...(request.incidentTypes ?? DORA_DEFAULTS.incidentTypes)];
  const failureWindowMs = request.failureWindowMs ?? DORA_DEFAULTS.failureWindowMs;
  const { startMs, endMs } = request;
  const days = (endMs - startMs) / DAY_MS;
  const source = `annotations on ${request.datasets.join(', ')} that started from ${formatTime(startMs)} to ${formatTime(endMs)} (GET /v2/annotations)`;
  const inPeriod = (annotation: Annotation): boolean => {
    const time = Date.parse(annotation.time);
    return time >= startMs && time < endMs;
  };
  const byTime = [...request.annotations].sort((a, b) => Date.parse(a.time) - Date.parse(b.time) || a.id.localeCompare(b.id));
  const deploys = byTime.filter((annotation) => annotation.type === deployType && inPeriod(annotation));
  const incidents = byTime.filter((annotation) => incidentTypes.includes(annotation.type));

  // Deployments: every deploy annotation of the period but those still rolling out and those canceled.
  const deploymentSpans = deploys.map((annotation) => {
    const facts = readFacts(annotation.description);
    const inProgress = annotationKind(annotation) === 'open-span' && facts.outcome === undefined;
    if (inProgress) return span(annotation, facts, false, 'in progress: not ended, no outcome yet');
    if (facts.outcome === 'canceled') return span(annotation, facts, false, 'canceled: no change reached production');
    return span(annotation, facts, true, facts.outcome === undefined ? 'deployed (no outcome recorded)' : `deployed, outcome ${facts.outcome}`);
  });
  const deployments = deploys.filter((_, index) => deploymentSpans[index]?.counted);
  const perDay = days > 0 ? deployments.length / days : 0;

  // Failed changes: by outcome, by an incident that followed, by an impact verdict.
  const blamed = blameIncidents(deployments, incidents, failureWindowMs);
  const failureSpans = deployments.map((annotation) => {
    const facts = readFacts(annotation.description);
    const reasons: string[] = [];
    if (facts.outcome !== undefined && FAILED_OUTCOMES.has(facts.outcome)) reasons.push(`outcome ${facts.outcome}`);
    for (const incident of blamed.get(annotation.id) ?? []) reasons.push(`followed by ${incident.type} ${incident.id} at ${formatTime(Date.parse(incident.time))}`);
    if (facts.impact === 'regressed') reasons.push('impact verdict regressed');
    return span(annotation, facts, reasons.length > 0, reasons.length > 0 ? `failed: ${reasons.join('; ')}` : 'no failure');
  });
  const failed = failureSpans.filter((entry) => entry.counted).length;

  // Restores: incidents and monitor spans of the period, by how long they lasted.
  const restoreSpans = incidents.filter(inPeriod).map((annotation) => {
    const facts = readFacts(annotation.description);
    if (annotation.endTime === undefined) return span(annotation, facts, false, annotationKind(annotation) === 'open-span' ? 'not restored yet' : 'a point: no duration');
    return span(annotation, facts, true, `restored in ${readableDuration(Date.parse(annotation.endTime) - Date.parse(annotation.time))}`);
  });
  const restoreDurations = restoreSpans.filter((entry) => entry.counted).map((entry) => Date.parse(entry.endTime ?? '') - Date.parse(entry.time));

  // Lead times: deployments that did not fail by their outcome and whose commit time is known.
  const leadSpans = deployments
    .map((annotation) => ({ annotation, facts: readFacts(annotation.description) }))
    .filter(({ facts }) => facts.outcome === undefined || !FAILED_OUTCOMES.has(facts.outcome))
    .map(({ annotation, facts }) => {
      if (facts.committed === undefined) return { entry: span(annotation, facts, false, 'commit time not known'), ms: undefined };
      const ms = Date.parse(annotation.endTime ?? annotation.time) - Date.parse(facts.committed);
      return { entry: span(annotation, facts, true, `lead time ${readableDuration(ms)} (committed ${facts.committed})`), ms };
    });
  const leadTimes = leadSpans.flatMap(({ ms }) => (ms === undefined ? [] : [ms]));

  return {
    period: { start: formatTime(startMs), end: formatTime(endMs), days },
    datasets: [...request.datasets],
    deployType,
    incidentTypes,
    failureWindow: readableDuration(failureWindowMs),
    deploymentFrequency: {
      definition: DEFINITIONS.deploymentFrequency,
      method: `deployments (${deployType} ${source}, not in progress, not canceled) per day of the period`,
      spans: deploymentSpans,
      deployments: deployments.length,
      perDay,
      perWeek: perDay * 7,
    },
    changeFailureRate: {
      definition: DEFINITIONS.changeFailureRate,
      method:
        `failed deployments / deployments; a deployment failed when its outcome is failure or error, when a span of type ${incidentTypes.join(' or ')} ` +
        `on one of its datasets starts after it started and within ${readableDuration(failureWindowMs)} of its end (an incident counts against the latest such deployment only), or when its impact verdict is regressed`,
      spans: failureSpans,
      deployments: deployments.length,
      failed,
      rate: deployments.length === 0 ? null : failed / deployments.length,
    },
    timeToRestore: {
      definition: DEFINITIONS.timeToRestore,
      method: `median duration of the ${incidentTypes.join(' and ')} spans of ${source} that have ended`,
      spans: restoreSpans,
      restored: restoreDurations.length,
      open: restoreSpans.filter((entry) => !entry.counted).length,
      medianMs: median(restoreDurations),
    },
    leadTime: {
      definition: DEFINITIONS.leadTime,
      method: 'median time from the commit (the facts line\'s "committed", recorded by the action and the bridge where GitHub says) to the end of the deployment, over deployments that did not fail by their outcome',
      spans: leadSpans.map(({ entry }) => entry),
      known: leadTimes.length,
      unknown: leadSpans.length - leadTimes.length,
      medianMs: median(leadTimes),
    },
  };
}

/**
 * Which deployment each incident counts against: the latest deployment sharing one of its
 * datasets that started before the incident, if the incident starts within the window after
 * that deployment's end. Deployments are in time order.
 */
function blameIncidents(deployments: readonly Annotation[], incidents: readonly Annotation[], windowMs: number): Map<string, Annotation[]> {
  const blamed = new Map<string, Annotation[]>();
  for (const incident of incidents) {
    const at = Date.parse(incident.time);
    const culprit = deployments
      .filter((deploy) => Date.parse(deploy.time) <= at && deploy.datasets.some((name) => incident.datasets.includes(name)))
      .at(-1);
    if (!culprit || at > Date.parse(culprit.endTime ?? culprit.time) + windowMs) continue;
    blamed.set(culprit.id, [...(blamed.get(culprit.id) ?? []), incident]);
  }
  return blamed;
}

function span(annotation: Annotation, facts: AnnotationFacts, counted: boolean, note: string): CountedSpan {
  return {
    id: annotation.id,
    type: annotation.type,
    ...(annotation.title === undefined ? {} : { title: annotation.title }),
    time: annotation.time,
    ...(annotation.endTime === undefined ? {} : { endTime: annotation.endTime }),
    datasets: annotation.datasets,
    facts,
    counted,
    note,
  };
}

/** A figure as people read it: at most two decimals, thousands separated. */
export function roundFigure(value: number): string {
  return Number(value.toFixed(2)).toLocaleString('en-US');
}

/** The middle value; the mean of the two middle values of an even count. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
