import type { Expr } from '../plan/types.js';
import type { ResultMessage } from '../results/rows.js';

/**
 * Warnings the checker finds, for `status.messages`: the query runs, and the reply says what
 * the hosted service would say about it. The hosted service's code is `apl_` followed by the
 * message's letters and digits and `_1` (issue 18 quotes
 * `apl_whereclausealwaysevaluatestoTRUEwhichwillincludealldata_1`), which the clients accept
 * as any `apl_…` code (wire.md).
 */
export class Warnings {
  private readonly byCode = new Map<string, ResultMessage>();

  /** Adds a warning; the same one again counts up rather than repeating. */
  add(msg: string): void {
    const code = `apl_${msg.replace(/[^A-Za-z0-9]/g, '')}_1`;
    const previous = this.byCode.get(code);
    this.byCode.set(code, { priority: 'warn', count: (previous?.count ?? 0) + 1, code, msg });
  }

  list(): ResultMessage[] {
    return [...this.byCode.values()];
  }
}

export const WHERE_ALWAYS_TRUE = 'where clause always evaluates to TRUE, which will include all data';

export function unknownSetOption(name: string): string {
  return `unknown query option '${name}' is ignored; the options are ${KNOWN_SET_OPTIONS.join(', ')}`;
}

/** The `set` options the local service knows (set-statement page). */
export const KNOWN_SET_OPTIONS = ['stricttypes'] as const;

/**
 * Whether a predicate is true whatever the row: `true`, `1 == 1`, `0 == 0`, `not(false)`, and
 * and/or of such. Only constants are looked at, so a predicate that reads a field never is.
 */
export function alwaysTrue(expr: Expr): boolean {
  return constantTruth(expr) === true;
}

function constantTruth(expr: Expr): boolean | undefined {
  if (expr.kind === 'literal') return typeof expr.value === 'boolean' ? expr.value : undefined;
  if (expr.kind !== 'call') return undefined;
  const [left, right] = expr.args;
  switch (expr.fn) {
    case 'not': {
      const inner = left ? constantTruth(left) : undefined;
      return inner === undefined ? undefined : !inner;
    }
    case 'and':
    case 'or': {
      const a = left ? constantTruth(left) : undefined;
      const b = right ? constantTruth(right) : undefined;
      if (expr.fn === 'and') return a === false || b === false ? false : a === true && b === true ? true : undefined;
      return a === true || b === true ? true : a === false && b === false ? false : undefined;
    }
    case 'eq':
    case 'ne': {
      if (left?.kind !== 'literal' || right?.kind !== 'literal' || left.value === null || right.value === null) return undefined;
      const equal = expr.caseSensitive === false ? String(left.value).toLowerCase() === String(right.value).toLowerCase() : left.value === right.value;
      return expr.fn === 'eq' ? equal : !equal;
    }
    default:
      return undefined;
  }
}
