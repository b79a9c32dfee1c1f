/**
 * What a monitor's query result means, decided without side effects.
 *
 * Threshold monitors — the value compared with the threshold:
 * - The table: `_totals` when the result has one (a query that summarizes by a time bin, so the
 *   value is the aggregate over the whole range, not one bucket's), otherwise the first table.
 * - The value column: the last column that is neither a group key nor `_time`. For
 *   `summarize count() by service` that is `count_`; for `… | extend ratio = errors * 100.0 / total`
 *   it is `ratio`. Put the value last.
 * - The groups: the table's group keys other than `_time`. With `notifyByGroup`, each distinct
 *   combination of group values is its own episode; without it, all rows form one.
 * - A group's value is its most extreme row: the largest for Above and AboveOrEqual, the smallest
 *   for Below and BelowOrEqual, the farthest from the threshold for AboveOrBelow. The group
 *   triggers when that value crosses (so: when any of its rows does). Null values are no values.
 * - No data: no rows, or only null values. Only `alertOnNoData` makes that trigger (as one
 *   episode without group values); otherwise nothing triggers.
 *
 * MatchEvent monitors — every row of the first table is a matched event.
 */
import { createHash } from 'node:crypto';
import { InputError } from '../../common/errors.js';
import { parseIsoTimestamp } from '../../common/time.js';
import type { MonitorOperator } from './validation.js';

/** The tabular query result (wire.md), as much of it as monitors read. */
export interface QueryTable {
  readonly name: string;
  /** `type` is the JSON type(s) of the column's values, joined: `integer`, `integer|float`, `string`. */
  readonly fields: readonly { readonly name: string; readonly type?: string }[];
  readonly groups?: readonly { readonly name: string }[];
  readonly columns: readonly (readonly unknown[])[];
}

export interface QueryResult {
  readonly tables: readonly QueryTable[];
}

/** A query result a threshold monitor cannot compare with its threshold: a 400 when the monitor is saved. */
export class MonitorResultError extends InputError {
  constructor(message: string) {
    super(message, { code: 'unusable_monitor_result' });
  }
}

export interface GroupValue {
  groupKeys: string[];
  groupValues: unknown[];
  /** Null when the group has rows but no values. */
  value: number | null;
}

export type ThresholdObservation =
  | { kind: 'values'; valueField: string; groups: GroupValue[] }
  | { kind: 'no-data' };

export interface ThresholdRule {
  operator: MonitorOperator;
  threshold: number;
  notifyByGroup: boolean;
}

const TIME_FIELD = '_time';
const NEVER_NUMBERS = new Set(['string', 'boolean', 'datetime', 'array']);
const TOTALS_TABLE = '_totals';

interface ValueColumn {
  table: QueryTable;
  groupFields: string[];
  index: number;
  name: string;
}

function valueColumn(result: QueryResult): ValueColumn | undefined {
  const table = result.tables.find((candidate) => candidate.name === TOTALS_TABLE) ?? result.tables[0];
  if (!table) return undefined;
  const groupFields = (table.groups ?? []).map((group) => group.name).filter((name) => name !== TIME_FIELD);
  const index = findLastIndex(table.fields, (field) => field.name !== TIME_FIELD && !groupFields.includes(field.name));
  const name = table.fields[index]?.name;
  if (name === undefined) {
    throw new MonitorResultError(
      `The query result has no value column (only ${describeFields(table)}). Expected a column to compare with the threshold, such as from summarize count().`,
    );
  }
  return { table, groupFields, index, name };
}

/**
 * Checks, when a threshold monitor is saved, that its query yields a value column of numbers
 * (from the result's field types, so that an empty result tells as much as a full one).
 */
export function assertComparable(result: QueryResult): void {
  const column = valueColumn(result);
  const type = column?.table.fields[column.index]?.type;
  if (column === undefined || type === undefined) return;
  // Only types that can never be compared are refused; dynamic values are checked row by row.
  if (type.split('|').every((one) => NEVER_NUMBERS.has(one))) {
    throw new MonitorResultError(
      `The value column ${column.name} of the query holds ${type} values. Expected numbers to compare with the threshold: make the value the last column, e.g. | summarize count() by service.`,
    );
  }
}

