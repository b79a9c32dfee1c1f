/**
 * Time ranges of the page: the "last N" presets, relative to now at every refresh, and custom
 * absolute ranges. Saved dashboards keep them as the hosted service does: `qr-now-1h` … `qr-now`
 * for a preset, RFC 3339 times for a custom range.
 */

export type PresetId = '15m' | '1h' | '24h' | '7d';

export type TimeRange = { kind: 'preset'; preset: PresetId } | { kind: 'custom'; startMs: number; endMs: number };

export interface Preset {
  id: PresetId;
  label: string;
  ms: number;
}

export const PRESETS: readonly Preset[] = [
  { id: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
];

export const DEFAULT_RANGE: TimeRange = { kind: 'preset', preset: '1h' };

const QUICK_RANGE_PREFIX = 'qr-now-';
const QUICK_RANGE_NOW = 'qr-now';

export function findPreset(id: string): Preset | undefined {
  return PRESETS.find((preset) => preset.id === id);
}

/** The absolute window a range covers at `nowMs`. */
export function resolveRange(range: TimeRange, nowMs: number): { startMs: number; endMs: number } {
  if (range.kind === 'custom') return { startMs: range.startMs, endMs: range.endMs };
  const preset = findPreset(range.preset) ?? PRESETS[1];
  return { startMs: nowMs - (preset?.ms ?? 3_600_000), endMs: nowMs };
}

export function rangeToWindow(range: TimeRange): { timeWindowStart: string; timeWindowEnd: string } {
  if (range.kind === 'preset') return { timeWindowStart: `${QUICK_RANGE_PREFIX}${range.preset}`, timeWindowEnd: QUICK_RANGE_NOW };
  return { timeWindowStart: new Date(range.startMs).toISOString(), timeWindowEnd: new Date(range.endMs).toISOString() };
}

/** Reads a saved window back; undefined when it is neither a preset nor two RFC 3339 times. */
export function rangeFromWindow(start: unknown, end: unknown): TimeRange | undefined {
  if (typeof start !== 'string' || typeof end !== 'string') return undefined;
  if (start.startsWith(QUICK_RANGE_PREFIX) && end === QUICK_RANGE_NOW) {
    const preset = findPreset(start.slice(QUICK_RANGE_PREFIX.length));
    return preset ? { kind: 'preset', preset: preset.id } : undefined;
  }
  return customRange(start, end);
}

/** A custom range from two RFC 3339 times, or undefined when either is not one or end ≤ start. */
export function customRange(start: string, end: string): TimeRange | undefined {
  const startMs = parseRfc3339(start);
  const endMs = parseRfc3339(end);
  if (startMs === undefined || endMs === undefined || endMs <= startMs) return undefined;
  return { kind: 'custom', startMs, endMs };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** Epoch milliseconds of an RFC 3339 time with any offset and up to nanoseconds. */
export function parseRfc3339(text: string): number | undefined {
  if (!RFC3339.test(text)) return undefined;
  // Date.parse's own grammar stops at milliseconds; trim the rest of the fraction.
  const ms = Date.parse(text.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(ms) ? undefined : ms;
}

/** `datetime-local` input value (local time, minutes) for epoch milliseconds, and back. */
export function toLocalInput(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function fromLocalInput(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return undefined;
  // Without an offset, the Date constructor reads a date-time as local time, as the input shows it.
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}
