/**
 * The impact of a change: for an annotation (a point, or a span once it has ended) and a
 * dataset, each signal is compared in a window before the annotation's start with the same
 * window after its end, and judged by its rule (rules.ts). Only the public API is used — the
 * dataset's field list and APL queries — through an ImpactSource, so the same code runs in the
 * CLI and the action (over src/client/) and in the dashboard (over the page's fetch calls),
 * against the local service or the hosted one.
 */
import type { Annotation } from '../common/annotation-contract.js';
import { annotationKind } from '../common/annotation-kind.js';
import { formatDuration } from '../common/duration.js';
import { InputError } from '../common/errors.js';
import { formatTime } from '../common/time.js';
import { aboveQuery, readWindow, windowQuery, type TabularLike, type Window, type WindowAnswer } from './queries.js';
import { FAMILY_ALPHA, judgeBuckets, judgePercentile, judgeRate, overallVerdict, RULES, type Judgement, type RuleName, type Verdict } from './rules.js';
import { defaultSignals, parseSignal, type DatasetField, type MissingSignal, type Signal } from './signals.js';

/** The window before and after a change, unless the caller says otherwise (the CLI's --window, the dashboard). */
export const DEFAULT_WINDOW_MS = 30 * 60_000;

/** The public API calls an impact makes. */
export interface ImpactSource {
  /** `GET /v2/datasets/{dataset}/fields`. */
  fields(dataset: string): Promise<readonly DatasetField[]>;
  /** `POST /v1/datasets/_apl?format=tabular`. */
  apl(query: { apl: string; startTime: string; endTime: string }): Promise<TabularLike>;
}

export interface ImpactRequest {
  annotation: Annotation;
  /** Default: the annotation's first dataset. */
  dataset?: string;
  /** APL aggregations; none means the default signals of the dataset. */
  signals?: readonly string[];
  windowMs: number;
  nowMs: number;
}

/** One side of a signal: the figures its rule looked at. */
export interface SideFigures {
  /** The signal's value: a share (0–1) for a rate, else the aggregation's value. */
  value: number | null;
  /** Events counted (rate), values present (percentile). */
  events?: number;
  /** Events that matched (rate). */
  matching?: number;
  /** Values above the before window's percentile (percentile). */
  above?: number;
  /** Whole buckets with a value (buckets). */
  buckets?: number;
}

export interface SignalResult extends Judgement {
  name: string;
  /** The field a default signal was built from. */
  field?: string;
  /** The APL aggregations it ran. */
  apl: string[];
  rule: RuleName;
  /** The rule, stated. */
  ruleText: string;
  alpha: number;
  before: SideFigures;
  after: SideFigures;
}

export interface ImpactResult {
  annotation: Pick<Annotation, 'id' | 'type' | 'time' | 'endTime' | 'title'>;
  dataset: string;
  window: string;
  windowMs: number;
  before: { start: string; end: string };
  after: { start: string; end: string; complete: boolean };
  verdict: Verdict;
  /** The chance of a false regression or improvement over all the signals (each gets its share). */
  familyAlpha: number;
  signals: SignalResult[];
  /** Default signals that could not be built (a field not found). */
  missing: MissingSignal[];
  /** Why there is no verdict at all, or what limits it. */
  notes: string[];
}

export async function computeImpact(source: ImpactSource, request: ImpactRequest): Promise<ImpactResult> {
  const { annotation, windowMs, nowMs } = request;
  const dataset = request.dataset ?? annotation.datasets[0];
  if (dataset === undefined || dataset === '') {
    throw new InputError(`Annotation ${annotation.id} lists no dataset. Expected a dataset to compare, e.g. --dataset production.`);
  }
  // User signals are checked before any request.
  const given = (request.signals ?? []).map((text, index) => parseSignal(`signal ${index + 1}`, text));
  const startMs = Date.parse(annotation.time);
  const endMs = annotation.endTime === undefined ? startMs : Date.parse(annotation.endTime);
  const before: Window = { startMs: startMs - windowMs, endMs: startMs };
  const after: Window = { startMs: endMs, endMs: Math.min(endMs + windowMs, nowMs) };
  const result: ImpactResult = {
    annotation: pick(annotation),
    dataset,
    window: formatDuration(windowMs),
    windowMs,
    before: { start: formatTime(before.startMs), end: formatTime(before.endMs) },
    after: { start: formatTime(after.startMs), end: formatTime(Math.max(after.startMs, after.endMs)), complete: after.endMs === endMs + windowMs },
    verdict: 'not enough data',
    familyAlpha: FAMILY_ALPHA,
    signals: [],
    missing: [],
    notes: [],
  };
  if (annotationKind(annotation) === 'open-span') {
    result.notes.push('The span has not ended yet: its impact is measured after its end.');
    return result;
  }
  if (after.endMs <= after.startMs) {
    result.notes.push(`The window after the change starts at ${result.after.start}, which has not come yet.`);
    return result;
  }
  if (!result.after.complete) {
    result.notes.push(`The window after the change is not over: it covers ${formatDuration(after.endMs - after.startMs)} of ${result.window} so far.`);
  }

  let signals = given;
  if (signals.length === 0) {
    const defaults = defaultSignals(await source.fields(dataset));
    signals = defaults.signals;
    result.missing = defaults.missing;
  }
  if (signals.length === 0) {
    result.notes.push('No signal to compare: the default signals need fields the dataset does not have.');
    return result;
  }

  const answers = await runQueries(source, dataset, signals, { before, after, windowMs });
  const alpha = FAMILY_ALPHA / signals.length;
  result.signals = signals.map((signal, index) => judge(signal, index, answers, { before, after, windowMs }, alpha));
  result.verdict = overallVerdict(result.signals.map((signal) => signal.verdict));
  return result;
}

