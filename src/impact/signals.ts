/**
 * What an impact compares: signals. The two default signals — the error rate and the p95
 * latency — are built from fields found in the dataset's field list by name; a field that is
 * not there is reported, never guessed. Any other APL aggregation can be a signal; its form
 * picks the rule that judges it (rules.ts):
 *
 * - `countif(<condition>)`: the rate rule, on the share of the window's events that match;
 * - `percentile(<expression>, <p>)` with 0 < p < 100: the percentile rule;
 * - anything else (`count()`, `avg(x)`, `dcount(user)`, `100.0 * countif(a) / count()`…): the
 *   bucket rule.
 *
 * A signal is APL text the user wrote for their own data, checked here only for its shape: it
 * must be one aggregation expression, so that it stays one column of the summarize it goes into.
 */
import { quoteAplName } from '../common/apl-name.js';
import { InputError } from '../common/errors.js';

export interface RateSignal {
  rule: 'rate';
  name: string;
  /** The field it was built from, for default signals. */
  field?: string;
  /** The APL aggregations counting matching events and all events. */
  matching: string;
  events: string;
}

export interface PercentileSignal {
  rule: 'percentile';
  name: string;
  field?: string;
  /** The APL expression whose percentile it is. */
  expression: string;
  percentile: number;
}

export interface BucketSignal {
  rule: 'buckets';
  name: string;
  aggregation: string;
}

export type Signal = RateSignal | PercentileSignal | BucketSignal;

/** A field of the dataset's field list (`GET /v2/datasets/{id}/fields`). */
export interface DatasetField {
  name: string;
  type: string;
}

/** A default signal that could not be built, and why. */
export interface MissingSignal {
  signal: string;
  reason: string;
}

/** HTTP status fields, most common first; the first one the dataset has is used. */
export const STATUS_FIELDS = ['status', 'status_code', 'statusCode', 'http.status_code', 'http.response.status_code', 'http.status', 'response.status', 'response.status_code'];
/** Request duration fields, most common first. */
export const DURATION_FIELDS = [
  'duration',
  'duration_ms',
  'req_duration_ms',
  'request_duration_ms',
  'response_time',
  'response_time_ms',
  'latency',
  'latency_ms',
  'elapsed_ms',
  'http.duration',
  'http.server.request.duration',
];

export const ERROR_RATE = 'error rate';
export const LATENCY = 'p95 latency';
const ERROR_STATUS = 500;
const LATENCY_PERCENTILE = 95;

/**
 * The default signals for a dataset with these fields: the share of requests with a status of
 * 500 or more, and the 95th percentile of the duration. A status may be stored as a number or
 * as text ("500"); a duration must be a number.
 */
export function defaultSignals(fields: readonly DatasetField[]): { signals: Signal[]; missing: MissingSignal[] } {
  const signals: Signal[] = [];
  const missing: MissingSignal[] = [];
  const status = findField(fields, STATUS_FIELDS, (type) => isNumeric(type) || type.split('|').includes('string'));
  if (status) {
    const name = quoteAplName(status.name);
    // A status stored as text compares as text; toint reads "500" as 500.
    const value = isNumeric(status.type) ? name : `toint(${name})`;
    signals.push({ rule: 'rate', name: ERROR_RATE, field: status.name, matching: `countif(${value} >= ${ERROR_STATUS})`, events: `countif(isnotnull(${name}))` });
  } else {
    missing.push({ signal: ERROR_RATE, reason: notFound(fields, STATUS_FIELDS, 'a number or text') });
  }
  const duration = findField(fields, DURATION_FIELDS, isNumeric);
  if (duration) {
    signals.push({ rule: 'percentile', name: LATENCY, field: duration.name, expression: quoteAplName(duration.name), percentile: LATENCY_PERCENTILE });
  } else {
    missing.push({ signal: LATENCY, reason: notFound(fields, DURATION_FIELDS, 'a number') });
  }
  return { signals, missing };
}

/** Reads one signal given as APL text (`--signal`, the action's impact-signals). */
export function parseSignal(label: string, text: string): Signal {
  const apl = text.trim();
  const depths = checkShape(label, apl);
  const call = callOf(apl, depths);
  if (call?.name === 'countif' && call.args.length === 1) return { rule: 'rate', name: apl, matching: apl, events: 'count()' };
  if (call?.name === 'percentile' && call.args.length === 2) {
    const [expression = '', level = ''] = call.args;
    const percentile = Number(level);
    if (/^\d+(\.\d+)?$/.test(level) && percentile > 0 && percentile < 100) return { rule: 'percentile', name: apl, expression, percentile };
  }
  return { rule: 'buckets', name: apl, aggregation: apl };
}

