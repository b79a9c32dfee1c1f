import { InputError } from '../../common/errors.js';
import { formatDatetime } from '../apl/literals.js';
import type { CheckedQuery } from '../check/query.js';
import { buildLegacy, type LegacyResult } from '../results/legacy.js';
import type { PlanColumn, PlanNode } from '../plan/types.js';
import { APL_CAP_ADVICE, decodeRows, type CapAdvice, type DecodedRows, type ResultMessage } from '../results/rows.js';
import { buildTabular, type QueryStatus, type TabularResult } from '../results/tabular.js';
import type { DatasetSchema } from '../schema.js';
import { compilePlan, type CompiledQuery, type Counter, type Statement } from '../sql/compile.js';
import { singleScanOf } from '../plan/build.js';
import type { EventReader, QueryBudget, QueryRows, RunSql } from '../store/types.js';

export type ResultFormat = 'tabular' | 'legacy';
export type QueryResult = TabularResult | LegacyResult;

/** Limits of one query; every one is a number a test or an operator can change. */
export interface QueryLimits {
  /** Longest APL text, in characters. */
  readonly maxQueryLength: number;
  /** Wall time of the whole read; the running DuckDB statement is interrupted past it. */
  readonly timeoutMs: number;
  /** Rows a result may hold; past them the result is cut and says so. */
  readonly maxRows: number;
  /** About how many bytes of JSON a result may hold; past them the result is cut and says so. */
  readonly maxResultBytes: number;
  /** Rows a query without summarize or limit returns (apl.md). */
  readonly defaultLimit: number;
}

export const QUERY_LIMITS: QueryLimits = {
  maxQueryLength: 65_536,
  timeoutMs: 30_000,
  maxRows: 50_000,
  maxResultBytes: 32 * 1024 * 1024,
  defaultLimit: 1000,
};

export interface ExecuteOptions {
  readonly reader: EventReader;
  /** The datasets the query reads (none for `print`). */
  readonly schemas: readonly DatasetSchema[];
  /** The query window in nanoseconds, as the plan's scan has it. */
  readonly window: { readonly start: bigint; readonly end: bigint };
  readonly format: ResultFormat;
  readonly limits: QueryLimits;
  readonly signal?: AbortSignal;
  /** `process.hrtime.bigint()` when the request arrived: `elapsedTime` counts from there. */
  readonly started: bigint;
}

/**
 * Runs a checked plan — from APL (run-apl.ts) or any other front end that builds the same plan —
 * and shapes its result: compile to SQL, read within the budget, decode, count, shape.
 */
export async function executePlan(query: CheckedQuery, options: ExecuteOptions): Promise<QueryResult> {
  const ran = await runPlan(query.plan, options);
  const status = planStatus(ran, options, query.shape.kind === 'summary' ? countGroups(query, ran.rows.rowCount, ran.rows.values) : 0, query.messages);
  const context = { query, columns: ran.columns, rows: ran.rows, status, schemas: options.schemas, range: options.window };
  return options.format === 'legacy' ? buildLegacy(context) : buildTabular(context);
}

/** A plan that ran: its decoded rows and the counters read in the same snapshot. */
export interface RanPlan {
  /** The result's columns in SELECT order, hidden ones included. */
  readonly columns: readonly PlanColumn[];
  readonly rows: DecodedRows;
  readonly examined: number;
  readonly matched: number;
}

/** The half of a query every front end shares: compile the plan, read it within the budget, decode under the caps. */
export async function runPlan(
  plan: PlanNode,
  options: {
    readonly reader: EventReader;
    readonly limits: Pick<QueryLimits, 'timeoutMs' | 'maxRows' | 'maxResultBytes'>;
    readonly signal?: AbortSignal;
    /** How a cut result tells the caller to ask for less; APL's words unless the front end has its own. */
    readonly capAdvice?: CapAdvice;
  },
): Promise<RanPlan> {
  const { limits } = options;
  const budget = { timeoutMs: limits.timeoutMs, maxRows: limits.maxRows, ...(options.signal ? { signal: options.signal } : {}) };
  const read = await readCounted(plan, options.reader, budget, limits.maxRows + 1);
  const rows = decodeRows(plan, read.compiled.columns, read.rows, { maxResultBytes: limits.maxResultBytes, advice: options.capAdvice ?? APL_CAP_ADVICE });
  return { columns: read.compiled.columns, rows, examined: read.examined, matched: read.matched };
}

