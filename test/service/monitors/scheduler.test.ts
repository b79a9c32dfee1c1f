import { describe, expect, it } from 'vitest';
import { createScheduler, firstDue, SchedulerStoppedError } from '../../../src/service/monitors/scheduler.js';
import { createFakeClock } from './fake-clock.js';

const MINUTE = 60_000;
const T0 = Date.parse('2024-06-01T12:00:00Z');

function setup(start = T0) {
  const clock = createFakeClock(start);
  const runs: Array<{ monitorId: string; endMs: number }> = [];
  const skipped: Array<{ monitorId: string; endMs: number }> = [];
  let release: (() => void) | undefined;
  let hold = false;
  const scheduler = createScheduler({
    now: clock.now,
    timers: clock.timers,
    run: async (monitorId, endMs, signal) => {
      runs.push({ monitorId, endMs });
      if (hold) {
        await new Promise<void>((resolve) => {
          release = resolve;
          signal.addEventListener('abort', () => resolve());
        });
      }
    },
    skipped: (monitorId, endMs) => skipped.push({ monitorId, endMs }),
  });
  return {
    clock,
    runs,
    skipped,
    scheduler,
    holdRuns: (value: boolean) => (hold = value),
    releaseRun: () => release?.(),
  };
}

describe('monitor scheduler', () => {
  it('runs on a fixed grid from the anchor, with windows ending at grid times', async () => {
    const { clock, runs, scheduler } = setup();
    scheduler.plan('m', { intervalMs: 5 * MINUTE, anchorMs: T0, lastEndMs: undefined, pausedUntilMs: undefined });
    await clock.advanceTo(T0 + 16 * MINUTE);
    expect(runs.map((run) => run.endMs)).toEqual([T0 + 5 * MINUTE, T0 + 10 * MINUTE, T0 + 15 * MINUTE]);
    await scheduler.stop();
  });

  it('does not drift when timers fire late', async () => {
    const { clock, runs, scheduler } = setup();
    scheduler.plan('m', { intervalMs: MINUTE, anchorMs: T0, lastEndMs: undefined, pausedUntilMs: undefined });
    // Each timer fires 700 ms late; the windows still end on the minute and the next tick stays on the grid.
    for (let minute = 1; minute <= 5; minute++) {
      clock.set(T0 + minute * MINUTE + 700);
      await clock.advanceTo(T0 + minute * MINUTE + 700);
    }
    expect(runs.map((run) => run.endMs - T0)).toEqual([1, 2, 3, 4, 5].map((minute) => minute * MINUTE));
    expect(scheduler.nextTick('m')).toBe(T0 + 6 * MINUTE);
    await scheduler.stop();
  });

  it('runs the latest tick once when the timer fires several intervals late', async () => {
    const { clock, runs, scheduler } = setup();
    scheduler.plan('m', { intervalMs: MINUTE, anchorMs: T0, lastEndMs: undefined, pausedUntilMs: undefined });
    clock.set(T0 + 4 * MINUTE + 10);
    await clock.advanceTo(T0 + 4 * MINUTE + 10);
    expect(runs.map((run) => run.endMs)).toEqual([T0 + 4 * MINUTE]);
    expect(scheduler.nextTick('m')).toBe(T0 + 5 * MINUTE);
    await scheduler.stop();
  });

  it('skips a tick while the previous run of the same monitor is still going', async () => {
    const { clock, runs, skipped, scheduler, holdRuns, releaseRun } = setup();
    holdRuns(true);
    scheduler.plan('m', { intervalMs: MINUTE, anchorMs: T0, lastEndMs: undefined, pausedUntilMs: undefined });
    await clock.advanceTo(T0 + 3 * MINUTE);
    expect(runs.map((run) => run.endMs)).toEqual([T0 + MINUTE]);
    expect(skipped.map((tick) => tick.endMs)).toEqual([T0 + 2 * MINUTE, T0 + 3 * MINUTE]);
    holdRuns(false);
    releaseRun();
    await new Promise((resolve) => setImmediate(resolve));
    await clock.advanceTo(T0 + 4 * MINUTE);
    expect(runs.map((run) => run.endMs)).toEqual([T0 + MINUTE, T0 + 4 * MINUTE]);
    await scheduler.stop();
  });

  it('makes a requested run wait for the scheduled one instead of overlapping it', async () => {
    const { clock, scheduler, holdRuns, releaseRun } = setup();
    holdRuns(true);
    scheduler.plan('m', { intervalMs: MINUTE, anchorMs: T0, lastEndMs: undefined, pausedUntilMs: undefined });
    await clock.advanceTo(T0 + MINUTE);
    const order: string[] = [];
    const requested = scheduler.runNow('m', async () => {
      order.push('requested');
      return 42;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    releaseRun();
    await expect(requested).resolves.toBe(42);
    expect(order).toEqual(['requested']);
    await scheduler.stop();
  });

  it('runs each monitor independently of the others', async () => {
    const { clock, runs, scheduler } = setup();
    scheduler.plan('a', { intervalMs: 2 * MINUTE, anchorMs: T0, lastEndMs: undefined, pausedUntilMs: undefined });
    scheduler.plan('b', { intervalMs: 3 * MINUTE, anchorMs: T0 + 30_000, lastEndMs: undefined, pausedUntilMs: undefined });
    await clock.advanceTo(T0 + 6 * MINUTE);
    expect(runs).toEqual([
      { monitorId: 'a', endMs: T0 + 2 * MINUTE },
      { monitorId: 'b', endMs: T0 + 3 * MINUTE + 30_000 },
      { monitorId: 'a', endMs: T0 + 4 * MINUTE },
      { monitorId: 'a', endMs: T0 + 6 * MINUTE },
    ]);
    await scheduler.stop();
  });

  it('stops planning a monitor that is paused or deleted', async () => {
    const { clock, runs, scheduler } = setup();
    scheduler.plan('m', { intervalMs: MINUTE, anchorMs: T0, lastEndMs: undefined, pausedUntilMs: undefined });
    await clock.advanceTo(T0 + MINUTE);
    scheduler.plan('m', undefined);
    await clock.advanceTo(T0 + 10 * MINUTE);
    expect(runs).toHaveLength(1);
    expect(scheduler.nextTick('m')).toBeUndefined();
    await scheduler.stop();
  });

  it('stops cleanly: aborts the run in progress, waits for it, and fires no more ticks', async () => {
    const { clock, runs, scheduler, holdRuns } = setup();
    holdRuns(true);
    scheduler.plan('m', { intervalMs: MINUTE, anchorMs: T0, lastEndMs: undefined, pausedUntilMs: undefined });
    await clock.advanceTo(T0 + MINUTE);
    await scheduler.stop();
    await clock.advanceTo(T0 + 10 * MINUTE);
    expect(runs).toHaveLength(1);
    await expect(scheduler.runNow('m', async () => 1)).rejects.toThrow(SchedulerStoppedError);
  });
});

describe('first tick after a (re)start', () => {
  const plan = { intervalMs: 5 * MINUTE, anchorMs: T0, lastEndMs: undefined, pausedUntilMs: undefined };

  it('is one interval after creation for a new monitor', () => {
    expect(firstDue(plan, T0 + 1000)).toBe(T0 + 5 * MINUTE);
  });

  it('is now, for the latest grid time, when ticks were missed while the service was down', () => {
    expect(firstDue({ ...plan, lastEndMs: T0 + 10 * MINUTE }, T0 + 27 * MINUTE)).toBe(T0 + 25 * MINUTE);
  });

  it('is the next grid time when the latest one already ran', () => {
    expect(firstDue({ ...plan, lastEndMs: T0 + 25 * MINUTE }, T0 + 27 * MINUTE)).toBe(T0 + 30 * MINUTE);
  });

  it('is the first grid time after a pause ends', () => {
    expect(firstDue({ ...plan, lastEndMs: T0 + 10 * MINUTE, pausedUntilMs: T0 + 41 * MINUTE }, T0 + 27 * MINUTE)).toBe(T0 + 45 * MINUTE);
  });
});
