/**
 * Episodes: one rollout or one alert episode, i.e. one annotation.
 *
 * Every event is folded into the state of its episode by the rules below, inside the same
 * transaction that records the event. The outbox then only has to make the annotation look like
 * the state — so redeliveries, reordering and bursts all collapse into "sync this episode".
 * The rules are written to give the same state whatever order the events of one episode arrive in.
 */
import { createHash } from 'node:crypto';
import type { BridgeEvent, Outcome } from '../sources/types.js';
import type { MappedTarget } from '../mapping/mapping.js';

/** A value and the sender's time of the event that set it: the most recent event wins, whatever the arrival order. */
export interface Stamped<T> {
  value: T;
  at: number;
}

export type EpisodeOutcome = Outcome | 'timed-out';

export interface EpisodeState {
  startedAt?: number;
  endedAt?: number;
  outcome?: EpisodeOutcome;
  /** Closed by the maximum open time rather than by a finish event; a real finish still replaces it. */
  autoClosed?: boolean;
  maxOpenMs?: number;
  category: BridgeEvent['category'];
  datasets: Stamped<string[]>;
  type: Stamped<string>;
  title: Stamped<string>;
  description?: Stamped<string>;
  url?: Stamped<string>;
}

/**
 * Whether an event belongs to the key's latest episode or opens a new one. Senders without an
 * episode id (monitor ids) reuse the key, so a start after the latest episode ended, or a finish
 * whose own start is after it, is a new episode. A finish arriving before its start is not:
 * the start's time is not after that finish.
 */
export function belongsToLatest(latest: EpisodeState | undefined, event: BridgeEvent): boolean {
  if (latest === undefined) return false;
  if (latest.endedAt === undefined) return true;
  if (event.phase === 'start') return event.occurredAt <= latest.endedAt;
  if (latest.autoClosed) return true;
  return event.startedAt === undefined || event.startedAt <= latest.endedAt;
}

export function newEpisode(event: BridgeEvent, target: MappedTarget): EpisodeState {
  return mergeEvent(
    {
      category: event.category,
      datasets: { value: target.datasets, at: Number.NEGATIVE_INFINITY },
      type: { value: target.type, at: Number.NEGATIVE_INFINITY },
      title: { value: target.title, at: Number.NEGATIVE_INFINITY },
    },
    event,
    target,
  );
}

/**
 * Folds one event into an episode. Terminal beats non-terminal: a start only ever moves the
 * start earlier and never clears the end; among finishes the latest by the sender's clock wins.
 */
export function mergeEvent(state: EpisodeState, event: BridgeEvent, target: MappedTarget): EpisodeState {
  const next: EpisodeState = { ...state };
  const startHint = event.phase === 'start' ? event.occurredAt : event.startedAt;
  if (startHint !== undefined) next.startedAt = next.startedAt === undefined ? startHint : Math.min(next.startedAt, startHint);

  if (event.phase === 'finish') {
    const replaces = next.endedAt === undefined || next.autoClosed === true || event.occurredAt >= next.endedAt;
    if (replaces) {
      next.endedAt = event.occurredAt;
      next.outcome = event.outcome ?? 'success';
      delete next.autoClosed;
      delete next.maxOpenMs;
    }
  }

  next.datasets = newer(next.datasets, target.datasets, event.occurredAt);
  next.type = newer(next.type, target.type, event.occurredAt);
  next.title = newer(next.title, target.title, event.occurredAt);
  if (event.description) next.description = newer(next.description, event.description, event.occurredAt);
  if (event.url) next.url = newer(next.url, event.url, event.occurredAt);
  return next;
}

function newer<T>(current: Stamped<T> | undefined, value: T, at: number): Stamped<T> {
  return current === undefined || at >= current.at ? { value, at } : current;
}

/** Closes a span that never got its finish, and says so. */
export function autoClose(state: EpisodeState, maxOpenMs: number): EpisodeState {
  const start = state.startedAt ?? state.endedAt ?? 0;
  return { ...state, endedAt: start + maxOpenMs, outcome: 'timed-out', autoClosed: true, maxOpenMs };
}

/** The start time the max-open sweep watches, or null once the episode is closed. */
export function openSince(state: EpisodeState): number | null {
  return state.endedAt === undefined ? (state.startedAt ?? null) : null;
}

export const TITLE_LIMIT = 256;
export const DESCRIPTION_LIMIT = 512;
export const URL_LIMIT = 512;

export interface RenderedAnnotation {
  datasets: string[];
  type: string;
  time: string;
  endTime?: string;
  title: string;
  description: string;
  url?: string;
}

/**
 * A stable mark written into every annotation the bridge creates, so that after a crash between
 * "the service created it" and "we recorded its id" the annotation is found instead of created twice.
 */
export function episodeMarker(correlationKey: string, seq: number): string {
  const digest = createHash('sha256').update(`${correlationKey}#${seq}`).digest('hex').slice(0, 20);
  return `[timemark:${digest}]`;
}

export function renderAnnotation(state: EpisodeState, marker: string): RenderedAnnotation {
  const start = state.startedAt ?? state.endedAt;
  if (start === undefined) throw new Error('An episode has neither a start nor an end time.');
  const notes: string[] = [];
  if (state.outcome && !state.autoClosed) notes.push(`Outcome: ${state.outcome}.`);
  if (state.autoClosed) {
    notes.push(`Closed by timemark: no finish event within ${formatDuration(state.maxOpenMs ?? 0)} of the start.`);
  }
  const tail = [...notes, marker].join('\n');
  const body = state.description?.value ?? '';
  const room = DESCRIPTION_LIMIT - tail.length - 1;
  const description = body ? `${clip(body, room)}\n${tail}` : tail;
  const rendered: RenderedAnnotation = {
    datasets: state.datasets.value,
    type: state.type.value,
    time: new Date(start).toISOString(),
    title: clip(state.title.value || state.type.value, TITLE_LIMIT),
    description,
  };
  // A sender's clocks may disagree by a little; the service refuses an end before the start.
  if (state.endedAt !== undefined) rendered.endTime = new Date(Math.max(state.endedAt, start)).toISOString();
  if (state.url && state.url.value.length <= URL_LIMIT) rendered.url = state.url.value;
  return rendered;
}

function clip(text: string, limit: number): string {
  if (limit <= 0) return '';
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 1000)}s`;
}
