import type * as Ast from '../apl/ast.js';
import { INT64_MAX, INT64_MIN, NS_PER, parseDatetime } from '../apl/literals.js';
import { closestName } from '../apl/suggest.js';
import type { Expr, Operator, PlanColumn, ScalarType } from '../plan/types.js';
import { AGGREGATE_NAMES, isAggregateName } from '../aggregations/index.js';
import { arity, bindFunction, bindTypeName, paramAt } from '../functions/bind.js';
import { FUNCTION_NAMES, functionNamed } from '../functions/index.js';
import { bindUserFunction } from './statements.js';
import { anyColumn } from './search.js';
import { TYPE_NAMES, asString, call, checkArity, fail, fromDynamic, isNumeric, literal, type BindContext, type Scope } from './context.js';

const COMPARISONS: Readonly<Record<string, Operator>> = {
  '==': 'eq',
  '!=': 'ne',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
};

const STRING_PREDICATES: Readonly<Record<string, Operator>> = {
  contains: 'contains',
  startswith: 'startswith',
  endswith: 'endswith',
  has: 'has',
  hasprefix: 'hasprefix',
  hassuffix: 'hassuffix',
};

/** Midnight (UTC) of the day of `ns`, before the epoch too. */
function startOfDay(ns: bigint): bigint {
  return ns - (((ns % NS_PER.day) + NS_PER.day) % NS_PER.day);
}

/** Binds an APL expression in `scope` to a typed plan expression, or throws a positioned AplError. */
export function bindExpression(node: Ast.Expression, scope: Scope, context: BindContext): Expr {
  switch (node.kind) {
    case 'String':
      return literal('string', node.value);
    case 'Int':
      return literal('long', node.value);
    case 'Real':
      return literal('real', node.value);
    case 'Bool':
      return literal('bool', node.value);
    case 'Datetime':
      return literal('datetime', node.timeOfDay ? startOfDay(context.now) + node.value : node.value);
    case 'Timespan':
      return literal('timespan', node.value);
    case 'Dynamic':
      return literal('dynamic', JSON.stringify(node.value));
    case 'TypedNull':
      return literal(TYPE_NAMES[node.type] ?? 'dynamic', null);
    case 'Name':
    case 'Member':
    case 'Index':
      return bindReference(node, scope, context);
    case 'Star':
      return fail('syntax', "'*' stands for every field only before a string operator, such as where * has \"x\", or as an argument of arg_max() and arg_min()", node);
    case 'Call':
      return bindCall(node, scope, context);
    case 'Unary':
      return bindUnary(node, scope, context);
    case 'Binary':
      return bindBinary(node, scope, context);
    case 'In':
      return bindIn(node, scope, context);
    case 'Between':
      return bindBetween(node, scope, context);
  }
}

/** The column a name denotes in `scope`, if any. Later columns shadow earlier ones of the same name. */
export function findColumn(scope: Scope, name: string): PlanColumn | undefined {
  for (let i = scope.columns.length - 1; i >= 0; i--) {
    const column = scope.columns[i];
    if (column && !column.hidden && column.name === name) return column;
  }
  return undefined;
}

/** Unknown field error, with the closest visible name suggested. */
export function unknownField(name: string, scope: Scope, node: { readonly loc: Ast.Loc }): never {
  const candidates = [...scope.columns.filter((column) => !column.hidden).map((column) => column.name), ...scope.lets.keys()];
  const suggestion = closestName(name, candidates);
  fail('unknown_field', `unknown field '${name}'${suggestion !== undefined ? `; did you mean '${suggestion}'?` : ''}`, node);
}

/**
 * `a.b.c` as the names it is made of, when it is made of names only. `joinable` is how many of
 * them, from the first, may be read together as one dotted field name: those before the first
 * index, since `['geo']['city']` is the key `city` of the field `geo` (a map field), never the
 * field `geo.city`.
 */
function dottedPath(node: Ast.Expression): { root: Ast.NameReference; path: string[]; joinable: number } | undefined {
  if (node.kind === 'Name') return { root: node, path: [node.name], joinable: 1 };
  if (node.kind === 'Member') {
    const inner = dottedPath(node.object);
    return inner && { root: inner.root, path: [...inner.path, node.name], joinable: inner.joinable === inner.path.length ? inner.joinable + 1 : inner.joinable };
  }
  if (node.kind === 'Index' && node.index.kind === 'String') {
    const inner = dottedPath(node.object);
    return inner && { root: inner.root, path: [...inner.path, node.index.value], joinable: inner.joinable };
  }
  return undefined;
}

