import { aggregationNamed } from '../aggregations/index.js';
import type { AggregationDef } from '../aggregations/types.js';
import { nodesOf, scansOf, singleScanOf } from '../plan/build.js';
import type { AggregateCall, AggregateNode, Expr, JoinNode, LimitNode, MvExpandNode, OrderKey, PlanColumn, PlanNode, ScanNode, SeriesNode, ValuesNode } from '../plan/types.js';
import type { SqlParam } from '../store/types.js';
import { ExpressionCompiler, SQL_TYPES, columnName } from './expressions.js';
import { formatDatetimeSql } from './time.js';
import { Params } from './params.js';
import { quoteIdentifier, sqlInteger } from './quote.js';

/**
 * The most values one make-series may build, all its series together (groups × bins; the bins of
 * one series are capped by the checker). Found at run time once the groups are known, before any
 * array is built: one row's arrays are one piece of work, which the time budget cannot interrupt.
 */
export const MAX_SERIES_VALUES = 10_000_000;

export interface Statement {
  readonly sql: string;
  readonly params: readonly SqlParam[];
}

/**
 * A status counter the main statement computes as an extra column of every row, so that no
 * second statement is needed. A result without rows has nowhere to carry it: then `fallback`
 * computes it alone, and without a fallback it is 0 (see compilePlan).
 */
export interface Counter {
  readonly column: string;
  readonly fallback?: Statement;
}

export interface CompiledQuery extends Statement {
  /** The result's columns in SELECT order (hidden ones included: the shaper needs flags and row ids). */
  readonly columns: readonly PlanColumn[];
  /**
   * `rowsExamined`: the rows in the time window. Absent when compiled with `examinedKnown` and
   * nothing counts them for free: then the caller has the number.
   */
  readonly examined?: Counter;
  /**
   * `rowsMatched`: the rows out of the filters before the first limit or aggregation. Absent when
   * there is no such filter (then it is `rowsExamined`). An aggregation totals its input's rows
   * itself; a raw query counts them with a second pass over the filter.
   */
  readonly matched?: Counter;
}

export interface CompileOptions {
  /**
   * The caller knows how many rows the window holds (the store's TableExtents): the statement
   * does not count them, which is a scalar subquery beside the query (0.4–1 ms of DuckDB's
   * pipelines even when statistics answer it).
   */
  readonly examinedKnown?: boolean;
  /**
   * The most rows the statement may return. The store reads a result whole once DuckDB has
   * made it (read.ts: one hand-off between threads instead of one per chunk), so the statement
   * itself stops at the reader's cap. Without it, no cap.
   */
  readonly rowCap?: number;
}

/** Counter columns; single letters never clash with the generated `c<n>` names. */
const EXAMINED = 'x';
const MATCHED = 'm';

/**
 * Compiles a plan to one DuckDB statement: one nested SELECT per node (DuckDB's optimiser pushes
 * filters and projections through them), ORDER BY only where order matters (a limit and a final
 * result that can have more than one row), every value a bound parameter, and the status
 * counters as extra columns.
 *
 * The counters need a second statement only when the result can come back empty while rows were
 * examined: with a filter (or `take 0`) somewhere, and no keyless aggregation to guarantee a row.
 * Without one, an empty result means an empty window, and both counters are 0. Every other query
 * is exactly one statement, which DuckDB reads from one snapshot.
 */
