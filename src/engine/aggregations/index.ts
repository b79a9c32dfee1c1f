import { ANALYSIS_AGGREGATIONS } from './analysis.js';
import { COLLECTION_AGGREGATIONS } from './collections.js';
import { COUNT_AGGREGATIONS } from './count.js';
import { STATISTICS_AGGREGATIONS } from './statistics.js';
import type { AggregationDef } from './types.js';

/** Every aggregation: the only index. A new aggregation is one entry in one of these lists. */
export const AGGREGATIONS: readonly AggregationDef[] = [...COUNT_AGGREGATIONS, ...STATISTICS_AGGREGATIONS, ...COLLECTION_AGGREGATIONS, ...ANALYSIS_AGGREGATIONS];

/** Each name an aggregation is called by: its own, and its `…if` form's. */
const BY_NAME: ReadonlyMap<string, { def: AggregationDef; conditional: boolean }> = (() => {
  const byName = new Map<string, { def: AggregationDef; conditional: boolean }>();
  const add = (name: string, def: AggregationDef, conditional: boolean): void => {
    // Two entries under one name would make one of them unreachable: refuse to start.
    if (byName.has(name)) throw new Error(`Two aggregations are named ${name}.`);
    byName.set(name, { def, conditional });
  };
  for (const def of AGGREGATIONS) {
    add(def.name, def, false);
    if (def.conditional) add(def.conditional.name, def, true);
  }
  return byName;
})();

/** The aggregation APL calls `name`, and whether that is its conditional form. */
export function aggregationNamed(name: string): { def: AggregationDef; conditional: boolean } | undefined {
  return BY_NAME.get(name);
}

export function isAggregateName(name: string): boolean {
  return BY_NAME.has(name);
}

/** Every name an aggregation can be called by: the candidates of "did you mean". */
export const AGGREGATE_NAMES: readonly string[] = [...BY_NAME.keys()];
