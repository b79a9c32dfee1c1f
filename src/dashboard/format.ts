/** How times read on the page: local time for people, ISO in machine attributes (durations: common/duration.ts). */

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