/**
 * Field names may contain dots (`geo.city`, flattened at ingest), so `geo.city` is first the field
 * of that name; failing that, the longest prefix that is a dynamic field (a map field, or an
 * array or bag kept whole), and the rest keys into it. An index is always a key:
 * `['attributes.custom']['http.protocol']` is the key `http.protocol` of `attributes.custom`.
 */
function bindReference(node: Ast.NameReference | Ast.MemberAccess | Ast.IndexAccess, scope: Scope, context: BindContext): Expr {
  const path = dottedPath(node);
  if (path) {
    if (path.path.length === 1 && !path.root.bracketed) {
      const bound = scope.lets.get(path.root.name);
      if (bound) return bound;
    }
    for (let length = path.joinable; length >= 1; length--) {
      const name = path.path.slice(0, length).join('.');
      const column = findColumn(scope, name);
      if (!column) continue;
      let expr: Expr = { kind: 'column', column: column.id, type: column.type };
      if (length === path.path.length) return expr;
      if (column.type !== 'dynamic') break;
      for (const key of path.path.slice(length)) expr = call('dynamic_get', [expr, literal('string', key)], 'dynamic');
      return expr;
    }
    return unknownField(path.path.slice(0, path.joinable).join('.'), scope, node);
  }
  if (node.kind === 'Name') return unknownField(node.name, scope, node);
  const object = bindExpression(node.object, scope, context);
  if (object.type !== 'dynamic') fail('type_mismatch', `only a dynamic value has keys or indexes, got ${object.type}`, node);
  const key =
    node.kind === 'Member'
      ? literal('string', node.name)
      : bindExpression(node.index, scope, context);
  if (key.type !== 'string' && key.type !== 'long') fail('type_mismatch', `an index must be a string or a long, got ${key.type}`, node.kind === 'Index' ? node.index : node);
  return call('dynamic_get', [object, key], 'dynamic');
}

function bindCall(node: Ast.Call, scope: Scope, context: BindContext): Expr {
  const name = node.name.name;
  const user = context.functions?.get(name);
  if (user) return bindUserFunction(name, user, node, scope, context);
  if (isAggregateName(name)) {
    if (!context.aggregates) {
      fail('invalid_argument', `${name}() is an aggregation: use it in summarize, such as summarize ${name}(…) by …`, node.name);
    }
    return context.aggregates.add(node, context);
  }
  const named = node.argNames?.find((argName) => argName !== undefined);
  if (named) fail('syntax', `named arguments such as ${named.name} = … are only allowed in arg_max() and arg_min()`, named);
  const def = functionNamed(name);
  if (!def) {
    // Inside summarize an aggregation is the likelier intent: a close one is suggested first.
    const suggestion = (context.aggregates ? closestName(name, AGGREGATE_NAMES) : undefined) ?? closestName(name, FUNCTION_NAMES);
    fail('unknown_function', `unknown function '${name}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`, node.name);
  }
  // The arity before the arguments: a call with one argument too many says so, whatever the argument.
  const { min, max } = arity(def);
  checkArity(name, node, min, max);
  // A parameter that takes a type (`ensure_field(name, typeof(string))`) is given the type's name.
  const args = node.args.map((arg, index) => (paramAt(def, index).kind === 'type' ? bindTypeName(arg, name, index) : bindExpression(arg, scope, context)));
  return bindFunction(def, name, node, args, { context, scope });
}

function bindUnary(node: Ast.Unary, scope: Scope, context: BindContext): Expr {
  const operand = bindExpression(node.operand, scope, context);
  if (!isNumeric(operand.type) && operand.type !== 'timespan') {
    fail('type_mismatch', `unary ${node.operator} needs a number or a timespan, got ${operand.type}`, node);
  }
  if (node.operator === '+') return operand;
  if (operand.kind === 'literal' && typeof operand.value === 'bigint') return literal(operand.type, -operand.value);
  if (operand.kind === 'literal' && typeof operand.value === 'number') return literal(operand.type, -operand.value);
  return call('neg', [operand], operand.type);
}

