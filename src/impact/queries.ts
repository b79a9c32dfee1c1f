/**
 * The APL an impact runs, and how it reads the answers. One query per window gives every
 * signal's figures as columns of one summarize (named `s<i>_<figure>`); when a signal is judged
 * by the bucket rule, the same query groups by `bin(_time, window / 10)` and the whole-window
 * figures come from its `_totals` table. The percentile rule then counts, in both windows, the
 * values above the before window's percentile.
 */
import { quoteAplName } from '../common/apl-name.js';
import { BUCKETS } from './rules.js';
import type { Signal } from './signals.js';

/** The parts of a tabular APL result (wire.md) an impact reads; the client's and the dashboard's results both have them. */
export interface TabularLike {
  tables: ReadonlyArray<{ name: string; fields: ReadonlyArray<{ name: string }>; columns?: ReadonlyArray<ReadonlyArray<unknown>> }>;
}

export interface Window {
  startMs: number;
  endMs: number;
}

/** The summarize of one window: every signal's figures, by bucket when a signal needs buckets. */
export function windowQuery(dataset: string, signals: readonly Signal[], windowMs: number, thresholds: ReadonlyMap<number, number> = new Map()): string {
  const columns = signals.flatMap((signal, index) => figuresOf(signal, index, thresholds.get(index)));
  const byBucket = signals.some((signal) => signal.rule === 'buckets') ? ` by bin(_time, ${bucketMs(windowMs)}ms)` : '';
  return `${quoteAplName(dataset)} | summarize ${columns.join(', ')}${byBucket}`;
}

/** Counts the values above each percentile signal's threshold (the before window's percentile). */
export function aboveQuery(dataset: string, signals: readonly Signal[], thresholds: ReadonlyMap<number, number>): string {
  const columns = [...thresholds].map(([index, threshold]) => aboveColumn(signals[index] as Signal, index, threshold));
  return `${quoteAplName(dataset)} | summarize ${columns.join(', ')}`;
}

export function bucketMs(windowMs: number): number {
  return Math.max(1, Math.floor(windowMs / BUCKETS));
}

function figuresOf(signal: Signal, index: number, threshold: number | undefined): string[] {
  switch (signal.rule) {
    case 'rate':
      return [`s${index}_matching = ${signal.matching}`, `s${index}_events = ${signal.events}`];
    case 'percentile': {
      const columns = [`s${index}_value = percentile(${signal.expression}, ${signal.percentile})`, `s${index}_events = countif(isnotnull(${signal.expression}))`];
      return threshold === undefined ? columns : [...columns, aboveColumn(signal, index, threshold)];
    }
    case 'buckets':
      return [`s${index}_value = ${signal.aggregation}`];
  }
}

function aboveColumn(signal: Signal, index: number, threshold: number): string {
  if (signal.rule !== 'percentile') throw new Error(`Signal ${index} (${signal.name}) has no percentile to count values above.`);
  return `s${index}_above = countif(${signal.expression} > ${aplNumber(threshold)})`;
}

/** A number as an APL literal: JavaScript's shortest exact form, which APL reads back to the same value. */
function aplNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`A threshold must be a finite number, not ${value}.`);
  return String(value);
}

/** One window's answer, read by column name. */
export interface WindowAnswer {
  /** A whole-window figure of signal `index`: a number, or null when it has none. */
  total(index: number, figure: string): number | null;
  /** The values of signal `index` in the whole buckets of the window. */
  buckets(index: number, window: Window, windowMs: number): number[];
}

export function readWindow(result: TabularLike): WindowAnswer {
  const totals = result.tables.find((table) => table.name === '_totals') ?? result.tables[0];
  const series = result.tables.find((table) => table.name !== '_totals');
  return {
    total(index, figure) {
      const column = columnOf(totals, `s${index}_${figure}`);
      return column === undefined ? null : toNumber(column[0]);
    },
    buckets(index, window, windowMs) {
      const times = columnOf(series, '_time') ?? [];
      const values = columnOf(series, `s${index}_value`) ?? [];
      const step = bucketMs(windowMs);
      const whole: number[] = [];
      times.forEach((time, row) => {
        const startMs = typeof time === 'string' ? Date.parse(time) : Number.NaN;
        const value = toNumber(values[row]);
        // Buckets cut by the window's edges hold part of their time only: they are left out.
        if (startMs >= window.startMs && startMs + step <= window.endMs && value !== null) whole.push(value);
      });
      return whole;
    },
  };
}

function columnOf(table: TabularLike['tables'][number] | undefined, name: string): ReadonlyArray<unknown> | undefined {
  if (!table) return undefined;
  const index = table.fields.findIndex((field) => field.name === name);
  return index < 0 ? undefined : (table.columns?.[index] ?? []);
}

function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}
