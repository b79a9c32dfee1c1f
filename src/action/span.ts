import type { Annotation } from '../client/index.js';
import type { Outcome } from '../common/annotation-facts.js';
import { SPAN_TAG_KEY, type CloseOn, type JobStatus } from './constants.js';
import { truncate, type RunContext } from './run-context.js';

/**
 * Which run, job and attempt opened a span. It travels in the fragment of the annotation's url:
 * the link still opens the same page, the charts show nothing extra, and a re-run can find it.
 */
export interface SpanTag {
  runId: string;
  job: string;
  attempt: number;
}

/** GitHub lets a run be re-run up to 30 days after it started; look back a little further. */
export const PREVIOUS_ATTEMPT_WINDOW_MS = 35 * 24 * 3_600_000;

export function spanTagOf(context: RunContext): SpanTag | undefined {
  if (!context.runId) return undefined;
  return { runId: context.runId, job: context.job ?? '', attempt: context.runAttempt };
}

/** The url with the tag as its fragment; undefined when the url already has a fragment of its own. */
export function tagUrl(url: string, tag: SpanTag): string | undefined {
  if (url.includes('#')) return undefined;
  return `${url}#${SPAN_TAG_KEY}=${encodeURIComponent(tag.runId)}.${tag.attempt}.${encodeURIComponent(tag.job)}`;
}

export function readSpanTag(url: string | undefined): SpanTag | undefined {
  const fragment = url?.split('#')[1];
  const prefix = `${SPAN_TAG_KEY}=`;
  if (!fragment?.startsWith(prefix)) return undefined;
  const match = /^([^.]+)\.(\d+)\.(.*)$/.exec(fragment.slice(prefix.length));
  if (!match || match[1] === undefined || match[2] === undefined || match[3] === undefined) return undefined;
  try {
    return { runId: decodeURIComponent(match[1]), attempt: Number(match[2]), job: decodeURIComponent(match[3]) };
  } catch {
    // A hand-edited fragment that is not valid percent-encoding is simply not one of ours.
    return undefined;
  }
}

/**
 * The span an earlier attempt of this same job left open, if any: same run and job, an earlier
 * attempt, no end, same type and datasets. Matrix legs of one attempt never match each other,
 * because they share the attempt number; the latest earlier attempt wins.
 */
export function findPreviousAttemptSpan(
  candidates: readonly Annotation[],
  want: { tag: SpanTag; type: string; datasets: readonly string[] },
): Annotation | undefined {
  const wanted = [...want.datasets].sort().join('\n');
  let best: { annotation: Annotation; attempt: number } | undefined;
  for (const annotation of candidates) {
    if (annotation.endTime !== undefined || annotation.type !== want.type) continue;
    const tag = readSpanTag(annotation.url);
    if (!tag || tag.runId !== want.tag.runId || tag.job !== want.tag.job || tag.attempt >= want.tag.attempt) continue;
    if ([...annotation.datasets].sort().join('\n') !== wanted) continue;
    if (!best || tag.attempt > best.attempt) best = { annotation, attempt: tag.attempt };
  }
  return best?.annotation;
}

export function shouldClose(closeOn: CloseOn, status: JobStatus | undefined): boolean {
  return closeOn === 'always' || (closeOn === 'success' && status === 'success');
}

const JOB_OUTCOMES: Record<JobStatus, Outcome> = {
  success: 'success',
  failure: 'failure',
  cancelled: 'canceled',
};

/** The job's status as the facts line's outcome; none when the status was not given. */
export function jobOutcome(status: JobStatus | undefined): Outcome | undefined {
  return status === undefined ? undefined : JOB_OUTCOMES[status];
}

const OUTCOME_WORDS: Record<JobStatus, string> = {
  success: 'succeeded',
  failure: 'failed',
  cancelled: 'cancelled',
};

/**
 * The title with the job's outcome appended ("Deploy · main @ 1a2b3c4 — failed, left open").
 * The original title is shortened only as far as the service's limit forces.
 */
export function outcomeTitle(baseTitle: string | undefined, status: JobStatus | undefined, leftOpen: boolean, limit: number): string {
  const outcome = `${status ? OUTCOME_WORDS[status] : 'ended (job status not given)'}${leftOpen ? ', left open' : ''}`;
  if (!baseTitle) return outcome.charAt(0).toUpperCase() + outcome.slice(1);
  const suffix = ` — ${outcome}`;
  return truncate(baseTitle, limit - suffix.length) + suffix;
}