function bindBinary(node: Ast.Binary, scope: Scope, context: BindContext): Expr {
  if (node.left.kind === 'Star') return bindAnyColumn(node, scope, context);
  const left = bindExpression(node.left, scope, context);
  const right = bindExpression(node.right, scope, context);
  const operator = node.operator;
  const at = { loc: node.operatorLoc };
  if (operator === 'and' || operator === 'or') {
    for (const [side, expr] of [[node.left, left], [node.right, right]] as const) {
      if (expr.type !== 'bool') fail('type_mismatch', `'${operator}' needs bool operands, got ${expr.type}`, side);
    }
    return call(operator, [left, right], 'bool');
  }
  const comparison = COMPARISONS[operator];
  if (comparison) {
    const [l, r] = unifyForComparison(left, right, node, operator, context);
    if ((comparison !== 'eq' && comparison !== 'ne') && (l.type === 'bool' || l.type === 'dynamic')) {
      fail('type_mismatch', `'${operator}' cannot order ${l.type} values`, at);
    }
    return call(comparison, [l, r], 'bool', true);
  }
  if (operator === '=~' || operator === '!~') {
    return call(operator === '=~' ? 'eq' : 'ne', [asString(left), asString(right)], 'bool', false);
  }
  if (operator === 'matches regex') {
    return call('regex', [asString(left), asString(right)], 'bool', true);
  }
  if (operator === '+' || operator === '-' || operator === '*' || operator === '/' || operator === '%') {
    return bindArithmetic(operator, left, right, node);
  }
  const negated = operator.startsWith('!');
  const base = negated ? operator.slice(1) : operator;
  const caseSensitive = base.endsWith('_cs');
  const fn = STRING_PREDICATES[caseSensitive ? base.slice(0, -3) : base];
  if (!fn) return fail('syntax', `unknown operator '${operator}'`, at);
  const predicate = call(fn, [asString(left), asString(right)], 'bool', caseSensitive);
  return negated ? call('not', [predicate], 'bool') : predicate;
}

/**
 * `* has "x"`: the string operator (or `matches regex`) true for any searchable column, as
 * `search` does (check/search.ts). Negated forms are refused: whether they would mean "no
 * column" or "some column" is a guess; `not(* has "x")` says which.
 */
function bindAnyColumn(node: Ast.Binary, scope: Scope, context: BindContext): Expr {
  const operator = node.operator;
  const at = { loc: node.operatorLoc };
  const negated = operator.startsWith('!');
  const base = negated ? operator.slice(1) : operator;
  const caseSensitive = base.endsWith('_cs');
  const fn = operator === 'matches regex' ? 'regex' : STRING_PREDICATES[caseSensitive ? base.slice(0, -3) : base];
  if (!fn) fail('syntax', `'*' stands for every field only before a string operator such as has, contains or matches regex, not '${operator}'`, at);
  if (negated) fail('syntax', `'* ${operator}' is ambiguous; write not(* ${base} …) for rows where no field matches`, at);
  const right = asString(bindExpression(node.right, scope, context));
  return anyColumn(scope.columns, (text) => call(fn, [text, right], 'bool', fn === 'regex' ? true : caseSensitive));
}

/**
 * Makes two operands comparable (apl.md): numbers with numbers; a string with a number or a
 * bool compares as strings; a datetime with a string literal that is a datetime; a dynamic value
 * as the other side's type.
 */
function unifyForComparison(left: Expr, right: Expr, node: Ast.Expression, operator: string, context: BindContext): [Expr, Expr] {
  if (left.type === right.type) {
    return left.type === 'dynamic' ? [asString(left), asString(right)] : [left, right];
  }
  if (isNumeric(left.type) && isNumeric(right.type)) return [left, right];
  if (left.type === 'dynamic') return [fromDynamic(left, right.type), right];
  if (right.type === 'dynamic') return [left, fromDynamic(right, left.type)];
  if (context.strictTypes) {
    fail('type_mismatch', `with set stricttypes, ${left.type} and ${right.type} are not compared using '${operator}'; convert one side, such as with tostring() or toint()`, node);
  }
  const stringSide = left.type === 'string' ? 'left' : right.type === 'string' ? 'right' : undefined;
  const other = stringSide === 'left' ? right : left;
  const text = stringSide === 'left' ? left : right;
  if (stringSide && (isNumeric(other.type) || other.type === 'bool')) return [asString(left), asString(right)];
  if (stringSide && (other.type === 'datetime' || other.type === 'timespan') && text.kind === 'literal' && typeof text.value === 'string') {
    const value = other.type === 'datetime' ? parseDatetime(text.value) : undefined;
    if (value !== undefined && value >= INT64_MIN && value <= INT64_MAX) {
      const converted = literal('datetime', value);
      return stringSide === 'left' ? [converted, right] : [left, converted];
    }
  }
  return fail('type_mismatch', `cannot compare ${left.type} with ${right.type} using '${operator}'`, node);
}