export function compilePlan(root: PlanNode, options: CompileOptions = {}): CompiledQuery {
  const scan = singleScanOf(root);
  if (!scan) return compileTree(root, options);
  const params = new Params();
  const compiler = new PlanCompiler(params, [scan]);
  const cut = rowStageCut(root);
  const hasFilter = cut.stage !== undefined && [...chain(cut.stage)].some((node) => node.kind === 'filter');
  // An aggregation counts its input rows for free: the matched rows, and without a filter the examined ones too.
  compiler.carryMatchedFrom = cut.at?.kind === 'aggregate' ? cut.at : undefined;
  // A limit at the root takes its rows with the final SELECT's own ORDER BY … LIMIT, and a result
  // of one row at most is not sorted: each sort costs DuckDB a fixed ~0.2 ms, even for one row.
  const cap = options.rowCap !== undefined && !atMostOneRow(root) ? ` LIMIT ${sqlInteger(options.rowCap)}` : '';
  const { input: body, tail } =
    root.kind === 'limit'
      ? compiler.limitParts(root, allColumns(root), options.rowCap)
      : { input: compiler.block(root), tail: `${atMostOneRow(root) ? '' : orderClause(root.order)}${cap}` };
  const fallbacks = !neverEmpty(root) && [...chain(root)].some(dropsRows);
  const select = root.columns.map((column) => columnName(column.id));

  const time = quoteIdentifier(scan.time.physical);
  const countInWindow = (p: Params): string =>
    `SELECT count(*) FROM ${quoteIdentifier(scan.table)} WHERE ${time} >= ${p.bind(scan.time.start, 'BIGINT')} AND ${time} < ${p.bind(scan.time.end, 'BIGINT')}`;
  const countStage = (p: Params): string => `SELECT count(*) FROM (${new PlanCompiler(p, [scan]).block(cut.stage as PlanNode, new Set())}) AS s`;
  const counter = (column: string, count: (p: Params) => string): Counter => {
    if (!fallbacks) return { column };
    const fallback = new Params();
    return { column, fallback: { sql: count(fallback), params: fallback.values } };
  };

  let examined: Counter | undefined;
  let matched: Counter | undefined;
  let subqueries = false;
  const countWindow = (): void => {
    if (options.examinedKnown) return;
    select.push(`(${countInWindow(params)}) AS ${quoteIdentifier(EXAMINED)}`);
    examined = counter(EXAMINED, countInWindow);
    subqueries = true;
  };
  if (compiler.carryMatchedFrom) {
    select.push(quoteIdentifier(MATCHED));
    if (hasFilter) {
      countWindow();
      matched = counter(MATCHED, countStage);
    } else {
      // Without a filter the aggregation's own count is the window's, known or not.
      examined = counter(MATCHED, countInWindow);
    }
  } else {
    countWindow();
    if (hasFilter) {
      select.push(`(${countStage(params)}) AS ${quoteIdentifier(MATCHED)}`);
      matched = counter(MATCHED, countStage);
      subqueries = true;
    }
  }
  // A counter subquery beside ORDER BY … LIMIT puts its cross product between the scan and the
  // Top-N, where DuckDB then sorts whole rows of the window instead of reading only the sort keys
  // first (`take 1` over 1,000,000 rows: 121 ms against 9 ms). So the limit runs alone inside,
  // and its rows, n at most, are sorted again outside, where the counters join them.
  const sql =
    root.kind === 'limit' && subqueries
      ? `SELECT ${select.join(', ')} FROM (SELECT * FROM (${body}) AS q${tail}) AS q${atMostOneRow(root) ? '' : orderClause(root.input.order)}`
      : `SELECT ${select.join(', ')} FROM (${body}) AS q${tail}`;
  return { sql, params: params.values, columns: root.columns, ...(examined ? { examined } : {}), ...(matched ? { matched } : {}) };
}

/**
 * A plan over several tables (union, join) or none (print, datatable): one statement whose
 * `rowsExamined` is the rows in the window of every scan (each dataset read counted once per
 * read), and `rowsMatched` the same — the filters of a tree have no one stage to count.
 */
function compileTree(root: PlanNode, options: CompileOptions): CompiledQuery {
  const params = new Params();
  const scans = scansOf(root);
  const compiler = new PlanCompiler(params, scans);
  const cap = options.rowCap !== undefined && !atMostOneRow(root) ? ` LIMIT ${sqlInteger(options.rowCap)}` : '';
  const { input: body, tail } =
    root.kind === 'limit'
      ? compiler.limitParts(root, allColumns(root), options.rowCap)
      : { input: compiler.block(root), tail: `${atMostOneRow(root) ? '' : orderClause(root.order)}${cap}` };
  const select = root.columns.map((column) => columnName(column.id));
  if (scans.length === 0) return { sql: `SELECT ${select.join(', ')} FROM (${body}) AS q${tail}`, params: params.values, columns: root.columns };
  const countWindows = (p: Params): string =>
    `SELECT ${scans
      .map((scan) => {
        const time = quoteIdentifier(scan.time.physical);
        return `(SELECT count(*) FROM ${quoteIdentifier(scan.table)} WHERE ${time} >= ${p.bind(scan.time.start, 'BIGINT')} AND ${time} < ${p.bind(scan.time.end, 'BIGINT')})`;
      })
      .join(' + ')}`;
  select.push(`(${countWindows(params)}) AS ${quoteIdentifier(EXAMINED)}`);
  const fallback = new Params();
  const examined: Counter = neverEmpty(root) ? { column: EXAMINED } : { column: EXAMINED, fallback: { sql: countWindows(fallback), params: fallback.values } };
  // As in compilePlan: the limit runs alone inside, its rows sorted again outside where the counter joins them.
  const sql =
    root.kind === 'limit'
      ? `SELECT ${select.join(', ')} FROM (SELECT * FROM (${body}) AS q${tail}) AS q${atMostOneRow(root) ? '' : orderClause(root.input.order)}`
      : `SELECT ${select.join(', ')} FROM (${body}) AS q${tail}`;
  return { sql, params: params.values, columns: root.columns, examined };
}