function findField(fields: readonly DatasetField[], names: readonly string[], usable: (type: string) => boolean): DatasetField | undefined {
  for (const name of names) {
    const field = fields.find((candidate) => candidate.name === name);
    if (field && usable(field.type)) return field;
  }
  return undefined;
}

function notFound(fields: readonly DatasetField[], names: readonly string[], expected: string): string {
  const wrongType = names.map((name) => fields.find((field) => field.name === name)).filter((field): field is DatasetField => field !== undefined);
  const looked = `the dataset has no field named ${names.join(', ')}`;
  if (wrongType.length === 0) return `${looked}; give the signal with --signal (impact-signals in the action).`;
  const found = wrongType.map((field) => `${field.name} is ${field.type}`).join(', ');
  return `no usable field: ${found}, expected ${expected}; give the signal with --signal (impact-signals in the action).`;
}

function isNumeric(type: string): boolean {
  const kinds = type.split('|');
  return kinds.length > 0 && kinds.every((kind) => kind === 'integer' || kind === 'float');
}

/**
 * One aggregation expression: balanced brackets and quotes, and at its top level none of what
 * would end it and start something else in a summarize (`|`, `,`, `;`, `by`). Returns the
 * bracket depth before each character (-1 inside a string literal).
 */
function checkShape(label: string, apl: string): number[] {
  const expected = 'Expected one APL aggregation, e.g. countif(level == "error") or percentile(duration_ms, 99).';
  if (apl === '') throw new InputError(`Invalid ${label}: it is empty. ${expected}`);
  const { depths, problem } = bracketDepths(apl);
  const topLevel = (index: number): boolean => depths[index] === 0;
  const separator = depths.findIndex((_, index) => topLevel(index) && '|,;'.includes(apl[index] as string));
  const by = [...apl.matchAll(/(?<![\w.])by(?![\w])/gi)].find((match) => topLevel(match.index));
  const found = problem ?? (separator >= 0 ? `"${apl[separator]}" outside parentheses` : by ? '"by" outside parentheses' : undefined);
  if (found) throw new InputError(`Invalid ${label} ${JSON.stringify(apl)}: ${found}. ${expected}`);
  return depths;
}

/** The depth of brackets before each character, -1 inside string literals (raw @"…" strings have no escapes). */
function bracketDepths(apl: string): { depths: number[]; problem?: string } {
  const depths: number[] = [];
  const closing: string[] = [];
  for (let index = 0; index < apl.length; index++) {
    const char = apl[index] as string;
    depths[index] = closing.length;
    if (char === '"' || char === "'") {
      const raw = apl[index - 1] === '@';
      let end = index + 1;
      for (; end < apl.length && apl[end] !== char; end++) if (!raw && apl[end] === '\\') end++;
      if (end >= apl.length) return { depths, problem: 'a string that is not closed' };
      for (let inside = index + 1; inside <= end; inside++) depths[inside] = -1;
      index = end;
    } else if (char === '(' || char === '[' || char === '{') {
      closing.push(char === '(' ? ')' : char === '[' ? ']' : '}');
    } else if (char === ')' || char === ']' || char === '}') {
      if (closing.pop() !== char) return { depths, problem: `an unmatched "${char}"` };
      depths[index] = closing.length;
    }
  }
  return closing.length > 0 ? { depths, problem: 'an unclosed bracket' } : { depths };
}

/** `name(a, b)` when the whole text is one call: its name and arguments, split at its own commas. */
function callOf(apl: string, depths: readonly number[]): { name: string; args: string[] } | undefined {
  const head = /^([A-Za-z_]+)\s*\(/.exec(apl);
  if (!head?.[1]) return undefined;
  const open = head[0].length - 1;
  // The call's own parenthesis must be the one that closes at the very end.
  const close = depths.findIndex((depth, index) => index > open && depth === 0 && apl[index] === ')');
  if (close !== apl.length - 1) return undefined;
  const args: string[] = [];
  let start = open + 1;
  for (let index = start; index < close; index++) {
    if (apl[index] === ',' && depths[index] === 1) {
      args.push(apl.slice(start, index).trim());
      start = index + 1;
    }
  }
  const last = apl.slice(start, close).trim();
  if (last !== '' || args.length > 0) args.push(last);
  return { name: head[1], args };
}