function bindArithmetic(operator: '+' | '-' | '*' | '/' | '%', left: Expr, right: Expr, node: Ast.Binary): Expr {
  const fn: Operator = operator === '+' ? 'add' : operator === '-' ? 'sub' : operator === '*' ? 'mul' : operator === '/' ? 'div' : 'mod';
  const l = left.type === 'dynamic' ? fromDynamic(left, 'real') : left;
  const r = right.type === 'dynamic' ? fromDynamic(right, 'real') : right;
  const type = arithmeticType(operator, l.type, r.type);
  if (!type) {
    const hint = l.type === 'string' || r.type === 'string' ? '; join strings with strcat()' : '';
    fail('type_mismatch', `'${operator}' cannot combine ${l.type} and ${r.type}${hint}`, { loc: node.operatorLoc });
  }
  return call(fn, [l, r], type);
}

/** The result type of arithmetic, or undefined where APL has none. */
function arithmeticType(operator: string, l: ScalarType, r: ScalarType): ScalarType | undefined {
  if (isNumeric(l) && isNumeric(r)) return l === 'long' && r === 'long' ? 'long' : 'real';
  switch (operator) {
    case '+':
      if ((l === 'datetime' && r === 'timespan') || (l === 'timespan' && r === 'datetime')) return 'datetime';
      if (l === 'timespan' && r === 'timespan') return 'timespan';
      return undefined;
    case '-':
      if (l === 'datetime' && r === 'datetime') return 'timespan';
      if (l === 'datetime' && r === 'timespan') return 'datetime';
      if (l === 'timespan' && r === 'timespan') return 'timespan';
      return undefined;
    case '*':
      if ((l === 'timespan' && isNumeric(r)) || (isNumeric(l) && r === 'timespan')) return 'timespan';
      return undefined;
    case '/':
      if (l === 'timespan' && r === 'timespan') return 'real';
      if (l === 'timespan' && isNumeric(r)) return 'timespan';
      return undefined;
    case '%':
      if (l === 'timespan' && r === 'timespan') return 'timespan';
      return undefined;
    default:
      return undefined;
  }
}

function bindIn(node: Ast.InExpression, scope: Scope, context: BindContext): Expr {
  const value = bindExpression(node.value, scope, context);
  const items: Expr[] = [];
  for (const itemNode of node.items) {
    const item = bindExpression(itemNode, scope, context);
    // A dynamic array (a literal or a let) stands for its elements.
    if (item.type === 'dynamic' && item.kind === 'literal' && typeof item.value === 'string') {
      const parsed: unknown = JSON.parse(item.value);
      if (Array.isArray(parsed)) {
        for (const element of parsed) items.push(jsonElement(element, itemNode));
        continue;
      }
    }
    items.push(item);
  }
  const coerced = items.map((item, index) => {
    if (node.caseInsensitive) return asString(item);
    return unifyForComparison(value, item, node.items[index] ?? node, 'in', context)[1];
  });
  const subject = node.caseInsensitive ? asString(value) : coerced.length > 0 ? unifyForComparison(value, coerced[0] as Expr, node, 'in', context)[0] : value;
  const test = call('in', [subject, ...coerced], 'bool', !node.caseInsensitive);
  return node.negated ? call('not', [test], 'bool') : test;
}

function jsonElement(element: unknown, node: Ast.Expression): Expr {
  if (typeof element === 'string') return literal('string', element);
  if (typeof element === 'boolean') return literal('bool', element);
  if (typeof element === 'number') return Number.isInteger(element) ? literal('long', BigInt(element)) : literal('real', element);
  if (element === null) return literal('dynamic', null);
  return fail('type_mismatch', 'in (…) takes scalar values; this array holds an array or an object', node);
}

function bindBetween(node: Ast.BetweenExpression, scope: Scope, context: BindContext): Expr {
  const value = bindExpression(node.value, scope, context);
  const [v1, low] = unifyForComparison(value, bindExpression(node.low, scope, context), node.low, 'between', context);
  const [v2, high] = unifyForComparison(v1, bindExpression(node.high, scope, context), node.high, 'between', context);
  // The high end may have turned the value into a string: the low end must follow.
  const [subject, lowEnd] = v2.type === v1.type ? [v2, low] : unifyForComparison(v2, low, node.low, 'between', context);
  const comparable = (e: Expr): boolean => e.type === subject.type || (isNumeric(e.type) && isNumeric(subject.type));
  if (!comparable(lowEnd) || !comparable(high)) fail('type_mismatch', `between needs ends of the value's type, got ${lowEnd.type} .. ${high.type} for ${subject.type}`, node);
  if (subject.type === 'bool' || subject.type === 'dynamic') fail('type_mismatch', `between cannot order ${subject.type} values`, node);
  const test = call('between', [subject, lowEnd, high], 'bool');
  return node.negated ? call('not', [test], 'bool') : test;
}
