import type * as Ast from '../apl/ast.js';
import { call, isNumeric, type BindContext, type Scope } from '../check/context.js';
import { bindExpression } from '../check/expressions.js';
import type { Expr } from '../plan/types.js';
import { NOWHERE, atPath, bindField, callNode, fieldNode, valueNode } from './bind.js';
import type { LeafOp, StructuredFilter } from './request.js';

/**
 * A structured filter as a predicate, in APL's own words (apl.md): `==` and `!=` compare exactly
 * (`null` asks whether the field is missing); `>`… order numbers as numbers and strings as
 * strings; the string ops are case-insensitive unless `caseSensitive` is true (`regexp` then
 * matches as if its pattern began with `(?i)`); `exists` asks for a value. `and` and `or` of
 * no children restrict nothing; `not` negates all of its children together; a comparison's own
 * children must hold as well.
 */
export function bindFilter(filter: StructuredFilter, scope: Scope, context: BindContext): Expr | undefined {
  const children = filter.children.map((child) => bindFilter(child, scope, context)).filter((child): child is Expr => child !== undefined);
  switch (filter.op) {
    case 'and':
      return conjunction('and', children);
    case 'or':
      return conjunction('or', children);
    case 'not': {
      const all = conjunction('and', children);
      return all ? call('not', [all], 'bool') : undefined;
    }
    default:
      return conjunction('and', [bindLeaf(filter, scope, context), ...children]);
  }
}

/** `a and b and c…` as a balanced tree: a thousand conditions nest ten deep, not a thousand. */
function conjunction(fn: 'and' | 'or', items: readonly Expr[]): Expr | undefined {
  if (items.length <= 1) return items[0];
  const middle = items.length >> 1;
  return call(fn, [conjunction(fn, items.slice(0, middle)) as Expr, conjunction(fn, items.slice(middle)) as Expr], 'bool');
}

type StringOp = Exclude<LeafOp, 'exists' | 'not-exists' | '==' | '!=' | '>' | '>=' | '<' | '<=' | 'regexp' | 'not-regexp'>;

const STRING_OPS: Readonly<Record<StringOp, { operator: string; negated: boolean }>> = {
  'starts-with': { operator: 'startswith', negated: false },
  'not-starts-with': { operator: 'startswith', negated: true },
  'ends-with': { operator: 'endswith', negated: false },
  'not-ends-with': { operator: 'endswith', negated: true },
  contains: { operator: 'contains', negated: false },
  'not-contains': { operator: 'contains', negated: true },
};

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function bindLeaf(filter: Extract<StructuredFilter, { field: string }>, scope: Scope, context: BindContext): Expr {
  // The field first, so that an unknown one is reported at `.field`.
  const subject = bindField(filter.field, `${filter.path}.field`, scope, context);
  const field = fieldNode(filter.field);
  const predicate = (node: Ast.Expression): Expr => atPath(filter.path, `(${filter.op} on ${JSON.stringify(filter.field)})`, () => bindExpression(node, scope, context));
  const binary = (operator: string, right: Ast.Expression): Ast.Binary => ({ kind: 'Binary', operator, operatorLoc: NOWHERE, left: field, right, loc: NOWHERE });
  const not = (node: Ast.Expression): Ast.Expression => callNode('not', [node]);
  const value = filter.value;

  switch (filter.op) {
    case 'exists':
      return predicate(callNode('isnotnull', [field]));
    case 'not-exists':
      return predicate(callNode('isnull', [field]));
    case '==':
    case '!=':
      if (value === null) return predicate(callNode(filter.op === '==' ? 'isnull' : 'isnotnull', [field]));
      return predicate(binary(filter.op, comparand(value, subject)));
    case '>':
    case '>=':
    case '<':
    case '<=':
      return predicate(binary(filter.op, comparand(value ?? '', subject)));
    case 'regexp':
    case 'not-regexp': {
      const pattern = filter.caseSensitive ? String(value) : `(?i)${String(value)}`;
      const match = binary('matches regex', valueNode(pattern));
      return predicate(filter.op === 'regexp' ? match : not(match));
    }
    default: {
      const spelled = STRING_OPS[filter.op];
      const operator = `${spelled.negated ? '!' : ''}${spelled.operator}${filter.caseSensitive ? '_cs' : ''}`;
      return predicate(binary(operator, valueNode(String(value))));
    }
  }
}

/**
 * The literal a field is compared with. A number sent as a string is compared as a number with
 * a numeric field (forms send text), where APL would compare the two as strings.
 */
function comparand(value: string | number | boolean, subject: Expr): Ast.Expression {
  if (typeof value === 'string' && isNumeric(subject.type) && NUMBER.test(value.trim())) {
    const number = Number(value);
    if (Number.isFinite(number)) return valueNode(number);
  }
  return valueNode(value);
}
