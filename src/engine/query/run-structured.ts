import { NotFoundError } from '../../common/errors.js';
import { buildStructuredResult, shapeBuckets, shapeMatches, STRUCTURED_CAP_ADVICE, type StructuredResult } from '../results/structured.js';
import { fieldsMeta } from '../results/tabular.js';
import { planStructuredQuery } from '../structured/plan.js';
import { STRUCTURED_LIMITS, type StructuredLimits, type StructuredQuery } from '../structured/request.js';
import type { EventReader } from '../store/types.js';
import { QUERY_LIMITS, planStatus, runPlan, type QueryLimits } from './execute.js';
import { nowNs, resolveWindow } from './time-range.js';

export interface StructuredDeps {
  readonly reader: EventReader;
  readonly limits?: Partial<Pick<QueryLimits, 'timeoutMs' | 'maxRows' | 'maxResultBytes'> & StructuredLimits>;
  /** Epoch nanoseconds; `now()` and the default end. */
  readonly now?: () => bigint;
  /** Aborted when the caller goes away: the running statement is interrupted. */
  readonly signal?: AbortSignal;
}

export interface StructuredOutcome {
  readonly result: StructuredResult;
  readonly elapsedMs: number;
}

/**
 * Runs one structured query (already read by parseStructuredQuery) on `dataset`: plan it against
 * the dataset's fields (every name and type error is found here, before any row is read), then run
 * the plan exactly as an APL query's (execute.ts) and shape the rows. Throws StructuredQueryError
 * (400, naming the member), NotFoundError (404) for an unknown dataset, InputError (400) for a bad
 * time range or a failing expression, and the store's limit errors.
 */
export async function runStructured(dataset: string, query: StructuredQuery, deps: StructuredDeps): Promise<StructuredOutcome> {
  const started = process.hrtime.bigint();
  const limits = { ...QUERY_LIMITS, ...STRUCTURED_LIMITS, ...deps.limits };
  const window = resolveWindow(query.startTime, query.endTime, (deps.now ?? nowNs)());
  const schema = deps.reader.schema(dataset);
  if (!schema) throw new NotFoundError(`Dataset ${JSON.stringify(dataset)} not found.`);
  const { plan, shape, messages } = planStructuredQuery(query, schema, window, limits);
  // A page reads one match more than it shows, to tell whether another page follows.
  const budget = shape.kind === 'matches' ? { ...limits, maxRows: Math.max(limits.maxRows, shape.pageSize + 1) } : limits;
  const ran = await runPlan(plan, { reader: deps.reader, limits: budget, capAdvice: STRUCTURED_CAP_ADVICE, ...(deps.signal ? { signal: deps.signal } : {}) });
  const body = shape.kind === 'matches' ? shapeMatches(shape, ran.rows, query.includeCursor) : shapeBuckets(shape, ran.rows, window);
  const status = planStatus(ran, { window, started }, body.numGroups, messages);
  return { result: buildStructuredResult(body, status, fieldsMeta(schema), query.limitIsDefault ? query.limit : undefined), elapsedMs: status.elapsedTime / 1000 };
}