/** The chain of a single-scan plan, root first. */
function chain(node: PlanNode): Generator<PlanNode> {
  return nodesOf(node);
}

/** Whether the node can turn rows into none: a filter, or `take 0`. Every other node keeps at least one row of a non-empty input. */
function dropsRows(node: PlanNode): boolean {
  return node.kind === 'filter' || (node.kind === 'limit' && node.count === 0);
}

/** Whether the node always yields a row, even from an empty window: a keyless aggregation and what keeps its row. */
function neverEmpty(node: PlanNode): boolean {
  switch (node.kind) {
    case 'aggregate':
      return node.keys.length === 0 || neverEmpty(node.input);
    case 'project':
    case 'sort':
      return neverEmpty(node.input);
    case 'limit':
      return node.count > 0 && neverEmpty(node.input);
    case 'values':
      return node.rows.length > 0;
    case 'union':
      return node.inputs.some((input) => neverEmpty(input.node));
    case 'filter':
    case 'scan':
    case 'join':
    case 'mvexpand':
    case 'series':
      return false;
  }
}

/** Whether the node yields one row at most, so that its order needs no sort. */
function atMostOneRow(node: PlanNode): boolean {
  switch (node.kind) {
    case 'aggregate':
      return node.keys.length === 0;
    case 'limit':
      return (!node.implicit && node.count <= 1) || atMostOneRow(node.input);
    case 'project':
    case 'sort':
    case 'filter':
      return atMostOneRow(node.input);
    case 'values':
      return node.rows.length <= 1;
    case 'series':
      return node.keys.length === 0;
    case 'scan':
    case 'union':
    case 'join':
    case 'mvexpand':
      return false;
  }
}

/** The first aggregate or limit above the scan, and its input: the rows that "matched". */
function rowStageCut(root: PlanNode): { at?: PlanNode; stage?: PlanNode } {
  const nodes = [...chain(root)].reverse();
  const at = nodes.find((node): node is AggregateNode | LimitNode => node.kind === 'aggregate' || node.kind === 'limit');
  if (!at) return { stage: nodes[nodes.length - 1] };
  return { at, stage: at.input };
}

function allColumns(node: PlanNode): Set<number> {
  return new Set([...node.columns.map((column) => column.id), ...node.order.map((key) => key.column)]);
}

function union(a: ReadonlySet<number>, b: ReadonlySet<number>): Set<number> {
  return new Set([...a, ...b]);
}

/** The columns expressions read. */
function referencedBy(exprs: readonly Expr[]): Set<number> {
  const ids = new Set<number>();
  const visit = (e: Expr): void => {
    if (e.kind === 'column') ids.add(e.column);
    else if (e.kind === 'call') e.args.forEach(visit);
  };
  exprs.forEach(visit);
  return ids;
}

function orderBy(keys: readonly OrderKey[]): string {
  return keys.map((key) => `${columnName(key.column)} ${key.desc ? 'DESC' : 'ASC'} NULLS ${key.nullsFirst ? 'FIRST' : 'LAST'}`).join(', ');
}

/** ` ORDER BY …`, or nothing for no keys. */
function orderClause(keys: readonly OrderKey[]): string {
  return keys.length > 0 ? ` ORDER BY ${orderBy(keys)}` : '';
}

