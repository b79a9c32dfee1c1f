import type { Expr, PlanColumn, ScalarType } from '../plan/types.js';
import { asString, call, literal } from './context.js';

/**
 * What `search` and `where * …` look in: every visible column whose values have text to find —
 * strings, dynamic values (their JSON text), numbers and bools (as `tostring` writes them).
 * Datetimes and timespans are left out: every row's `_time` would match a term like `2024`,
 * and a time is filtered with `_time > …`, which search predicates take as they are.
 */
const SEARCHABLE: ReadonlySet<ScalarType> = new Set(['string', 'dynamic', 'long', 'real', 'bool']);

export function searchableColumns(columns: readonly PlanColumn[]): PlanColumn[] {
  return columns.filter((column) => !column.hidden && SEARCHABLE.has(column.type));
}

/** `test` true for at least one searchable column, each read as text; false without any. */
export function anyColumn(columns: readonly PlanColumn[], test: (text: Expr) => Expr): Expr {
  const tests = searchableColumns(columns).map((column) => test(asString({ kind: 'column', column: column.id, type: column.type })));
  return tests.reduce<Expr | undefined>((all, one) => (all ? call('or', [all, one], 'bool') : one), undefined) ?? literal('bool', false);
}

/**
 * How a search term matches a text, by where its wildcards are (the search page's table):
 * `term` has, `term*` hasprefix, `*term` hassuffix, `*term*` contains, and a `*` or `?` inside
 * (`Pad*FG`, `AxI?OM`) a regular expression in which `*` is any run of characters and `?` one
 * character, bounded at terms as `has` is. A term of only `*` matches every row. The term is a
 * value: it reaches SQL as a bound parameter, the regular expression too.
 */
export function termTest(term: string, caseSensitive: boolean): (text: Expr) => Expr {
  if (term !== '' && /^\*+$/.test(term)) return () => literal('bool', true);
  const leading = term.startsWith('*');
  const trailing = term.endsWith('*');
  const core = term.replace(/^\*+/, '').replace(/\*+$/, '');
  if (/[*?]/.test(core)) {
    const pattern = wildcardPattern(core, leading, trailing, caseSensitive);
    return (text) => call('regex', [text, literal('string', pattern)], 'bool', true);
  }
  const fn = leading && trailing ? 'contains' : leading ? 'hassuffix' : trailing ? 'hasprefix' : 'has';
  return (text) => call(fn, [text, literal('string', core)], 'bool', caseSensitive);
}

const TERM_CHAR = /^[\p{L}\p{N}]$/u;
const BEFORE_TERM = '(?:^|[^\\pL\\pN])';
const AFTER_TERM = '(?:$|[^\\pL\\pN])';

function wildcardPattern(core: string, leading: boolean, trailing: boolean, caseSensitive: boolean): string {
  const chars = [...core];
  const body = chars.map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.*+?()[\]{}|]/, '\\$&'))).join('');
  const before = !leading && TERM_CHAR.test(chars[0] ?? '') ? BEFORE_TERM : '';
  const after = !trailing && TERM_CHAR.test(chars[chars.length - 1] ?? '') ? AFTER_TERM : '';
  return `(?s)${caseSensitive ? '' : '(?i)'}${before}${body}${after}`;
}
