import type * as Ast from '../apl/ast.js';
import type { Example } from '../functions/types.js';
import type { AggregateCall, AggregationInfo, Expr, ScalarType } from '../plan/types.js';

/**
 * One aggregation of APL: its signature and binding, how a plan aggregate call lowers to DuckDB
 * SQL, and its examples (run by test/engine/functions/examples.test.ts). `index.ts` lists every
 * file of entries and is the only index.
 */
export interface AggregationDef {
  /** The name APL calls it by; plan aggregate calls name their entry by it. */
  readonly name: string;
  /** How the list of aggregations (docs/apl.md) shows a call: `percentile(expr, percentile)`. */
  readonly syntax: string;
  readonly summary: string;
  /** The plain form's fewest and most arguments. */
  readonly min: number;
  readonly max: number;
  /**
   * The `…if` form: the same aggregation over the rows where a bool predicate is true. It takes
   * one argument more, the predicate, at `predicate` (`sumif(expr, predicate)`: 1); `max` where
   * it takes fewer optional arguments than the plain form (`countif(predicate)`).
   */
  readonly conditional?: { readonly name: string; readonly wire: string; readonly predicate: number; readonly max?: number };
  /** `fields[].agg.name` on the wire (wire.md's list: `dcount` is `distinct`). */
  readonly wire: string;
  /** Binds checked-count arguments to the output columns' aggregate calls. */
  bind(args: readonly BoundArg[], site: AggregateSite): AggregateBinding;
  /** The SQL of a plan aggregate call of this entry; absent where `bind` always produces other entries' calls (`rate`). */
  readonly sql?: (call: AggregateSqlCall) => string;
  /** Reads the input's row id: the ingest order of collections and of arg_max's ties. */
  readonly ordered?: boolean;
  /** Needs each value's first occurrence per group (`make_set` keeps first-seen order). */
  readonly firstSeen?: boolean;
  readonly examples: readonly Example[];
}

/** A bound argument, with what default names need: the field it names, if it is a plain reference. */
export interface BoundArg {
  readonly expr: Expr;
  readonly field: string | undefined;
  readonly node: Ast.Expression;
  /** The output column's name when the call names the argument (`arg_max(x, longest = uri)`). */
  readonly name?: string;
  /** The type reported for the field it names (`array`, `integer|float`), kept by outputs that return it as it is. */
  readonly reportedType?: string;
}

/** Where an aggregation is being bound. */
export interface AggregateSite {
  /** The name it was called by (`sumif` for the conditional form of `sum`). */
  readonly name: string;
  /** The wire name of the form called. */
  readonly wire: string;
  readonly node: Ast.Call;
  /** The argument's number in the call as written (the if-form's predicate shifts the ones after it). */
  position(index: number): number;
}

/** One output column of an aggregation call (arg_max has several). */
export interface AggregateOutput {
  readonly call: AggregateCall;
  readonly defaultName: string;
  readonly reportedType?: string;
  readonly agg: AggregationInfo;
}

export interface AggregateBinding {
  readonly outputs: readonly AggregateOutput[];
  /** `rate`: the output is a sum, to be divided by the bucket's length in seconds. */
  readonly perSecond?: boolean;
}

/** A plan aggregate call being lowered to SQL. */
export interface AggregateSqlCall {
  readonly call: AggregateCall;
  /** The SQL of argument `index`. */
  arg(index: number): string;
  type(index: number): ScalarType;
  /** Constant parameter `index` (percentile's p, topk's k…). */
  param(index: number): number;
  /** ` FILTER (WHERE …)` with the call's predicate and `extra` conditions, or nothing. */
  filter(extra?: readonly string[]): string;
  /** The input's row id column, when it has one (ingest order). */
  readonly rowId: string | undefined;
  /**
   * For `firstSeen` entries: `build` given the first-seen rank column of the group, for the
   * fine groups and (with totals) the totals rows in one expression.
   */
  firstSeen(build: (rank: string) => string): string;
}