class PlanCompiler {
  private readonly expressions: ExpressionCompiler;
  carryMatchedFrom: PlanNode | undefined;
  private carrying = false;
  private windows = 0;

  /** Compiles predicates inside a scan's own SELECT, where columns are the table's. */
  private readonly scanExpressions = new Map<ScanNode, ExpressionCompiler>();

  constructor(
    private readonly params: Params,
    scans: readonly ScanNode[],
  ) {
    // Times in a window that starts at or after the epoch are never negative: bins take the short form.
    const nonNegative = new Set(scans.filter((scan) => scan.time.start >= 0n).map((scan) => scan.time.column));
    this.expressions = new ExpressionCompiler(params, nonNegative);
    for (const scan of scans) {
      const physical = new Map(scan.fields.map((field) => [field.column.id, quoteIdentifier(field.physical)]));
      this.scanExpressions.set(scan, new ExpressionCompiler(params, nonNegative, (id) => physical.get(id) ?? columnName(id)));
    }
  }

  /**
   * The SELECT of `node`, with only the columns in `needed` (and what computing them needs):
   * statements stay small, so planning them stays cheap, whatever the dataset's width.
   */
  block(node: PlanNode, needed: ReadonlySet<number> = allColumns(node)): string {
    switch (node.kind) {
      case 'scan':
        return this.scan(node, needed, []);
      case 'filter': {
        // Filters right above the scan join its WHERE: one SELECT less for DuckDB to plan.
        const predicates = [node.predicate];
        let below = node.input;
        while (below.kind === 'filter') {
          predicates.unshift(below.predicate);
          below = below.input;
        }
        if (below.kind === 'scan') return this.scan(below, needed, predicates);
        return `SELECT * FROM (${this.block(node.input, union(needed, referencedBy([node.predicate])))}) AS q WHERE ${this.expressions.compile(node.predicate, 'predicate')}`;
      }
      case 'project': {
        const kept = node.computed.filter((item) => needed.has(item.column.id));
        const items = kept.length > 0 ? kept : node.computed.slice(0, 1);
        const input = this.block(node.input, referencedBy(items.map((item) => item.expr)));
        const columns = items.map((item) => `${this.expressions.compile(item.expr)} AS ${columnName(item.column.id)}`);
        if (this.carrying) columns.push(quoteIdentifier(MATCHED));
        return `SELECT ${columns.join(', ')} FROM (${input}) AS q`;
      }
      case 'aggregate':
        return this.aggregate(node);
      case 'sort':
        // Order is materialised by the limit or the final SELECT that needs it; they ask for its columns.
        return this.block(node.input, needed);
      case 'limit': {
        const { input, tail } = this.limitParts(node, needed);
        return `SELECT * FROM (${input}) AS q${tail}`;
      }
      case 'values':
        return this.values(node);
      case 'union':
        return node.inputs
          .map((input) => {
            const columns = input.columns.map((id, index) => `${columnName(id)} AS ${columnName((node.columns[index] as PlanColumn).id)}`);
            return `SELECT ${columns.join(', ')} FROM (${this.block(input.node, new Set(input.columns))}) AS q`;
          })
          .join(' UNION ALL ');
      case 'join':
        return this.join(node);
      case 'mvexpand':
        return this.mvExpand(node, needed);
      case 'series':
        return this.series(node);
    }
  }

  private scanCompiler(scan: ScanNode): ExpressionCompiler {
    const compiler = this.scanExpressions.get(scan);
    if (!compiler) throw new Error(`The scan of ${scan.dataset} was not given to the compiler.`);
    return compiler;
  }

  /** Rows written in the query, in their order (the hidden row number orders them). */
  private values(node: ValuesNode): string {
    if (node.rows.length === 0) {
      return `SELECT ${node.columns.map((column) => `CAST(NULL AS ${SQL_TYPES[column.type]}) AS ${columnName(column.id)}`).join(', ')} WHERE false`;
    }
    return node.rows
      .map((row) => `SELECT ${row.map((expr, index) => `${this.expressions.compile(expr)} AS ${columnName((node.columns[index] as PlanColumn).id)}`).join(', ')}`)
      .join(' UNION ALL ');
  }