export function observeThreshold(result: QueryResult, rule: ThresholdRule): ThresholdObservation {
  const column = valueColumn(result);
  if (!column) return { kind: 'no-data' };
  const { table, groupFields, index: valueIndex, name: valueField } = column;
  const groupIndexes = rule.notifyByGroup ? groupFields.map((name) => table.fields.findIndex((field) => field.name === name)) : [];
  const groupKeys = rule.notifyByGroup ? groupFields : [];
  const rowCount = table.columns[valueIndex]?.length ?? 0;
  const groups = new Map<string, GroupValue>();
  for (let row = 0; row < rowCount; row++) {
    const groupValues = groupIndexes.map((index) => table.columns[index]?.[row] ?? null);
    const key = JSON.stringify(groupValues);
    const value = readNumber(table.columns[valueIndex]?.[row], valueField);
    const group = groups.get(key) ?? { groupKeys, groupValues, value: null };
    if (value !== null && (group.value === null || moreExtreme(value, group.value, rule))) group.value = value;
    groups.set(key, group);
  }
  const all = [...groups.values()];
  if (all.every((group) => group.value === null)) return { kind: 'no-data' };
  return { kind: 'values', valueField, groups: all };
}

export function crosses(value: number, rule: Pick<ThresholdRule, 'operator' | 'threshold'>): boolean {
  switch (rule.operator) {
    case 'Above':
      return value > rule.threshold;
    case 'AboveOrEqual':
      return value >= rule.threshold;
    case 'Below':
      return value < rule.threshold;
    case 'BelowOrEqual':
      return value <= rule.threshold;
    case 'AboveOrBelow':
      return value !== rule.threshold;
  }
}

function moreExtreme(candidate: number, current: number, rule: ThresholdRule): boolean {
  switch (rule.operator) {
    case 'Above':
    case 'AboveOrEqual':
      return candidate > current;
    case 'Below':
    case 'BelowOrEqual':
      return candidate < current;
    case 'AboveOrBelow':
      return Math.abs(candidate - rule.threshold) > Math.abs(current - rule.threshold);
  }
}

const PHRASES: Record<MonitorOperator, { crossing: string; not: string }> = {
  Above: { crossing: 'above', not: 'below or equal to' },
  AboveOrEqual: { crossing: 'above or equal to', not: 'below' },
  Below: { crossing: 'below', not: 'above or equal to' },
  BelowOrEqual: { crossing: 'below or equal to', not: 'above' },
  AboveOrBelow: { crossing: 'different from', not: 'equal to' },
};

/** The notification body of a threshold episode, in Axiom's words. */
export function describeValue(value: number | null, rule: Pick<ThresholdRule, 'operator' | 'threshold'>): string {
  if (value === null) return 'The query returned no data.';
  const phrase = crosses(value, rule) ? PHRASES[rule.operator].crossing : PHRASES[rule.operator].not;
  return `Current value of ${value} is ${phrase} the threshold value of ${rule.threshold}`;
}

export interface MatchedEvent {
  /** The event as a row of the result: field name → value. */
  event: Record<string, unknown>;
  /** Its `_time`, when it has one. */
  timeMs: number | undefined;
  /** Identifies the event across evaluations whose windows overlap. */
  hash: string;
}

/** Every row of the first table, oldest first (so that a backlog is notified in order). */
export function matchedEvents(result: QueryResult): MatchedEvent[] {
  const table = result.tables[0];
  if (!table) return [];
  const rowCount = table.columns[0]?.length ?? 0;
  const events: MatchedEvent[] = [];
  for (let row = 0; row < rowCount; row++) {
    const event: Record<string, unknown> = {};
    table.fields.forEach((field, index) => {
      event[field.name] = table.columns[index]?.[row] ?? null;
    });
    const time = event[TIME_FIELD];
    const timeMs = typeof time === 'string' ? parseIsoTimestamp(time) : undefined;
    const hash = createHash('sha256').update(JSON.stringify(Object.entries(event))).digest('base64url');
    events.push({ event, timeMs, hash });
  }
  return events.sort((a, b) => (a.timeMs ?? 0) - (b.timeMs ?? 0));
}

function readNumber(value: unknown, field: string): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  // 64-bit integers beyond 2^53 may arrive as strings.
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  const shown = JSON.stringify(value);
  throw new MonitorResultError(
    `Column ${field} holds ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown}. Expected numbers to compare with the threshold: make the value the last column.`,
  );
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) {
    if (predicate(items[index] as T)) return index;
  }
  return -1;
}

function describeFields(table: QueryTable): string {
  return table.fields.length === 0 ? 'no columns' : table.fields.map((field) => field.name).join(', ');
}
