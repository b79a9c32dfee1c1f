import type * as Ast from '../apl/ast.js';
import type { Expr } from '../plan/types.js';
import { TYPE_NAMES, call, checkArity, fail, isNumeric, type BindContext, type Scope } from './context.js';
import { bindExpression } from './expressions.js';

/** User functions being expanded: a function that calls itself is refused instead of recursing forever. */
const expanding = new WeakSet<Ast.FunctionDefinition>();

/**
 * A call of a `let` function: the arguments are bound in the caller's scope and checked against
 * the declared types, then the body is bound with the parameters as lets (inlined: the body may
 * name the caller's columns, as Kusto's functions may).
 */
export function bindUserFunction(name: string, definition: Ast.FunctionDefinition, node: Ast.Call, scope: Scope, context: BindContext): Expr {
  const required = definition.params.filter((param) => param.defaultValue === undefined).length;
  checkArity(name, node, required, definition.params.length);
  if (expanding.has(definition)) fail('invalid_argument', `the function '${name}' calls itself; APL functions cannot recurse`, node.name);
  const lets = new Map(scope.lets);
  definition.params.forEach((param, index) => {
    const argument = node.args[index] ?? param.defaultValue;
    if (!argument) throw new Error('Arity was checked.');
    const bound = bindExpression(argument, scope, context);
    lets.set(param.name.name, asParameterType(bound, param, name, argument));
  });
  expanding.add(definition);
  try {
    const inner: Scope = { columns: scope.columns, lets };
    for (const statement of definition.lets) {
      if (statement.value.kind !== 'Function' && statement.value.kind !== 'Tabular') {
        lets.set(statement.name.name, bindExpression(statement.value, inner, context));
      } else {
        fail('invalid_argument', 'a let inside a function body must be a scalar', statement);
      }
    }
    return bindExpression(definition.body, inner, context);
  } finally {
    expanding.delete(definition);
  }
}

function asParameterType(value: Expr, param: Ast.FunctionParam, name: string, argument: Ast.Expression): Expr {
  const type = Object.hasOwn(TYPE_NAMES, param.type.name) ? TYPE_NAMES[param.type.name] : undefined;
  if (!type) fail('type_mismatch', `unknown type '${param.type.name}' for parameter ${param.name.name}; expected one of ${Object.keys(TYPE_NAMES).join(', ')}`, param.type);
  // An untyped (dynamic) parameter takes any value as it is.
  if (type === 'dynamic' || value.type === type) return value;
  if (type === 'real' && isNumeric(value.type)) return call('todouble', [value], 'real');
  if (value.kind === 'literal' && value.value === null) return { ...value, type };
  return fail('type_mismatch', `${name}() expects ${type} for parameter ${param.name.name}, got ${value.type}`, argument);
}