  private join(node: JoinNode): string {
    const sideColumns = (side: 'left' | 'right'): Set<number> =>
      new Set([...node.outputs.filter((item) => item.side === side).map((item) => item.source), ...node.on.map((key) => key[side])]);
    const left = this.block(node.left, sideColumns('left'));
    let right = this.block(node.right, sideColumns('right'));
    const on = (l: string, r: string): string => node.on.map((key) => `${l}.${columnName(key.left)} = ${r}.${columnName(key.right)}`).join(' AND ');
    const select = node.outputs.map((item) => `${item.side === 'left' ? 'l' : 'r'}.${columnName(item.source)} AS ${columnName(item.column.id)}`).join(', ');
    switch (node.joinKind) {
      case 'innerunique': {
        // The first matching right row (in the right side's order) for each left row.
        const keys = node.on.map((key) => columnName(key.right)).join(', ');
        const order = orderClause(node.right.order);
        right = `SELECT * FROM (${right}) AS q QUALIFY row_number() OVER (PARTITION BY ${keys}${order}) = 1`;
        return `SELECT ${select} FROM (${left}) AS l INNER JOIN (${right}) AS r ON ${on('l', 'r')}`;
      }
      case 'inner':
      case 'leftouter':
      case 'rightouter':
      case 'fullouter': {
        const sql = { inner: 'INNER', leftouter: 'LEFT', rightouter: 'RIGHT', fullouter: 'FULL' }[node.joinKind];
        return `SELECT ${select} FROM (${left}) AS l ${sql} JOIN (${right}) AS r ON ${on('l', 'r')}`;
      }
      case 'leftsemi':
      case 'leftanti':
        return `SELECT ${select} FROM (${left}) AS l ${node.joinKind === 'leftsemi' ? 'SEMI' : 'ANTI'} JOIN (${right}) AS r ON ${on('l', 'r')}`;
      case 'rightsemi':
      case 'rightanti':
        return `SELECT ${select} FROM (${right}) AS r ${node.joinKind === 'rightsemi' ? 'SEMI' : 'ANTI'} JOIN (${left}) AS l ON ${on('l', 'r')}`;
    }
  }

  /**
   * One row per element of the longest expanded value, beside its input row. Each expanded
   * value becomes a list of JSON texts once per row — a JSON array's elements (parsed once, by
   * one cast), a bag's properties, a scalar (or null) as itself — and `unnest`s in one SELECT
   * take the lists in parallel, a shorter one giving null; an empty array gives no row. The
   * item index is computed only where something reads it (it costs about as much again).
   */
  private mvExpand(node: MvExpandNode, needed: ReadonlySet<number>): string {
    const outputs = node.outputs.filter((item) => needed.has(item.column.id) || item.expand);
    const input = this.block(node.input, new Set(outputs.map((item) => item.source)));
    const expanded = [...new Map(node.outputs.filter((item) => item.expand).map((item) => [`${item.source}:${item.expand}`, item])).values()];
    const listName = (item: { source: number; expand?: 'bag' | 'array' }): string =>
      quoteIdentifier(`l${expanded.findIndex((candidate) => candidate.source === item.source && candidate.expand === item.expand)}`);
    const elements = (x: string, bag: 'bag' | 'array'): string => {
      const path = `concat('$."', replace(replace(k, '\\', '\\\\'), '"', '\\"'), '"')`;
      const property = bag === 'bag' ? `json_object(k, json_extract(${x}, ${path}))` : `json_array(k, json_extract(${x}, ${path}))`;
      // The array cast first: it is the common case, and it is null for anything but an array.
      const other =
        `CASE WHEN NOT json_valid(${x}) THEN [CAST(to_json(${x}) AS VARCHAR)] ` +
        `WHEN json_type(${x}) = 'OBJECT' THEN list_transform(json_keys(${x}), k -> CAST(${property} AS VARCHAR)) ELSE [${x}] END`;
      const list = `CASE WHEN ${x} IS NULL THEN [CAST(NULL AS VARCHAR)] ELSE coalesce(CAST(TRY_CAST(${x} AS JSON[]) AS VARCHAR[]), ${other}) END`;
      return node.limit !== undefined ? `list_slice(${list}, 1, ${sqlInteger(node.limit)})` : list;
    };
    const lists = expanded.map((item) => `${elements(`q.${columnName(item.source)}`, item.expand ?? 'array')} AS ${listName(item)}`);
    const columns = outputs.map((item) => (item.expand ? `unnest(${listName(item)}) AS ${columnName(item.column.id)}` : `${columnName(item.source)} AS ${columnName(item.column.id)}`));
    if (needed.has(node.itemIndex.id)) {
      const lengths = expanded.map((item) => `len(${listName(item)})`);
      columns.push(`unnest(range(0, ${lengths.length === 1 ? (lengths[0] as string) : `greatest(${lengths.join(', ')})`})) AS ${columnName(node.itemIndex.id)}`);
    }
    if (this.carrying) columns.push(quoteIdentifier(MATCHED));
    return `SELECT ${columns.join(', ')} FROM (SELECT q.*, ${lists.join(', ')} FROM (${input}) AS q) AS q`;
  }

