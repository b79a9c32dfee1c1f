/**
 * When monitors run. Each monitor runs on a fixed grid, `anchor + k × interval`, and each run's
 * window ends at its grid time rather than at the moment its timer fired: late timers never make
 * the schedule drift. A monitor never runs twice at once: a tick that comes while the previous run
 * (scheduled or requested) is still going is skipped. After a restart, a tick missed while the
 * service was down runs at once (only the latest one: a monitor looks at the present, and
 * replaying a day of missed ticks would only repeat it). stop() cancels the timers, aborts the
 * runs in progress and waits for them.
 */
import { UnavailableError } from '../../common/errors.js';

export interface SchedulePlan {
  intervalMs: number;
  /** A time on the grid: the monitor's creation. */
  anchorMs: number;
  /** The grid time the last scheduled run ended its window at, if it ever ran. */
  lastEndMs: number | undefined;
  /** No tick before this time (disabledUntil). */
  pausedUntilMs: number | undefined;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SchedulerDeps {
  now: () => number;
  timers?: Timers;
  /** A scheduled run, whose window ends at `endMs`. */
  run: (monitorId: string, endMs: number, signal: AbortSignal) => Promise<void>;
  /** A tick skipped because the monitor's previous run had not finished. */
  skipped: (monitorId: string, endMs: number) => void;
}

export interface Scheduler {
  /** Plans (or re-plans) a monitor's ticks; undefined stops them (a paused or deleted monitor). */
  plan(monitorId: string, plan: SchedulePlan | undefined): void;
  /** Runs `work` for the monitor as soon as its current run (if any) finishes; ticks meanwhile are skipped. */
  runNow<T>(monitorId: string, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** When the monitor's next tick is due; undefined when none is planned. */
  nextTick(monitorId: string): number | undefined;
  stop(): Promise<void>;
}

/** setTimeout's longest delay; a longer wait is done in steps. */
const MAX_TIMER_MS = 2_147_483_647;

const NODE_TIMERS: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class SchedulerStoppedError extends UnavailableError {
  constructor() {
    super('The service is shutting down: monitors no longer run.', { code: 'scheduler_stopped' });
  }
}

interface Entry {
  plan: SchedulePlan;
  dueMs: number;
  timer: unknown;
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const timers = deps.timers ?? NODE_TIMERS;
  const entries = new Map<string, Entry>();
  const busy = new Map<string, Promise<unknown>>();
  const stopping = new AbortController();

  function arm(monitorId: string, entry: Entry): void {
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, entry.dueMs - deps.now()));
    entry.timer = timers.setTimeout(() => fire(monitorId), delay);
  }

  function fire(monitorId: string): void {
    const entry = entries.get(monitorId);
    if (!entry || stopping.signal.aborted) return;
    const nowMs = deps.now();
    if (nowMs < entry.dueMs) {
      arm(monitorId, entry);
      return;
    }
    // The latest grid time that has passed: one run however late the timer fired.
    const endMs = latestTick(entry.plan, nowMs);
    entry.dueMs = endMs + entry.plan.intervalMs;
    entry.plan = { ...entry.plan, lastEndMs: endMs };
    arm(monitorId, entry);
    if (busy.has(monitorId)) {
      deps.skipped(monitorId, endMs);
      return;
    }
    track(monitorId, deps.run(monitorId, endMs, stopping.signal));
  }

  function track<T>(monitorId: string, running: Promise<T>): Promise<T> {
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    busy.set(monitorId, settled);
    void settled.then(() => {
      if (busy.get(monitorId) === settled) busy.delete(monitorId);
    });
    return running;
  }

  return {
    plan(monitorId, plan) {
      const current = entries.get(monitorId);
      if (current) timers.clearTimeout(current.timer);
      entries.delete(monitorId);
      if (!plan || stopping.signal.aborted) return;
      const entry: Entry = { plan, dueMs: firstDue(plan, deps.now()), timer: undefined };
      entries.set(monitorId, entry);
      arm(monitorId, entry);
    },
    async runNow(monitorId, work) {
      for (;;) {
        if (stopping.signal.aborted) throw new SchedulerStoppedError();
        const previous = busy.get(monitorId);
        if (!previous) break;
        await previous;
      }
      return track(monitorId, work(stopping.signal));
    },
    nextTick: (monitorId) => entries.get(monitorId)?.dueMs,
    async stop() {
      stopping.abort();
      for (const entry of entries.values()) timers.clearTimeout(entry.timer);
      entries.clear();
      while (busy.size > 0) await Promise.all(busy.values());
    },
  };
}

/** The latest grid time at or before `nowMs` (the anchor itself when none is later). */
function latestTick(plan: SchedulePlan, nowMs: number): number {
  const steps = Math.max(0, Math.floor((nowMs - plan.anchorMs) / plan.intervalMs));
  return plan.anchorMs + steps * plan.intervalMs;
}

/**
 * The first tick to run: the latest grid time already passed if the monitor has not run for it
 * (a tick missed while the service was down), else the next grid time; never before the pause ends.
 */
export function firstDue(plan: SchedulePlan, nowMs: number): number {
  const lastEnd = plan.lastEndMs ?? plan.anchorMs;
  const pausedUntil = plan.pausedUntilMs ?? -Infinity;
  const latest = latestTick(plan, nowMs);
  if (latest > lastEnd && latest >= pausedUntil) return latest;
  const from = Math.max(nowMs, pausedUntil, lastEnd);
  const steps = Math.floor((from - plan.anchorMs) / plan.intervalMs) + 1;
  return plan.anchorMs + Math.max(1, steps) * plan.intervalMs;
}
