import type * as Ast from '../apl/ast.js';
import { nodesOf } from '../plan/build.js';
import type { Expr, PlanColumn, PlanNode } from '../plan/types.js';
import { passThroughOf, uniqueName, visible } from './columns.js';
import { call, fail, isConstant, literal } from './context.js';
import type { TableChecker } from './tables.js';

/** The most bins one series may have: each group's arrays hold one value per bin. */
export const MAX_SERIES_BINS = 100_000;

/**
 * `make-series aggs [default = v] on t [from a] [to b] step s [by keys]`: the input is
 * aggregated per group and per bin of `t` (bins start at `from`, or are aligned to the epoch
 * without it), then each group becomes one row of arrays over every bin, a bin without rows
 * taking the default (0 unless given). The bins' start times are the array `time`.
 */
export function makeSeries(checker: TableChecker, input: PlanNode, operator: Ast.MakeSeriesOperator): PlanNode {
  const { builder } = checker;
  if (operator.aggregates.length === 0) fail('invalid_argument', 'make-series needs at least one aggregation, such as count()', operator);
  const on = checker.bind(operator.on, input);
  if (on.type !== 'datetime') fail('type_mismatch', `make-series needs a datetime after 'on', got ${on.type}`, operator.on);
  const step = constantSpan(checker, input, operator.step, 'timespan', 'the step, such as 5m');
  if (step <= 0n) fail('invalid_argument', 'the step of make-series must be a positive timespan, such as 5m', operator.step);
  const from = operator.from ? constantSpan(checker, input, operator.from, 'datetime', 'a datetime, such as ago(1h)') : undefined;
  const to = operator.to ? constantSpan(checker, input, operator.to, 'datetime', 'a datetime, such as now()') : undefined;
  if ((from === undefined) !== (to === undefined)) fail('invalid_argument', "make-series needs both 'from' and 'to', or neither (then the data's first and last times)", operator.from ?? operator.to ?? operator);
  let range: { from: bigint; to: bigint } | undefined;
  if (from !== undefined && to !== undefined) {
    if (to <= from) fail('invalid_argument', "make-series needs 'to' after 'from'", operator.to ?? operator);
    const bins = (to - from + step - 1n) / step;
    if (bins > BigInt(MAX_SERIES_BINS)) fail('limit_exceeded', `make-series would make ${bins} bins, more than ${MAX_SERIES_BINS}; use a larger step or a shorter range`, operator.step);
    range = { from, to };
  }

  // The bin of each row, as a column the summarize groups by.
  const binName = uniqueName('make_series_bin', visible(input));
  const binExpr: Expr = range
    ? call('add', [call('bin', [call('sub', [on, literal('datetime', range.from)], 'timespan'), literal('timespan', step)], 'timespan'), literal('datetime', range.from)], 'datetime')
    : call('bin', [on, literal('timespan', step)], 'datetime');
  const binColumn = builder.column({ name: binName, type: 'datetime' });
  let node: PlanNode = builder.project(input, [...input.columns.map(passThroughOf), { column: binColumn, expr: binExpr }]);
  const inRange = range
    ? call('and', [call('gte', [on, literal('datetime', range.from)], 'bool'), call('lt', [on, literal('datetime', range.to)], 'bool')], 'bool')
    : call('not', [call('eq', [on, literal('datetime', null)], 'bool', true)], 'bool');
  node = builder.filter(node, inRange);
  const binReference: Ast.Assignment = { kind: 'Assignment', name: undefined, value: { kind: 'Name', name: binName, bracketed: true, loc: operator.loc }, loc: operator.loc };
  const summarized = checker.summarizeFor(node, { kind: 'Summarize', aggregates: operator.aggregates, by: [...operator.by, binReference], loc: operator.loc });

  const aggregate = [...nodesOf(summarized)].find((candidate) => candidate.kind === 'aggregate');
  if (aggregate?.kind !== 'aggregate') throw new Error('A summarize makes an aggregate.');
  const keyIds = new Set(aggregate.keys.map((key) => key.column.id));
  const columns = visible(summarized);
  const bin = columns.find((column) => keyIds.has(column.id) && column.name === binName);
  if (!bin) throw new Error('The bin is a key of the summarize.');
  const defaultValue = operator.defaultValue ? checker.bind(operator.defaultValue, input) : literal('long', 0n);
  if (!isConstant(defaultValue) || defaultValue.type === 'dynamic') fail('invalid_argument', 'the default of make-series must be a constant scalar, such as 0', operator.defaultValue ?? operator);
  const taken: PlanColumn[] = [];
  const copy = (column: PlanColumn, type: PlanColumn['type'], reportedType: string): PlanColumn => {
    const made = builder.column({ name: uniqueName(column.name, taken), type, reportedType });
    taken.push(made);
    return made;
  };
  const keys = columns.filter((column) => keyIds.has(column.id) && column !== bin).map((column) => ({ input: column.id, column: copy(column, column.type, column.reportedType) }));
  const values = columns
    .filter((column) => !keyIds.has(column.id))
    .map((column) => ({ input: column.id, column: { ...copy(column, 'dynamic', 'array'), ...(column.agg ? { agg: column.agg } : {}) }, defaultValue }));
  const time = builder.column({ name: uniqueName('time', taken), type: 'dynamic', reportedType: 'array' });
  return builder.series({ input: summarized, keys, binColumn: bin.id, values, time, step, ...(range ? { range } : {}) });
}

/** A constant datetime or timespan: literals and their sums and differences (`now() - 24h`). */
function constantSpan(checker: TableChecker, input: PlanNode, node: Ast.Expression, type: 'datetime' | 'timespan', expected: string): bigint {
  const expr = checker.bind(node, input);
  const value = expr.type === type ? fold(expr) : undefined;
  if (value === undefined) fail('invalid_argument', `make-series needs a constant ${type} here: ${expected}`, node);
  return value;
}

function fold(expr: Expr): bigint | undefined {
  if (expr.kind === 'literal') return typeof expr.value === 'bigint' ? expr.value : undefined;
  if (expr.kind !== 'call') return undefined;
  const [a, b] = expr.args.map(fold);
  if (a === undefined) return undefined;
  if (expr.fn === 'neg') return -a;
  if (b === undefined) return undefined;
  if (expr.fn === 'add') return a + b;
  if (expr.fn === 'sub') return a - b;
  return undefined;
}