  /**
   * make-series: each group's bins and values as lists ordered by bin, then one array element per
   * bin of the range (the data's first to last bin without one), a missing bin the default.
   */
  private series(node: SeriesNode): string {
    const needed = new Set([...node.keys.map((key) => key.input), node.binColumn, ...node.values.map((value) => value.input)]);
    const input = this.block(node.input, needed);
    const bin = columnName(node.binColumn);
    const lo = quoteIdentifier('s_lo');
    const n = quoteIdentifier('s_n');
    const step = sqlInteger(node.step);
    const bounds = node.range
      ? `${this.params.bind(node.range.from, 'BIGINT')} AS ${lo}, ${sqlInteger((node.range.to - node.range.from + node.step - 1n) / node.step)} AS ${n}`
      : `min(${bin}) OVER () AS ${lo}, (max(${bin}) OVER () - min(${bin}) OVER ()) // ${step} + 1 AS ${n}`;
    const keys = node.keys.map((key) => columnName(key.input));
    // Only the bins of the range: a row outside it has no place in the arrays.
    const list = (sql: string): string => `list(${sql} ORDER BY ${bin}) FILTER (WHERE ${bin} >= ${lo} AND ${bin} < ${lo} + CAST(${n} AS BIGINT) * ${step})`;
    const element = (value: SeriesNode['values'][number]): string => {
      const type = node.input.columns.find((column) => column.id === value.input)?.type;
      const sql = columnName(value.input);
      return type === 'dynamic' ? `CAST(${sql} AS JSON)` : type === 'datetime' ? formatDatetimeSql(sql) : sql;
    };
    const lists = [
      `${list(bin)} AS ${quoteIdentifier('s_bins')}`,
      ...node.values.map((value, index) => `${list(element(value))} AS ${quoteIdentifier(`s_v${index}`)}`),
    ];
    // The matched-rows counter an aggregation below carries is one value on every row.
    const carried = this.carrying ? [`any_value(${quoteIdentifier(MATCHED)}) AS ${quoteIdentifier(MATCHED)}`] : [];
    const grouped = `SELECT ${[...keys, ...lists, ...carried, lo, n].join(', ')} FROM (SELECT *, ${bounds} FROM (${input}) AS q) AS q GROUP BY ${[...keys, lo, n].join(', ')}`;
    const at = `${lo} + i * ${step}`;
    // Where bins lack data, each bin that has data starts a run that lasts until the next one (the
    // last until the end of the range): its value, then the default. Built run by run, the array costs the bins of the
    // range plus those with data; looking each bin of the range up in the list of those with data
    // cost their product, and one expression's work is not interruptible by the time budget.
    const bins = quoteIdentifier('s_bins');
    const slot = (binSql: string): string => `((${binSql}) - ${lo}) // ${step}`;
    const arrays = node.values.map((value, index) => {
      const fallback = this.expressions.compile(value.defaultValue);
      const values = quoteIdentifier(`s_v${index}`);
      const runEnd = `CASE WHEN j < len(${bins}) THEN ${slot(`${bins}[j + 1]`)} ELSE ${n} END`;
      const runs = `flatten(list_transform(${bins}, (b, j) -> list_resize([coalesce(${values}[j], ${fallback})], ${runEnd} - ${slot('b')}, ${fallback})))`;
      const leading = `list_resize([${fallback}], coalesce(${slot(`${bins}[1]`)}, ${n}), ${fallback})`;
      // Every bin with data (dense data, the usual case): the values are the array as they are.
      const dense = `list_transform(${values}, v -> coalesce(v, ${fallback}))`;
      return `CAST(to_json(CASE WHEN len(${bins}) = ${n} THEN ${dense} ELSE list_concat(${leading}, coalesce(${runs}, [])) END) AS VARCHAR)`;
    });
    const cells = quoteIdentifier('s_cells');
    const guard = (sql: string): string =>
      `CASE WHEN ${cells} > ${sqlInteger(MAX_SERIES_VALUES)} THEN error('make-series would build ' || ${cells} || ' values (series × bins), more than the ${MAX_SERIES_VALUES.toLocaleString('en-US')} one query may build: use a larger step, a shorter range or fewer groups') ELSE ${sql} END`;
    const columns = [
      ...node.keys.map((key) => `${columnName(key.input)} AS ${columnName(key.column.id)}`),
      ...arrays.map((sql, index) => `${guard(sql)} AS ${columnName((node.values[index] as SeriesNode['values'][number]).column.id)}`),
      guard(`CAST(to_json(list_transform(range(0, ${n}), i -> ${formatDatetimeSql(`(${at})`)})) AS VARCHAR)`) + ` AS ${columnName(node.time.id)}`,
      ...(this.carrying ? [quoteIdentifier(MATCHED)] : []),
    ];
    return `SELECT ${columns.join(', ')} FROM (SELECT *, count(*) OVER () * ${n} AS ${cells} FROM (${grouped}) AS g) AS s`;
  }

