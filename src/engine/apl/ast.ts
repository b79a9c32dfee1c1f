/**
 * The APL syntax tree: a readonly discriminated union on `kind`. Every node carries the span of
 * the text it was parsed from (`loc`), so that every later error can point at it.
 */

export interface Loc {
  /** 1-based line and code-point column of the node's first character. */
  readonly line: number;
  readonly column: number;
  /** UTF-16 offsets of the node's text. */
  readonly start: number;
  readonly end: number;
}

interface Node<K extends string> {
  readonly kind: K;
  readonly loc: Loc;
}

/** The statements before the query's tabular expression, then that expression. */
export interface Query extends Node<'Query'> {
  readonly sets: readonly SetStatement[];
  readonly lets: readonly LetStatement[];
  readonly source: TabularSource;
  readonly operators: readonly Operator[];
}

/** `set stricttypes;`, `set name = value;`: a query option. */
export interface SetStatement extends Node<'Set'> {
  readonly name: Identifier;
  readonly value: Expression | undefined;
}

/**
 * `let name = …;`: a scalar expression, a tabular expression, or a user function. A bare name
 * (`let T = logs;`) is parsed as a scalar expression; the checker tells a dataset from a `let`.
 */
export interface LetStatement extends Node<'Let'> {
  readonly name: Identifier;
  readonly value: Expression | TabularExpression | FunctionDefinition;
}

/** `(a:long, b:string = "x") { body }`: a user function whose body is one scalar expression, after its own lets. */
export interface FunctionDefinition extends Node<'Function'> {
  readonly params: readonly FunctionParam[];
  readonly lets: readonly LetStatement[];
  readonly body: Expression;
}

export interface FunctionParam extends Node<'Param'> {
  readonly name: Identifier;
  /** An APL type name as written (`long`, `string`…), or `dynamic` when none is given. */
  readonly type: Identifier;
  readonly defaultValue: Expression | undefined;
}

/** A source and the operators piped after it: `logs | where …`, `(T | take 5)`. */
export interface TabularExpression extends Node<'Tabular'> {
  readonly source: TabularSource;
  readonly operators: readonly Operator[];
}

export type TabularSource = Source | PrintSource | DatatableSource | UnionSource | ExternalDataSource;

/** A dataset or a tabular `let`, by name. */
export interface Source extends Node<'Source'> {
  readonly name: string;
}

/** `print a = 1, strlen("x")`: one row of expressions. */
export interface PrintSource extends Node<'Print'> {
  readonly assignments: readonly Assignment[];
}

export interface ColumnDeclaration extends Node<'ColumnDeclaration'> {
  readonly name: Identifier;
  readonly type: Identifier;
}

/** `datatable(a:long, b:string) [1, "x", 2, "y"]`: values row by row. */
export interface DatatableSource extends Node<'Datatable'> {
  readonly columns: readonly ColumnDeclaration[];
  readonly values: readonly Expression[];
}

/** `union T1, T2` at the start of a query. */
export interface UnionSource extends Node<'UnionSource'> {
  readonly union: UnionOperator;
}

/** `externaldata (a:string) ["https://…"]`: hosted only, the checker says so. */
export interface ExternalDataSource extends Node<'ExternalData'> {
  readonly columns: readonly ColumnDeclaration[];
}

/** A table an operator takes: a name (a dataset or a tabular let), a dataset name pattern (`github*`), or `(…)`. */
export type TableReference = Source | DatasetPattern | TabularExpression;

export interface DatasetPattern extends Node<'DatasetPattern'> {
  readonly pattern: string;
}

export interface Identifier extends Node<'Identifier'> {
  readonly name: string;
}

// ── Tabular operators ──────────────────────────────────────────────────────────────────────

