/**
 * The logical plan: what a query computes, independent of the language it was written in. APL
 * (`check/`) builds it today and the structured query builds it next; `sql/` is its only
 * compiler. Eleven node kinds, each with its output columns and the order of its rows:
 *
 *   scan       the rows of one dataset whose `_time` lies in [start, end)
 *   filter     the input rows for which a predicate is true
 *   project    one row per input row, with exactly the listed computed columns
 *   aggregate  one row per distinct key combination (one row in all when there are no keys)
 *   sort       the input rows in another order
 *   limit      the first N input rows in the input's order
 *   values     rows written in the query (print, datatable, getschema)
 *   union      the rows of several inputs
 *   join       pairs of rows of two inputs with equal keys (every kind of join)
 *   mvexpand   one row per element of dynamic arrays or bags
 *   series     make-series: per group, arrays of aggregates over fixed time bins
 *
 * Columns are identified by a number unique within the plan; names are only for results, so a
 * user name never has to be an SQL identifier. Row order is a property of every node (`order`):
 * a scan's rows are `_time desc`, a sort changes the order, filters and projections keep it, an
 * aggregate defines its own; `limit` and the final result materialise it.
 */

/** The scalar types of expressions. Datetimes and timespans are nanoseconds (int64) at run time. */
export type ScalarType = 'bool' | 'long' | 'real' | 'string' | 'datetime' | 'timespan' | 'dynamic';

/** How a result column is described to clients (`fields[].agg`, wire.md's allowed names). */
export interface AggregationInfo {
  readonly name: string;
  readonly fields: readonly string[];
  readonly args: readonly (string | number)[];
}

export interface PlanColumn {
  readonly id: number;
  readonly name: string;
  readonly type: ScalarType;
  /** The type reported to clients: a dataset field's joined types (`integer|float`) or the type's wire name. */
  readonly reportedType: string;
  /** Carried only to order rows (a dropped `_time`, `_rowId`); never part of a result. */
  readonly hidden: boolean;
  readonly agg?: AggregationInfo;
}

export interface OrderKey {
  readonly column: number;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

// ── Scalar expressions ─────────────────────────────────────────────────────────────────────

/** A constant. long, datetime and timespan hold bigint; real number; dynamic its JSON text. */
export type LiteralValue = string | bigint | number | boolean | null;

export interface ColumnRef {
  readonly kind: 'column';
  readonly column: number;
  readonly type: ScalarType;
}

export interface Literal {
  readonly kind: 'literal';
  readonly type: ScalarType;
  readonly value: LiteralValue;
}

export interface Call {
  readonly kind: 'call';
  /**
   * What the call applies: an operator (`OPERATORS`), or a scalar function of the registry by its
   * name (`functions/`, where each function's semantics and SQL are, one entry each).
   */
  readonly fn: string;
  readonly args: readonly Expr[];
  readonly type: ScalarType;
  /** String comparisons and matches: false for the case-insensitive forms. */
  readonly caseSensitive?: boolean;
}

export type Expr = ColumnRef | Literal | Call;

/**
 * The operators the plan defines itself, with decided semantics (apl.md). Null rules: `eq` is
 * true for two nulls and false for one, `ne` its negation; the string predicates, `in`, `between`
 * and `regex` are false for a null input; the orderings (`lt`…) and arithmetic are null when an
 * operand is null. `int / int` truncates toward zero; `has*` match whole terms (runs of letters
 * and digits); `dynamic_get` is a key or an index of a JSON value. `redact` is the redact
 * operator's rewrite of one text: `[text, pattern, replacement, token, mode]`, where the
 * replacement (RE2 rewrite syntax) wraps what to redact in `REDACT_MARKS`, and each marked
 * piece becomes the token once (`whole`), the token per character (`chars`) or a hash (`hash`).
 */
export const OPERATORS = [
  'and',
  'or',
  'not',
  'eq',
  'ne',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'between',
  'add',
  'sub',
  'mul',
  'div',
  'mod',
  'neg',
  'contains',
  'startswith',
  'endswith',
  'has',
  'hasprefix',
  'hassuffix',
  'regex',
  'dynamic_get',
  'redact',
] as const;

/**
 * Around each piece `redact` replaces: two characters of Unicode's private use area, which text
 * does not hold (a text that holds them is redacted wrongly, never unsafely).
 */
export const REDACT_MARKS = { open: '\uE000', close: '\uE001' } as const;

export type Operator = (typeof OPERATORS)[number];

const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);

export function isOperator(fn: string): fn is Operator {
  return OPERATOR_SET.has(fn);
}

// ── Aggregations ──────────────────────────────────────────────────────────────────────────

export interface AggregateCall {
  /** An aggregation of the registry (`aggregations/`), by its name. */
  readonly fn: string;
  /**
   * count: none or one (non-null values); arg_max/arg_min: [value to return, expression to
   * maximise]; the rest: the aggregated expression.
   */
  readonly args: readonly Expr[];
  /** Only rows for which this is true take part (`countif`, `sumif`…). */
  readonly filter?: Expr;
  /** percentile: [p]; percentiles_array: [p1, p2…] (0–100); topk: [k]; make_set: [limit]; histogram: [buckets]. */
  readonly params: readonly number[];
  readonly type: ScalarType;
}