  /** A limit's input, and the ` ORDER BY … LIMIT n` that takes its first rows (no more than `cap`). */
  limitParts(node: LimitNode, needed: ReadonlySet<number>, cap = Number.POSITIVE_INFINITY): { input: string; tail: string } {
    const input = this.block(node.input, union(needed, new Set(node.input.order.map((key) => key.column))));
    // A default limit reads one row more, to tell whether rows were left out.
    const count = Math.min(node.implicit ? node.count + 1 : node.count, cap);
    return { input, tail: `${orderClause(node.input.order)} LIMIT ${sqlInteger(count)}` };
  }

  private scan(node: ScanNode, needed: ReadonlySet<number>, predicates: readonly Expr[]): string {
    const fields = node.fields.filter((field) => needed.has(field.column.id));
    // count(*) over a scan needs no column; SQL needs one, and `_time` is read anyway.
    const chosen = fields.length > 0 ? fields : node.fields.filter((field) => field.column.id === node.time.column);
    const columns = chosen.map((field) => `${quoteIdentifier(field.physical)} AS ${columnName(field.column.id)}`);
    const time = quoteIdentifier(node.time.physical);
    const conditions = [
      `${time} >= ${this.params.bind(node.time.start, 'BIGINT')}`,
      `${time} < ${this.params.bind(node.time.end, 'BIGINT')}`,
      ...predicates.map((predicate) => this.scanCompiler(node).compile(predicate, 'predicate')),
    ];
    return `SELECT ${columns.join(', ')} FROM ${quoteIdentifier(node.table)} WHERE ${conditions.join(' AND ')}`;
  }