export type Operator =
  | WhereOperator
  | ExtendOperator
  | ProjectOperator
  | ProjectAwayOperator
  | ProjectKeepOperator
  | ProjectRenameOperator
  | ProjectReorderOperator
  | SummarizeOperator
  | SortOperator
  | TakeOperator
  | TopOperator
  | CountOperator
  | DistinctOperator
  | SearchOperator
  | GetschemaOperator
  | UnionOperator
  | JoinOperator
  | LookupOperator
  | MakeSeriesOperator
  | MvExpandOperator
  | ParseOperator
  | ParseKvOperator
  | ExtendValidOperator
  | SampleOperator
  | RedactOperator;

export interface WhereOperator extends Node<'Where'> {
  readonly predicate: Expression;
}

/** `name = expression`, or a bare expression whose column name is derived from it. */
export interface Assignment extends Node<'Assignment'> {
  readonly name: Identifier | undefined;
  readonly value: Expression;
}

export interface ExtendOperator extends Node<'Extend'> {
  readonly assignments: readonly Assignment[];
}

export interface ProjectOperator extends Node<'Project'> {
  readonly assignments: readonly Assignment[];
}

/** A column name, possibly with `*` wildcards: `geo.*`, `*_ms`, `['x']`, `['geo.']*`. */
export interface NamePattern extends Node<'NamePattern'> {
  /** As written, brackets left out: `geo.*`. */
  readonly pattern: string;
  readonly wildcard: boolean;
  /**
   * The literal text between the wildcards (`['a', '']` for `a*`): a `*` inside a bracketed name
   * is a character of the name, not a wildcard.
   */
  readonly parts: readonly string[];
}

export interface ProjectAwayOperator extends Node<'ProjectAway'> {
  readonly patterns: readonly NamePattern[];
}

export interface ProjectKeepOperator extends Node<'ProjectKeep'> {
  readonly patterns: readonly NamePattern[];
}

export interface Rename extends Node<'Rename'> {
  readonly newName: Identifier;
  readonly oldName: Identifier;
}

export interface ProjectRenameOperator extends Node<'ProjectRename'> {
  readonly renames: readonly Rename[];
}

export interface ProjectReorderOperator extends Node<'ProjectReorder'> {
  readonly keys: readonly ReorderKey[];
}

/** `repo* desc`: the columns a pattern takes, in their order or sorted by name. */
export interface ReorderKey extends Node<'ReorderKey'> {
  readonly pattern: NamePattern;
  readonly order: 'asc' | 'desc' | 'granny-asc' | 'granny-desc' | undefined;
}

export interface SummarizeOperator extends Node<'Summarize'> {
  readonly aggregates: readonly Assignment[];
  readonly by: readonly Assignment[];
}

export interface SortKey extends Node<'SortKey'> {
  readonly value: Expression;
  readonly direction: 'asc' | 'desc' | undefined;
  readonly nulls: 'first' | 'last' | undefined;
}

export interface SortOperator extends Node<'Sort'> {
  readonly keys: readonly SortKey[];
}

export interface TakeOperator extends Node<'Take'> {
  readonly count: Expression;
}

export interface TopOperator extends Node<'Top'> {
  readonly count: Expression;
  readonly key: SortKey;
}

export type CountOperator = Node<'Count'>;

export interface DistinctOperator extends Node<'Distinct'> {
  /** Empty means `distinct *`. */
  readonly columns: readonly Identifier[];
}

export interface SearchOperator extends Node<'Search'> {
  readonly predicate: SearchPredicate;
  readonly caseSensitive: boolean;
}

export type GetschemaOperator = Node<'Getschema'>;

export interface UnionOperator extends Node<'Union'> {
  /** `withsource=Name`: a column naming each row's dataset (or table). */
  readonly withSource: Identifier | undefined;
  readonly tables: readonly TableReference[];
}

/** One `on` condition: `key` (the same name both sides), or `$left.a == $right.b`. */
export interface JoinCondition extends Node<'JoinCondition'> {
  readonly left: Expression;
  readonly right: Expression;
}

