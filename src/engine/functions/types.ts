import type * as Ast from '../apl/ast.js';
import type { BindContext, Scope } from '../check/context.js';
import type { Call, Expr, LiteralValue, ScalarType } from '../plan/types.js';
import type { JsonValue } from '../results/values.js';
import type { Mode } from '../sql/expressions.js';

/**
 * One scalar function of APL: everything about it in one entry — its signature, how a call binds
 * to the plan, how the plan call lowers to DuckDB SQL, and its examples, which the test harness
 * (test/engine/functions/examples.test.ts) runs through the whole engine against real DuckDB.
 * Each family's entries live in one file (`string.ts`, `math.ts`, … as the APL reference groups
 * them); `index.ts` lists the families and is the only index.
 */
export interface FunctionDef {
  /** The name APL calls it by; the plan calls it by this name too. */
  readonly name: string;
  /** Other names for exactly the same function (`iif` for `iff`, Kusto's `tolong` for `toint`). */
  readonly aliases?: readonly string[];
  /** One sentence for the list of supported functions (docs/apl.md). */
  readonly summary: string;
  /** The arguments in order. Optional ones come last; `variadic` repeats the last one. */
  readonly params: readonly Param[];
  /** The last parameter repeats up to this many arguments in all (`strcat`: 64). */
  readonly variadic?: number;
  /** The result type: fixed, or derived from the bound arguments. */
  readonly returns: ScalarType | DerivedType;
  /** For a dynamic result: what clients are told it is (`fields[].type`). */
  readonly reported?: 'array' | 'object';
  /**
   * Checks beyond the parameters' types (constant arguments, ranges) and rewrites: returns the
   * plan expression of the call. Without it the call is `call(name, args)` of the result type.
   */
  readonly bind?: (args: readonly Expr[], site: BindSite) => Expr;
  /**
   * The DuckDB SQL of a plan call of this function. Absent only where `bind` always rewrites the
   * call into other functions or operators (`not`, `ago`), so no plan call carries this name.
   */
  readonly sql?: (call: SqlCall) => string;
  /** Examples, as test data: each runs through the real engine and must give its result. */
  readonly examples: readonly Example[];
}

export interface Param {
  /** The name the reference gives it, for messages and the list of functions. */
  readonly name: string;
  /** The types it accepts. */
  readonly types: readonly ScalarType[];
  /** Accepted arguments are converted to this type before the call (dynamic → string, say). */
  readonly to?: ScalarType;
  readonly optional?: boolean;
  /** Added to the type error's message: what to do instead. */
  readonly hint?: string;
  /** `type`: the argument is a type, written `typeof(string)`; it binds to a string literal of the plan type's name. */
  readonly kind?: 'type';
}

export interface DerivedType {
  /** The result type of a call with these (checked, converted) arguments; may fail with a positioned error. */
  readonly of: (args: readonly Expr[], site: CallSite) => ScalarType;
  /** How the list of functions describes it ("the type of value"). */
  readonly doc: string;
}

/** Where a call is being bound: for positioned errors and query-wide values. */
export interface CallSite {
  /** The name it was called by (an alias, perhaps). */
  readonly name: string;
  readonly node: Ast.Call;
  readonly context: BindContext;
  /** The columns and lets the call can see (`ensure_field` looks a field up by name). */
  readonly scope: Scope;
}

export interface BindSite extends CallSite {
  /** The result type the signature gives this call. */
  readonly type: ScalarType;
}

/** A plan call being lowered to SQL: its arguments' SQL and types, and the compiler's tools. */
export interface SqlCall {
  readonly call: Call;
  /** `predicate`: only truth matters (null may stand for false). */
  readonly mode: Mode;
  /** The SQL of argument `index`, in `mode` (value by default). */
  arg(index: number, mode?: Mode): string;
  /** The SQL of every argument. */
  args(): string[];
  type(index: number): ScalarType;
  /** A literal argument's value; undefined for anything computed. */
  value(index: number): LiteralValue | undefined;
  /** Argument `index` converted to `type` (the call's type by default) with a plain SQL cast. */
  cast(index: number, type?: ScalarType): string;
  /** A bound parameter holding `value` as `type`: the only way text a query gave reaches SQL. */
  bind(value: string | bigint | number | boolean, type: ScalarType): string;
  /** A bool result as the plan defines it: never null where the plan says false (value mode). */
  exact(sql: string): string;
  /** Whether argument `index` is a column known never to be negative (`_time` in a window after the epoch). */
  nonNegative(index: number): boolean;
}

/**
 * An example: an expression evaluated once (against the first row of `sample-http-logs`, so it
 * may name that row's fields), or a whole query over the example datasets with its rows. `type`
 * is the type the result reports (`integer`, `string`, `array`…).
 */
export type Example =
  | { readonly apl: string; readonly result: JsonValue; readonly type?: string }
  | { readonly query: string; readonly rows: readonly Readonly<Record<string, JsonValue>>[] }
  | { readonly apl: string; readonly error: string };