// ── Nodes ─────────────────────────────────────────────────────────────────────────────────

interface NodeBase<K extends string> {
  readonly kind: K;
  /** Output columns, hidden ones included, in result order. */
  readonly columns: readonly PlanColumn[];
  readonly order: readonly OrderKey[];
}

export interface ScanField {
  readonly column: PlanColumn;
  /** The store's generated column name (`f3`, `_time`); never a user's text. */
  readonly physical: string;
}

export interface ScanNode extends NodeBase<'scan'> {
  readonly dataset: string;
  /** The store's generated table name (`ds_1`). */
  readonly table: string;
  readonly fields: readonly ScanField[];
  /** The `_time` column of the scan and the window, in nanoseconds: start ≤ _time < end. */
  readonly time: { readonly column: number; readonly physical: string; readonly start: bigint; readonly end: bigint };
  /** The row id column (ingest order), hidden. */
  readonly rowId: number;
}

export interface FilterNode extends NodeBase<'filter'> {
  readonly input: PlanNode;
  readonly predicate: Expr;
}

export interface Computed {
  readonly column: PlanColumn;
  readonly expr: Expr;
}

export interface ProjectNode extends NodeBase<'project'> {
  readonly input: PlanNode;
  /** One per output column, in the same order as `columns`. */
  readonly computed: readonly Computed[];
}

export interface AggregateItem {
  readonly column: PlanColumn;
  readonly call: AggregateCall;
}

export interface AggregateNode extends NodeBase<'aggregate'> {
  readonly input: PlanNode;
  /** Input columns to group by, and the output column of each. */
  readonly keys: readonly { readonly input: number; readonly column: PlanColumn }[];
  readonly aggregates: readonly AggregateItem[];
  /**
   * Also aggregate without one key (a time bin) in the same pass: those rows have the key null
   * and `flag` true. This is how a time series and its totals come from one scan.
   */
  readonly totals?: { readonly withoutKey: number; readonly flag: PlanColumn };
  /** The input row id, when the input still has one: the order of make_list and make_set, ties of arg_max. */
  readonly inputRowId?: number;
}

export interface SortNode extends NodeBase<'sort'> {
  readonly input: PlanNode;
}

export interface LimitNode extends NodeBase<'limit'> {
  readonly input: PlanNode;
  readonly count: number;
  /** Added by default rather than written: the result says so when rows were left out. */
  readonly implicit: boolean;
}

/** Rows written in the query (`print`, `datatable`, `getschema`): one expression per column, row by row. */
export interface ValuesNode extends NodeBase<'values'> {
  readonly rows: readonly (readonly Expr[])[];
}

/** The rows of every input, one after the other; input i's column `columns[i][k]` is output column k. */
export interface UnionNode extends NodeBase<'union'> {
  readonly inputs: readonly { readonly node: PlanNode; readonly columns: readonly number[] }[];
}

export type JoinKind = 'inner' | 'innerunique' | 'leftouter' | 'rightouter' | 'fullouter' | 'leftanti' | 'rightanti' | 'leftsemi' | 'rightsemi';

/**
 * Rows of `left` and `right` whose `on` columns are equal (nulls match nothing), as `joinKind`
 * says; each output column is a column of one side.
 */
export interface JoinNode extends NodeBase<'join'> {
  readonly joinKind: JoinKind;
  readonly left: PlanNode;
  readonly right: PlanNode;
  readonly on: readonly { readonly left: number; readonly right: number }[];
  readonly outputs: readonly { readonly column: PlanColumn; readonly side: 'left' | 'right'; readonly source: number }[];
}

/**
 * One row per element of the expanded dynamic columns (in parallel, the longest sets the count;
 * a null value gives one row, an empty array none), the other columns repeated.
 */
export interface MvExpandNode extends NodeBase<'mvexpand'> {
  readonly input: PlanNode;
  /** Each output column: an input column passed through, or an expanded one. */
  readonly outputs: readonly ({ readonly column: PlanColumn; readonly source: number; readonly expand?: 'bag' | 'array' })[];
  /** The element's index (`with_itemindex`, else hidden: it orders the rows). */
  readonly itemIndex: PlanColumn;
  readonly limit?: number;
}

/**
 * `make-series`: the input is aggregated per group and bin (`binColumn`: the bin's start); each
 * group becomes one row whose values are arrays over every bin from `from` (or the first bin of
 * the data) up to `to` (or the last), a missing bin taking `defaultValue`, and `time` the bins.
 */
export interface SeriesNode extends NodeBase<'series'> {
  readonly input: PlanNode;
  readonly keys: readonly { readonly input: number; readonly column: PlanColumn }[];
  readonly binColumn: number;
  readonly values: readonly { readonly input: number; readonly column: PlanColumn; readonly defaultValue: Expr }[];
  readonly time: PlanColumn;
  readonly step: bigint;
  /** Nanoseconds; absent: from the data's first bin to its last. */
  readonly range?: { readonly from: bigint; readonly to: bigint };
}

export type PlanNode = ScanNode | FilterNode | ProjectNode | AggregateNode | SortNode | LimitNode | ValuesNode | UnionNode | JoinNode | MvExpandNode | SeriesNode;
