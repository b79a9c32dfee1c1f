import { formatTime } from '../../common/time.js';
import type { QueryLimits } from '../../engine/query/execute.js';
import { runApl } from '../../engine/query/run-apl.js';
import type { TabularResult } from '../../engine/results/tabular.js';
import type { EventReader } from '../../engine/store/types.js';
import type { MonitorQueryEngine } from './evaluator.js';

const NS_PER_MS = 1_000_000n;

/**
 * Monitors query through the engine's public orchestrator, runApl, as the APL endpoint does: the
 * same parse, check, limits and result shapes, and no second way into the store.
 */
export function createMonitorQueryEngine(deps: { reader: EventReader; clock: () => number; limits?: Partial<QueryLimits> }): MonitorQueryEngine {
  async function tabular(apl: string, window: { startMs: number; endMs: number }, signal?: AbortSignal): Promise<{ result: TabularResult; dataset: string }> {
    const outcome = await runApl(
      { apl, format: 'tabular', startTime: formatTime(window.startMs), endTime: formatTime(window.endMs) },
      {
        reader: deps.reader,
        // now() in a monitor's query is the end of its window, so that a run gives the same answer whenever it executes.
        now: () => BigInt(window.endMs) * NS_PER_MS,
        ...(signal ? { signal } : {}),
        ...(deps.limits ? { limits: deps.limits } : {}),
      },
    );
    if (!('tables' in outcome.result)) throw new Error('runApl answered the legacy format to a tabular request.');
    return { result: outcome.result, dataset: outcome.dataset };
  }

  return {
    async probe(apl) {
      // A window of one millisecond: the check runs in full and almost no row is read.
      const endMs = deps.clock();
      return (await tabular(apl, { startMs: endMs - 1, endMs })).result;
    },
    async run(apl, window, signal) {
      const { result, dataset } = await tabular(apl, window, signal);
      return { result, datasets: [dataset] };
    },
  };
}
