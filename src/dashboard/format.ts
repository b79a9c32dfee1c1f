/** How times and durations read on the page: local time for people, ISO in machine attributes. */

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export function formatTime(ms: number): string {
  return dateTime.format(new Date(ms));
}

const UNITS: readonly (readonly [string, number])[] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/** "2 h 5 min", "45 s", "3 d 4 h": the largest unit and the next one. */
export function formatDuration(ms: number): string {
  for (let index = 0; index < UNITS.length; index++) {
    const [unit, size] = UNITS[index] ?? ['s', 1000];
    if (ms < size) continue;
    const whole = Math.floor(ms / size);
    const next = UNITS[index + 1];
    const rest = next ? Math.floor((ms - whole * size) / next[1]) : 0;
    return next && rest > 0 ? `${whole} ${unit} ${rest} ${next[0]}` : `${whole} ${unit}`;
  }
  return `${Math.max(0, Math.round(ms))} ms`;
}