export const JOIN_KINDS = ['inner', 'innerunique', 'leftouter', 'rightouter', 'fullouter', 'leftanti', 'rightanti', 'leftsemi', 'rightsemi'] as const;
export type JoinKind = (typeof JOIN_KINDS)[number];

export interface JoinOperator extends Node<'Join'> {
  readonly joinKind: JoinKind;
  readonly right: TableReference;
  readonly on: readonly JoinCondition[];
}

export interface LookupOperator extends Node<'Lookup'> {
  readonly joinKind: 'leftouter' | 'inner';
  readonly right: TableReference;
  readonly on: readonly JoinCondition[];
}

export interface MakeSeriesOperator extends Node<'MakeSeries'> {
  readonly aggregates: readonly Assignment[];
  readonly defaultValue: Expression | undefined;
  readonly on: Expression;
  readonly from: Expression | undefined;
  readonly to: Expression | undefined;
  readonly step: Expression;
  readonly by: readonly Assignment[];
}

export interface MvExpandItem extends Node<'MvExpandItem'> {
  /** `name = expression`, or a column. */
  readonly name: Identifier | undefined;
  readonly value: Expression;
  /** `to typeof(long)`. */
  readonly toType: Identifier | undefined;
}

export interface MvExpandOperator extends Node<'MvExpand'> {
  /** `kind=bag` or `bagexpansion=bag` expands a property into a one-property bag; `array` into `[key, value]`. */
  readonly bagKind: 'bag' | 'array' | undefined;
  readonly itemIndex: Identifier | undefined;
  readonly items: readonly MvExpandItem[];
  readonly limit: Expression | undefined;
}

/**
 * `search`'s predicate: terms (`"x"`, `"*x*"`, `field:"x"`), `search *`, and/or/not over them,
 * and any bool expression (`status == "500"`, `_time > ago(1h)`) among them.
 */
export type SearchPredicate = SearchTerm | SearchAll | SearchLogical | SearchNot | SearchExpression;

/** A term, matched as the page's table says by where its `*` and `?` wildcards are. */
export interface SearchTerm extends Node<'SearchTerm'> {
  /** `field:"term"`; every searchable column when absent. */
  readonly field: Identifier | undefined;
  readonly term: StringLiteral;
}

/** `search *`: every row. */
export type SearchAll = Node<'SearchAll'>;

export interface SearchLogical extends Node<'SearchLogical'> {
  readonly operator: 'and' | 'or';
  readonly left: SearchPredicate;
  readonly right: SearchPredicate;
}

export interface SearchNot extends Node<'SearchNot'> {
  readonly operand: SearchPredicate;
}

export interface SearchExpression extends Node<'SearchExpression'> {
  readonly expression: Expression;
}

/** `parse` and `parse-where` (`where`: rows the pattern does not match are dropped). */
export interface ParseOperator extends Node<'Parse'> {
  readonly mode: 'simple' | 'relaxed' | 'regex';
  /** Regular expression flags of `kind=regex` (`flags=i`), as written. */
  readonly flags: StringLiteral | undefined;
  readonly source: Expression;
  readonly pattern: readonly ParseItem[];
  readonly where: boolean;
}

export type ParseItem = ParseWildcard | StringLiteral | ParseCapture;

/** `*` in a parse pattern: any text, as little as the rest allows. */
export type ParseWildcard = Node<'ParseWildcard'>;

/** `name` or `name:type`: a column the matched text goes to. */
export interface ParseCapture extends Node<'ParseCapture'> {
  readonly name: Identifier;
  readonly type: Identifier | undefined;
}

/** `parse-kv text as (k1, k2:long) with (pair_delimiter=';', kv_delimiter='=', quote='"')`. */
export interface ParseKvOperator extends Node<'ParseKv'> {
  readonly source: Expression;
  readonly keys: readonly ParseCapture[];
  readonly options: readonly NamedOption[];
}

/** `name = value` in an operator's option list: `replaceToken="x"`, `pair_delimiter=';'`. */
export interface NamedOption extends Node<'NamedOption'> {
  readonly name: Identifier;
  readonly value: Expression;
}