  private aggregate(node: AggregateNode): string {
    const inputs = referencedBy(node.aggregates.flatMap((item) => [...item.call.args, ...(item.call.filter ? [item.call.filter] : [])]));
    for (const key of node.keys) inputs.add(key.input);
    // Only collections and arg_max/arg_min order by ingest; reading the row id costs a column.
    const ordered = node.aggregates.some((item) => aggregationDef(item.call.fn).ordered === true);
    if (node.inputRowId !== undefined && ordered) inputs.add(node.inputRowId);
    let input = this.block(node.input, inputs);
    const wasCarrying = this.carrying;
    const keyInputs = node.keys.map((key) => columnName(key.input));
    const timeInput = node.totals ? columnName(node.totals.withoutKey) : undefined;
    const totalsKeys = keyInputs.filter((key) => key !== timeInput);

    // make_set keeps each value's first occurrence: number the occurrences per group and value.
    const windowColumns: string[] = [];
    const firstSeen = new Map<AggregateCall, { fine: string; totals?: string }>();
    for (const item of node.aggregates) {
      if (aggregationDef(item.call.fn).firstSeen !== true) continue;
      const valueExpr = item.call.args[0];
      if (!valueExpr) throw new Error(`${item.call.fn} needs a value.`);
      const value = this.expressions.compile(valueExpr);
      const filter = item.call.filter ? [this.expressions.compile(item.call.filter)] : [];
      const rank = (keys: readonly string[]): string => {
        const name = quoteIdentifier(`w${++this.windows}`);
        const order = node.inputRowId !== undefined ? ` ORDER BY ${columnName(node.inputRowId)}` : '';
        windowColumns.push(`row_number() OVER (PARTITION BY ${[...keys, value, ...filter].join(', ')}${order}) AS ${name}`);
        return name;
      };
      firstSeen.set(item.call, { fine: rank(keyInputs), ...(node.totals ? { totals: rank(totalsKeys) } : {}) });
    }
    if (windowColumns.length > 0) input = `SELECT *, ${windowColumns.join(', ')} FROM (${input}) AS q`;

    const columns = node.keys.map((key) => `${columnName(key.input)} AS ${columnName(key.column.id)}`);
    for (const item of node.aggregates) {
      const sql = this.aggregateCall(item.call, node, firstSeen.get(item.call));
      columns.push(`${sql} AS ${columnName(item.column.id)}`);
    }
    if (node.totals && timeInput) columns.push(`(GROUPING(${timeInput}) = 1) AS ${columnName(node.totals.flag.id)}`);
    if (this.carryMatchedFrom === node) {
      const count = node.totals && timeInput ? `CASE WHEN GROUPING(${timeInput}) = 0 THEN count(*) ELSE 0 END` : 'count(*)';
      columns.push(node.keys.length === 0 ? `count(*) AS ${quoteIdentifier(MATCHED)}` : `CAST(sum(${count}) OVER () AS BIGINT) AS ${quoteIdentifier(MATCHED)}`);
      this.carrying = true;
    } else if (wasCarrying) {
      columns.push(`any_value(${quoteIdentifier(MATCHED)}) AS ${quoteIdentifier(MATCHED)}`);
    }
    let groupBy = '';
    if (node.totals) groupBy = ` GROUP BY GROUPING SETS ((${keyInputs.join(', ')}), (${totalsKeys.join(', ')}))`;
    else if (keyInputs.length > 0) groupBy = ` GROUP BY ${keyInputs.join(', ')}`;
    return `SELECT ${columns.join(', ')} FROM (${input}) AS q${groupBy}`;
  }

  private aggregateCall(call: AggregateCall, node: AggregateNode, firstSeen: { fine: string; totals?: string } | undefined): string {
    const def = aggregationDef(call.fn);
    if (!def.sql) throw new Error(`The plan aggregates with ${call.fn}, which has no SQL lowering.`);
    const argument = (index: number): Expr => {
      const expr = call.args[index];
      if (!expr) throw new Error(`${call.fn} is missing argument ${index + 1}.`);
      return expr;
    };
    const conditions = call.filter ? [this.expressions.compile(call.filter, 'predicate')] : [];
    return def.sql({
      call,
      arg: (index) => this.expressions.compile(argument(index)),
      type: (index) => argument(index).type,
      param: (index) => {
        const value = call.params[index];
        if (value === undefined) throw new Error(`${call.fn} is missing parameter ${index + 1}.`);
        return value;
      },
      filter: (extra = []) => {
        const all = [...conditions, ...extra];
        return all.length > 0 ? ` FILTER (WHERE ${all.join(' AND ')})` : '';
      },
      rowId: node.inputRowId !== undefined ? columnName(node.inputRowId) : undefined,
      firstSeen: (build) => {
        if (!firstSeen) throw new Error(`${call.fn} needs its first-seen ranks.`);
        if (firstSeen.totals && node.totals) {
          return `CASE WHEN GROUPING(${columnName(node.totals.withoutKey)}) = 1 THEN ${build(firstSeen.totals)} ELSE ${build(firstSeen.fine)} END`;
        }
        return build(firstSeen.fine);
      },
    });
  }
}

/** The registry entry a plan aggregate call names. */
function aggregationDef(fn: string): AggregationDef {
  const found = aggregationNamed(fn);
  if (!found) throw new Error(`The plan aggregates with ${fn}, which is no aggregation.`);
  return found.def;
}
