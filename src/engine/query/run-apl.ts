import { InputError, NotFoundError } from '../../common/errors.js';
import { parse } from '../apl/parser.js';
import { checkQuery } from '../check/query.js';
import type { DatasetSchema } from '../schema.js';
import type { EventReader } from '../store/types.js';
import { QUERY_LIMITS, executePlan, type QueryLimits, type QueryResult, type ResultFormat } from './execute.js';
import { nowNs, resolveWindow } from './time-range.js';

export interface AplRequest {
  readonly apl: string;
  /** RFC 3339 or relative (`now-1h`); absent: from the epoch. */
  readonly startTime?: string;
  /** RFC 3339 or relative; absent: now. */
  readonly endTime?: string;
  readonly format: ResultFormat;
}

export interface AplDeps {
  readonly reader: EventReader;
  readonly limits?: Partial<QueryLimits>;
  /** Epoch nanoseconds; `now()` and the default end. */
  readonly now?: () => bigint;
  /** Aborted when the caller goes away: the running statement is interrupted. */
  readonly signal?: AbortSignal;
}

/** What a finished query yields besides its result: the monitors and the metrics read it. */
export interface AplOutcome {
  readonly result: QueryResult;
  readonly dataset: string;
  readonly elapsedMs: number;
}

/**
 * Runs one APL query end to end: parse, check against the dataset's fields (every query error is
 * found here, before any row is read), plan, compile to SQL, read within the budget, and shape the
 * result. Throws AplError (400, positioned), NotFoundError (404) for an unknown dataset,
 * InputError (400) for a bad time range or a failing expression, and the store's limit errors.
 */
export async function runApl(request: AplRequest, deps: AplDeps): Promise<AplOutcome> {
  const started = process.hrtime.bigint();
  const limits = { ...QUERY_LIMITS, ...deps.limits };
  if (typeof request.apl !== 'string' || request.apl.trim() === '') {
    throw new InputError('The query is empty. Expected APL text in "apl", such as "[\'my-dataset\'] | take 10".');
  }
  if (request.apl.length > limits.maxQueryLength) {
    throw new InputError(`The query is ${request.apl.length} characters long, more than the limit of ${limits.maxQueryLength}.`);
  }
  const { start, end, now } = resolveWindow(request.startTime, request.endTime, (deps.now ?? nowNs)());

  const ast = parse(request.apl);
  const lookup = (dataset: string): DatasetSchema => {
    const schema = deps.reader.schema(dataset);
    if (!schema) throw new NotFoundError(`Dataset ${JSON.stringify(dataset)} not found.`);
    return schema;
  };
  const datasetNames = (): readonly string[] => deps.reader.datasets?.() ?? [];
  const checked = checkQuery(ast, lookup, { start, end, now, defaultLimit: limits.defaultLimit, datasetNames });
  const dataset = checked.dataset;
  const result = await executePlan(checked, {
    reader: deps.reader,
    schemas: checked.schemas,
    window: { start, end },
    format: request.format,
    limits,
    started,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  return { result, dataset, elapsedMs: Number(process.hrtime.bigint() - started) / 1e6 };
}
