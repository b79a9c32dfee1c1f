/**
 * How an impact's figures read, the same in the CLI's table, the action's job summary and the
 * dashboard: a rate as a percentage with its counts, a percentile with the values it rests on,
 * a bucketed aggregation with its whole-window value.
 */
import type { SideFigures, SignalResult } from './impact.js';
import { formatP } from './rules.js';

export function formatSide(signal: Pick<SignalResult, 'rule'>, side: SideFigures): string {
  const value = side.value === null ? 'no value' : signal.rule === 'rate' ? percent(side.value) : number(side.value);
  switch (signal.rule) {
    case 'rate':
      return `${value} (${count(side.matching ?? 0)} of ${count(side.events ?? 0)})`;
    case 'percentile':
      return `${value} (${count(side.events ?? 0)} values)`;
    case 'buckets':
      return `${value} (${side.buckets ?? 0} buckets)`;
  }
}

/** "+100%", "−12.5%", "—" when there is no relative change (the value before was 0). */
export function formatChange(change: number | undefined): string {
  if (change === undefined) return '—';
  const text = `${Number(Math.abs(change * 100).toPrecision(3)).toLocaleString('en-US', { maximumFractionDigits: 2 })}%`;
  return change > 0 ? `+${text}` : change < 0 ? `−${text}` : '0%';
}

/** The test and its p-value, when one ran: "z-test, p = 5.6e-6 (α 0.005)". */
export function formatTest(signal: Pick<SignalResult, 'test' | 'pValue' | 'alpha'>): string {
  if (signal.test === undefined || signal.pValue === undefined) return '—';
  return `${signal.test}, p = ${formatP(signal.pValue)} (α ${formatP(signal.alpha)})`;
}

/** The signal's name, with the field a default signal was built from. */
export function signalLabel(signal: Pick<SignalResult, 'name' | 'field'>): string {
  return signal.field === undefined ? signal.name : `${signal.name} (${signal.field})`;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(share !== 0 && share < 0.001 ? 4 : 2)}%`;
}

function number(value: number): string {
  return Number.isInteger(value) ? count(value) : Number(value.toPrecision(4)).toLocaleString('en-US', { maximumFractionDigits: 4 });
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
