/**
 * The deploy gate: once a span has ended (the post step of span mode, or a close step), wait
 * for the window after it to pass — at most LIMITS.impactWaitMs — then measure the span's
 * impact (src/impact/) and record the verdict in the annotation's facts line. Deciding whether
 * the verdict fails the job, and reporting errors as warnings, is the runner boundary's part.
 */
import type { Annotation, AnnotationsClient } from '../client/index.js';
import { withFacts, type ImpactFact } from '../common/annotation-facts.js';
import { readableDuration } from '../common/duration.js';
import { computeImpact, type ImpactResult, type ImpactSource } from '../impact/impact.js';
import type { Verdict } from '../impact/rules.js';
import type { Log } from './annotate.js';
import { LIMITS } from './constants.js';
import type { GateInputs } from './inputs.js';

export interface GateDeps {
  client: AnnotationsClient;
  events: ImpactSource;
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
  log: Log;
}

export type GateResult =
  | { kind: 'judged'; impact: ImpactResult; waitedMs: number }
  /** Nothing to judge: the span is still open (closeOn left it open). */
  | { kind: 'skipped'; reason: string };

const FACTS: Readonly<Record<Verdict, ImpactFact>> = {
  regressed: 'regressed',
  improved: 'improved',
  'no change': 'no-change',
  'not enough data': 'not-enough-data',
};

export async function runGate(annotation: Annotation, gate: GateInputs, deps: GateDeps): Promise<GateResult> {
  if (annotation.endTime === undefined) {
    return { kind: 'skipped', reason: `span ${annotation.id} is still open, so there is no "after" to measure yet.` };
  }
  const windowEnd = Date.parse(annotation.endTime) + gate.windowMs;
  const waitedMs = Math.max(0, Math.min(windowEnd - deps.clock(), LIMITS.impactWaitMs));
  if (waitedMs > 0) {
    const capped = windowEnd - deps.clock() > LIMITS.impactWaitMs ? ` (the wait is capped at ${readableDuration(LIMITS.impactWaitMs)})` : '';
    deps.log.info(`Waiting ${readableDuration(waitedMs)} for the window after the span to pass${capped}, then measuring its impact on ${gate.dataset}.`);
    await deps.sleep(waitedMs);
  }
  const impact = await computeImpact(deps.events, {
    annotation,
    dataset: gate.dataset,
    ...(gate.signals.length > 0 ? { signals: gate.signals } : {}),
    windowMs: gate.windowMs,
    nowMs: deps.clock(),
  });
  const current = await deps.client.get(annotation.id);
  await deps.client.update(annotation.id, { description: withFacts(current.description, { impact: FACTS[impact.verdict] }) });
  return { kind: 'judged', impact, waitedMs };
}