/**
 * Reads the plan and its counters. When the store knows how many rows the window holds (it takes
 * in a whole table, or none of it), the statement does not count them; if a commit then came
 * between that answer and the end of the read, the rows read may be of another version, and the
 * plan is read again the ordinary way, counters and all in one snapshot.
 */
async function readCounted(plan: PlanNode, reader: EventReader, budget: QueryBudget, rowCap: number): Promise<ReadOutcome & { readonly compiled: CompiledQuery }> {
  const scan = singleScanOf(plan);
  const known = scan && reader.windowRows(scan.table, scan.time.start, scan.time.end);
  if (known) {
    const compiled = compilePlan(plan, { examinedKnown: true, rowCap });
    const read = await readCompiled(reader, budget, compiled, known.rows);
    if (reader.unchangedSince(known.version)) return { ...read, compiled };
  }
  const compiled = compilePlan(plan, { rowCap });
  return { ...(await readCompiled(reader, budget, compiled)), compiled };
}

/** One statement is one snapshot by itself; a counter's second statement needs a read transaction to share it. */
function readCompiled(reader: EventReader, budget: QueryBudget, compiled: CompiledQuery, examinedKnown?: number): Promise<ReadOutcome> {
  return hasFallback(compiled)
    ? reader.read(budget, (run) => execute(run, compiled, examinedKnown))
    : execute((sql, params) => reader.readOne(budget, sql, params), compiled, examinedKnown);
}

/**
 * `status` of a result: counters count real rows; `elapsedTime` in microseconds since `started`;
 * `messages` the checker's warnings, then what running the plan reported (caps, limits).
 */
export function planStatus(
  ran: RanPlan,
  options: { readonly window: ExecuteOptions['window']; readonly started: bigint },
  numGroups: number,
  warnings: readonly ResultMessage[],
): QueryStatus {
  return {
    elapsedTime: Math.round(Number(process.hrtime.bigint() - options.started) / 1000),
    rowsExamined: ran.examined,
    rowsMatched: ran.matched,
    numGroups,
    blocksExamined: 0,
    isPartial: ran.rows.partial,
    cacheStatus: 1,
    // The local store has no blocks: the block times are the query window's bounds.
    minBlockTime: formatDatetime(options.window.start),
    maxBlockTime: formatDatetime(options.window.end),
    // Always present, empty when there is nothing to say: the clients read the member.
    messages: [...warnings, ...ran.rows.messages],
  };
}

interface ReadOutcome {
  readonly rows: QueryRows;
  readonly examined: number;
  readonly matched: number;
}

function hasFallback(compiled: CompiledQuery): boolean {
  return compiled.examined?.fallback !== undefined || compiled.matched?.fallback !== undefined;
}

/**
 * The result and its counters, in one snapshot: `rowsExamined` and `rowsMatched` count real rows.
 * `examinedKnown` is the window's count when the statement does not compute it.
 */
async function execute(run: RunSql, compiled: CompiledQuery, examinedKnown = 0): Promise<ReadOutcome> {
  const rows = await runStatement(run, compiled);
  const counter = async (counted: Counter): Promise<number> => {
    const index = rows.columnNames.indexOf(counted.column);
    if (index !== -1 && rows.rowCount > 0) return Number(rows.columns[index]?.[0] ?? 0);
    // No fallback: the compiler proved that an empty result comes from an empty window.
    if (!counted.fallback) return 0;
    const alone = await runStatement(run, counted.fallback);
    return Number(alone.columns[0]?.[0] ?? 0);
  };
  const examined = compiled.examined ? await counter(compiled.examined) : examinedKnown;
  const matched = compiled.matched ? await counter(compiled.matched) : examined;
  return { rows, examined, matched };
}

/** DuckDB rejects bad values at run time (an overflow, an invalid regular expression): the query's fault, a 400. */
async function runStatement(run: RunSql, statement: Statement): Promise<QueryRows> {
  try {
    return await run(statement.sql, statement.params);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    const runtime = /^(Out of Range|Conversion|Invalid Input) Error: ([^\n]*)/.exec(message);
    if (runtime) throw new InputError(`The query failed while it ran: ${runtime[2]}`, { code: 'apl_runtime', cause: error });
    throw error;
  }
}

/** Distinct groups of a summary: rows, or for a time series the rows of its totals. */
function countGroups(query: CheckedQuery, rowCount: number, values: ReadonlyMap<number, readonly unknown[]>): number {
  const series = query.shape.timeSeries;
  if (!series) return rowCount;
  return (values.get(series.totalsFlag) ?? []).filter((flag) => flag === true).length;
}
