/** What the progress line shows. */
export interface IngestCounts {
  sent: number;
  failed: number;
  bytesRead: number;
}

export interface Progress {
  update(counts: IngestCounts): void;
  /** Clears the line, so the summary starts on a clean one. */
  done(): void;
}

const REDRAW_MS = 100;
const BAR_WIDTH = 24;

/**
 * A progress line on a terminal, redrawn in place at most ten times a second: a bar when the
 * input size is known, events sent, events per second and failures. Nothing when not a terminal.
 */
export function createProgress(terminal: { write(text: string): void; columns: number } | undefined, totalBytes: number | undefined, now = () => performance.now()): Progress {
  if (!terminal) return { update: () => undefined, done: () => undefined };
  const started = now();
  let lastDrawn = -Infinity;
  let drawn = false;
  return {
    update: (counts) => {
      const time = now();
      if (time - lastDrawn < REDRAW_MS) return;
      lastDrawn = time;
      const seconds = Math.max((time - started) / 1000, 0.001);
      const parts: string[] = [];
      if (totalBytes) {
        const share = Math.min(1, counts.bytesRead / totalBytes);
        const filled = Math.round(share * BAR_WIDTH);
        parts.push(`[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`);
      }
      parts.push(`${counts.sent.toLocaleString('en-US')} events sent`, `${Math.round(counts.sent / seconds).toLocaleString('en-US')} events/s`, `${counts.failed.toLocaleString('en-US')} failed`);
      const line = parts.join('  ');
      terminal.write(`\r\u001b[2K${line.slice(0, Math.max(20, terminal.columns - 1))}`);
      drawn = true;
    },
    done: () => {
      if (drawn) terminal.write('\r\u001b[2K');
    },
  };
}
