import type { Timers } from '../../../src/service/monitors/scheduler.js';

interface PendingTimer {
  at: number;
  callback: () => void;
}

/** A clock and timers that move only when the test says so. */
export function createFakeClock(startMs: number): { now: () => number; timers: Timers; advanceTo(ms: number): Promise<void>; set(ms: number): void } {
  let now = startMs;
  const pending = new Set<PendingTimer>();
  return {
    now: () => now,
    timers: {
      setTimeout(callback, ms) {
        const timer = { at: now + ms, callback };
        pending.add(timer);
        return timer;
      },
      clearTimeout(handle) {
        pending.delete(handle as PendingTimer);
      },
    },
    /** Fires every timer due up to `ms`, in time order, letting promises settle after each. */
    async advanceTo(ms) {
      for (;;) {
        const next = [...pending].filter((timer) => timer.at <= ms).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        pending.delete(next);
        now = Math.max(now, next.at);
        next.callback();
        await new Promise((resolve) => setImmediate(resolve));
      }
      now = ms;
    },
    /** Moves the clock without firing timers: a timer that fires late. */
    set(ms) {
      now = ms;
    },
  };
}