interface Answers {
  before: WindowAnswer;
  after: WindowAnswer;
  /** Values above the threshold in the before window, per percentile signal. */
  beforeAbove: WindowAnswer | undefined;
}

interface Windows {
  before: Window;
  after: Window;
  windowMs: number;
}

/**
 * The before window first when a percentile signal needs its threshold from it; then the after
 * window and the count above the threshold in the before window, side by side.
 */
async function runQueries(source: ImpactSource, dataset: string, signals: readonly Signal[], windows: Windows): Promise<Answers> {
  const run = async (apl: string, window: Window): Promise<WindowAnswer> =>
    readWindow(await source.apl({ apl, startTime: formatTime(window.startMs), endTime: formatTime(window.endMs) }));
  const hasPercentile = signals.some((signal) => signal.rule === 'percentile');
  if (!hasPercentile) {
    const [before, after] = await Promise.all([
      run(windowQuery(dataset, signals, windows.windowMs), windows.before),
      run(windowQuery(dataset, signals, windows.windowMs), windows.after),
    ]);
    return { before, after, beforeAbove: undefined };
  }
  const before = await run(windowQuery(dataset, signals, windows.windowMs), windows.before);
  const thresholds = new Map<number, number>();
  signals.forEach((signal, index) => {
    const value = signal.rule === 'percentile' ? before.total(index, 'value') : null;
    if (value !== null) thresholds.set(index, value);
  });
  const [after, beforeAbove] = await Promise.all([
    run(windowQuery(dataset, signals, windows.windowMs, thresholds), windows.after),
    thresholds.size === 0 ? Promise.resolve(undefined) : run(aboveQuery(dataset, signals, thresholds), windows.before),
  ]);
  return { before, after, beforeAbove };
}

function judge(signal: Signal, index: number, answers: Answers, windows: Windows, alpha: number): SignalResult {
  const base = { name: signal.name, ...(signal.rule !== 'buckets' && signal.field ? { field: signal.field } : {}), rule: signal.rule, ruleText: RULES[signal.rule], alpha };
  const { before, after } = answers;
  switch (signal.rule) {
    case 'rate': {
      const sides = [before, after].map((answer) => ({ matching: answer.total(index, 'matching') ?? 0, events: answer.total(index, 'events') ?? 0 }));
      const [b = { matching: 0, events: 0 }, a = { matching: 0, events: 0 }] = sides;
      return {
        ...base,
        apl: [signal.matching, signal.events],
        before: { value: share(b), ...b },
        after: { value: share(a), ...a },
        ...judgeRate(b, a, alpha),
      };
    }
    case 'percentile': {
      const b = { events: before.total(index, 'events') ?? 0, value: before.total(index, 'value'), above: answers.beforeAbove?.total(index, 'above') ?? 0 };
      const a = { events: after.total(index, 'events') ?? 0, value: after.total(index, 'value'), above: after.total(index, 'above') ?? 0 };
      return {
        ...base,
        apl: [`percentile(${signal.expression}, ${signal.percentile})`, `countif(isnotnull(${signal.expression}))`],
        before: b,
        after: a,
        ...judgePercentile(signal.percentile, b, a, alpha),
      };
    }
    case 'buckets': {
      const b = { value: before.total(index, 'value'), buckets: before.buckets(index, windows.before, windows.windowMs) };
      const a = { value: after.total(index, 'value'), buckets: after.buckets(index, windows.after, windows.windowMs) };
      return {
        ...base,
        apl: [signal.aggregation],
        before: { value: b.value, buckets: b.buckets.length },
        after: { value: a.value, buckets: a.buckets.length },
        ...judgeBuckets(b, a, alpha),
      };
    }
  }
}

function share(side: { matching: number; events: number }): number | null {
  return side.events === 0 ? null : side.matching / side.events;
}

function pick(annotation: Annotation): ImpactResult['annotation'] {
  const { id, type, time, endTime, title } = annotation;
  return { id, type, time, ...(endTime === undefined ? {} : { endTime }), ...(title === undefined ? {} : { title }) };
}