/** `extend-valid`: extend, keeping a field's value where the new one cannot be computed. */
export interface ExtendValidOperator extends Node<'ExtendValid'> {
  readonly assignments: readonly Assignment[];
}

export interface SampleOperator extends Node<'Sample'> {
  readonly proportion: Expression;
}

/** `redact [options] regex, … [on field, …]`. */
export interface RedactOperator extends Node<'Redact'> {
  readonly options: readonly NamedOption[];
  readonly patterns: readonly Expression[];
  /** Empty: every string field. */
  readonly fields: readonly NamePattern[];
}

// ── Scalar expressions ─────────────────────────────────────────────────────────────────────

export type Expression =
  | StringLiteral
  | IntLiteral
  | RealLiteral
  | BoolLiteral
  | DatetimeLiteral
  | TimespanLiteral
  | DynamicLiteral
  | TypedNull
  | NameReference
  | MemberAccess
  | IndexAccess
  | Call
  | Star
  | Unary
  | Binary
  | InExpression
  | BetweenExpression;

export interface StringLiteral extends Node<'String'> {
  readonly value: string;
}

export interface IntLiteral extends Node<'Int'> {
  readonly value: bigint;
}

export interface RealLiteral extends Node<'Real'> {
  readonly value: number;
}

export interface BoolLiteral extends Node<'Bool'> {
  readonly value: boolean;
}

/** Nanoseconds since the Unix epoch. */
export interface DatetimeLiteral extends Node<'Datetime'> {
  readonly value: bigint;
  /** A time without a date (`datetime(10:30)`): `value` is nanoseconds into the day of the query's now. */
  readonly timeOfDay?: true;
}

/** Nanoseconds. */
export interface TimespanLiteral extends Node<'Timespan'> {
  readonly value: bigint;
}

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export interface DynamicLiteral extends Node<'Dynamic'> {
  readonly value: JsonValue;
}

/** `int(null)`, `datetime(null)`…: the APL type name as written. */
export interface TypedNull extends Node<'TypedNull'> {
  readonly type: string;
}

/** `status`, `['geo.city']`, a `let` name. `bracketed` names are always field names. */
export interface NameReference extends Node<'Name'> {
  readonly name: string;
  readonly bracketed: boolean;
}

/** `geo.city` when no field of that dotted name exists: a key of a dynamic value. */
export interface MemberAccess extends Node<'Member'> {
  readonly object: Expression;
  readonly name: string;
}

export interface IndexAccess extends Node<'Index'> {
  readonly object: Expression;
  readonly index: Expression;
}

export interface Call extends Node<'Call'> {
  readonly name: Identifier;
  readonly args: readonly Expression[];
  /**
   * The names given to arguments written `name = expr` (`arg_max(duration, longestSpan = span_id)`),
   * by position; absent when no argument is named.
   */
  readonly argNames?: readonly (Identifier | undefined)[];
}

/** `*` as an argument: `arg_max(_time, *)`. */
export type Star = Node<'Star'>;

export interface Unary extends Node<'Unary'> {
  readonly operator: '-' | '+';
  readonly operand: Expression;
}

/**
 * Arithmetic (`+ - * / %`), comparison (`== != <> < <= > >= =~ !~`), logic (`and or`) and the
 * string operators (`contains`, `!has_cs`, `matches regex`, …) as their spelling.
 */
export interface Binary extends Node<'Binary'> {
  readonly operator: string;
  readonly operatorLoc: Loc;
  readonly left: Expression;
  readonly right: Expression;
}

export interface InExpression extends Node<'In'> {
  readonly value: Expression;
  readonly negated: boolean;
  readonly caseInsensitive: boolean;
  readonly items: readonly Expression[];
}

export interface BetweenExpression extends Node<'Between'> {
  readonly value: Expression;
  readonly negated: boolean;
  readonly low: Expression;
  readonly high: Expression;
}
