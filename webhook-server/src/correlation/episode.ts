/**
 * Episodes: one rollout or one alert episode, i.e. one annotation.
 *
 * Every event is folded into the state of its episode by the rules below, inside the same
 * transaction that records the event. The outbox then only has to make the annotation look like
 * the state — so redeliveries, reordering and bursts all collapse into "sync this episode".
 * The rules are written to give the same state whatever order the events of one episode arrive in.
 */
import { createHash } from 'node:crypto';
import { ANNOTATION_LIMITS, type NewAnnotation } from '../../../src/common/annotation-contract.js';
import { formatFacts } from '../../../src/common/annotation-facts.js';
import { formatDuration } from '../../../src/common/duration.js';
import type { MappedTarget } from '../mapping/mapping.js';
import type { BridgeEvent, Outcome, SourceName } from '../sources/types.js';

/** A value and the sender's time of the event that set it: the most recent event wins, whatever the arrival order. */
export interface Stamped<T> {
  value: T;
  at: number;
}

export type EpisodeOutcome = Outcome | 'timed-out';

export interface EpisodeState {
  startedAt?: number;
  endedAt?: number;
  /** When the deployed commit was made, where a sender says. */
  committedAt?: number;
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
 * Senders whose correlation key names a thing that fires again and again (an Axiom-style monitor
 * id) rather than one episode. Their episodes are told apart by time, across every recent episode
 * of the key, so that even reordered deliveries of two episodes land in the right one.
 */
const KEYS_WITHOUT_EPISODE_ID: ReadonlySet<SourceName> = new Set(['monitor']);

/** How many of a key's most recent episodes an event is placed among. */
export const PLACEMENT_WINDOW = 20;

/**
 * The episode an event belongs to, as an index into `episodes` (ordered by seq, oldest first), or
 * 'new'. For keys that carry an episode id only the latest episode is a candidate: a start after
 * it ended, or a finish whose own start is after it, opens a new one (a reopened incident). A
 * finish that arrives before its start is never new: its start is not after that finish.
 */
export function placeEvent(episodes: readonly EpisodeState[], event: BridgeEvent): number | 'new' {
  if (episodes.length === 0) return 'new';
  if (KEYS_WITHOUT_EPISODE_ID.has(event.source)) return placeByTime(episodes, event);
  const latest = episodes[episodes.length - 1] as EpisodeState;
  return belongsToLatest(latest, event) ? episodes.length - 1 : 'new';
}

function belongsToLatest(latest: EpisodeState, event: BridgeEvent): boolean {
  if (latest.endedAt === undefined) return true;
  if (event.phase === 'start') return event.occurredAt <= latest.endedAt;
  if (latest.autoClosed) return true;
  return event.startedAt === undefined || event.startedAt <= latest.endedAt;
}

/**
 * Such a sender stamps each start and each finish once (redeliveries are deduplicated before
 * this), so a start joins only an episode that has that very start or none yet (one created by
 * its finish, the nearest ending at or after it); a finish joins only an episode that has that
 * very end or none yet (the latest open one that started before it). Otherwise it is a new
 * episode. Starts and finishes that arrive far apart out of order usually land right; two
 * episodes whose deliveries interleave arbitrarily cannot always be told apart.
 */
function placeByTime(episodes: readonly EpisodeState[], event: BridgeEvent): number | 'new' {
  const indexed = episodes.map((state, index) => ({ state, index }));
  if (event.phase === 'start') {
    const same = indexed.find(({ state }) => state.startedAt === event.occurredAt);
    if (same) return same.index;
    const waiting = indexed
      .filter(({ state }) => state.startedAt === undefined && state.endedAt !== undefined && state.endedAt >= event.occurredAt)
      .sort((a, b) => (a.state.endedAt ?? 0) - (b.state.endedAt ?? 0));
    return waiting[0]?.index ?? 'new';
  }
  const same = indexed.find(({ state }) => !state.autoClosed && state.endedAt === event.occurredAt);
  if (same) return same.index;
  const start = event.startedAt ?? event.occurredAt;
  const open = indexed
    .filter(({ state }) => (state.endedAt === undefined || state.autoClosed) && state.startedAt !== undefined && state.startedAt <= start)
    .sort((a, b) => (a.state.startedAt ?? 0) - (b.state.startedAt ?? 0));
  return open[open.length - 1]?.index ?? 'new';
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
  // Every event of one rollout names the same commit; the first that carries its time sets it.
  if (event.committedAt !== undefined && next.committedAt === undefined) next.committedAt = event.committedAt;

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

/** What the outbox sends: a create body whose `time`, `title` and `description` are always set. */
export type RenderedAnnotation = NewAnnotation & Required<Pick<NewAnnotation, 'time' | 'title' | 'description'>>;

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
  if (state.autoClosed) {
    notes.push(`Closed by timemark: no finish event within ${formatDuration(state.maxOpenMs ?? 0)} of the start.`);
  }
  // The outcome and the commit time as data, before the marker, which stays the last line.
  const facts = formatFacts({
    ...(state.outcome === undefined ? {} : { outcome: state.outcome }),
    ...(state.committedAt === undefined ? {} : { committed: new Date(state.committedAt).toISOString() }),
  });
  if (facts !== '') notes.push(facts);
  const tail = [...notes, marker].join('\n');
  const body = state.description?.value ?? '';
  const room = ANNOTATION_LIMITS.description - tail.length - 1;
  const description = body ? `${clip(body, room)}\n${tail}` : tail;
  const rendered: RenderedAnnotation = {
    datasets: state.datasets.value,
    type: state.type.value,
    time: new Date(start).toISOString(),
    title: clip(state.title.value || state.type.value, ANNOTATION_LIMITS.title),
    description,
  };
  // A sender's clocks may disagree by a little; the service refuses an end before the start.
  if (state.endedAt !== undefined) rendered.endTime = new Date(Math.max(state.endedAt, start)).toISOString();
  if (state.url && state.url.value.length <= ANNOTATION_LIMITS.url) rendered.url = state.url.value;
  return rendered;
}

function clip(text: string, limit: number): string {
  if (limit <= 0) return '';
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
