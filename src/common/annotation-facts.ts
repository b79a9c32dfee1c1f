/**
 * Facts about a change or an incident, written as data into the annotation itself: how it ended
 * (its outcome), when the deployed commit was made, and what its impact verdict was. The hosted
 * API has no field for them, so they live in one line of the description, in one form that the
 * action, the bridge and the monitors write and that every reader parses here:
 *
 *     [timemark outcome=failure committed=2024-05-01T09:12:00.000Z impact=regressed]
 *
 * The line starts with `[timemark `, holds `key=value` pairs separated by single spaces (values
 * never contain spaces or `]`), and ends with `]`. Keys a reader does not know, and values
 * outside a key's vocabulary, are ignored, so that newer writers do not break older readers.
 * Any other text of the description is left to people.
 */
import { ANNOTATION_LIMITS } from './annotation-contract.js';

/**
 * How a rollout or an episode ended. `success`, `failure`, `error` (the deployment system
 * failed), `canceled`; `resolved` (an incident or monitor episode ended); `timed-out` (no finish
 * event came, the span was closed after the longest allowed time); `unknown` (it ended, with no
 * verdict).
 */
export const OUTCOMES = ['success', 'failure', 'error', 'canceled', 'resolved', 'timed-out', 'unknown'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Outcomes that make a deployment a failed change. */
export const FAILED_OUTCOMES: ReadonlySet<Outcome> = new Set(['failure', 'error']);

/** An impact verdict as the facts line writes it (src/impact/ spells them with spaces). */
export const IMPACT_FACTS = ['regressed', 'improved', 'no-change', 'not-enough-data'] as const;
export type ImpactFact = (typeof IMPACT_FACTS)[number];

export interface AnnotationFacts {
  outcome?: Outcome;
  /** When the deployed commit was made, RFC 3339 UTC. */
  committed?: string;
  impact?: ImpactFact;
}

const LINE = /^\[timemark((?: [a-z][a-z-]*=[^\s\]]+)+)\]$/;
const PAIR = / ([a-z][a-z-]*)=([^\s\]]+)/g;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/** The one reader of the facts: those of the description's last facts line (none when it has none). */
export function readFacts(description: string | undefined): AnnotationFacts {
  const line = factsLine(description);
  if (line === undefined) return {};
  const facts: AnnotationFacts = {};
  for (const [, key, value = ''] of line.text.matchAll(PAIR)) {
    if (key === 'outcome' && isOneOf(OUTCOMES, value)) facts.outcome = value;
    else if (key === 'committed' && RFC3339_UTC.test(value) && Number.isFinite(Date.parse(value))) facts.committed = value;
    else if (key === 'impact' && isOneOf(IMPACT_FACTS, value)) facts.impact = value;
  }
  return facts;
}

/** The facts line for `facts`, or "" when there is nothing to say. */
export function formatFacts(facts: AnnotationFacts): string {
  const pairs: string[] = [];
  if (facts.outcome !== undefined) pairs.push(`outcome=${facts.outcome}`);
  if (facts.committed !== undefined) pairs.push(`committed=${facts.committed}`);
  if (facts.impact !== undefined) pairs.push(`impact=${facts.impact}`);
  return pairs.length === 0 ? '' : `[timemark ${pairs.join(' ')}]`;
}

/**
 * The description with its facts replaced by `facts` (merged over the ones it has): the facts
 * line keeps its place, or is appended. The text around it is shortened (with "…") only as far
 * as the description's limit forces.
 */
export function withFacts(description: string | undefined, facts: AnnotationFacts, limit: number = ANNOTATION_LIMITS.description): string {
  const text = description ?? '';
  const line = formatFacts({ ...readFacts(text), ...definedOnly(facts) });
  if (line === '') return clip(withoutFacts(text), limit);
  const found = factsLine(text);
  const before = found ? text.slice(0, found.start) : text === '' || text.endsWith('\n') ? text : `${text}\n`;
  const after = found ? text.slice(found.end) : '';
  const room = limit - line.length - after.length;
  return room < 0 ? clip(line + after, limit) : clipTail(before, room) + line + after;
}

/** The description without its facts line: what people wrote. */
export function withoutFacts(description: string | undefined): string {
  const text = description ?? '';
  const found = factsLine(text);
  if (!found) return text;
  const lines = text.split('\n');
  lines.splice(found.index, 1);
  return lines.join('\n');
}

interface FoundLine {
  text: string;
  /** Its line number, and where it starts and ends in the description. */
  index: number;
  start: number;
  end: number;
}

function factsLine(description: string | undefined): FoundLine | undefined {
  if (!description) return undefined;
  let found: FoundLine | undefined;
  let start = 0;
  description.split('\n').forEach((line, index) => {
    const end = start + line.length;
    if (LINE.test(line.trim())) found = { text: line.trim(), index, start, end };
    start = end + 1;
  });
  return found;
}

function isOneOf<T extends string>(choices: readonly T[], value: string): value is T {
  return (choices as readonly string[]).includes(value);
}

function definedOnly(facts: AnnotationFacts): AnnotationFacts {
  return Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined)) as AnnotationFacts;
}

/** Keeps the end of the text (the facts come after it), shortening what precedes with "…". */
function clipTail(text: string, room: number): string {
  if (text.length <= room) return text;
  if (room <= 1) return '';
  // The line break before the facts line stays, so the line still starts a line.
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return `${body.slice(0, Math.max(0, room - 2))}…\n`;
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
