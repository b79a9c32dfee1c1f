import { InputError } from '../../common/errors.js';
import type { AplError } from '../apl/errors.js';

/**
 * What is wrong with one member of a structured query, named by its path in the request
 * (`aggregations[1].op`, `filter.children[0].value`): the message starts with the path, and the
 * reply carries it as `detail.path` for programs. An error inside a virtual field's APL
 * expression also carries the expression's line and column.
 */
export class StructuredQueryError extends InputError {
  constructor(
    readonly path: string,
    message: string,
    options: { cause?: unknown; position?: { line: number; column: number } } = {},
  ) {
    super(message, {
      code: 'invalid_structured_query',
      cause: options.cause,
      replyMembers: { detail: { path, ...(options.position ? { line: options.position.line, column: options.position.column } : {}) } },
    });
  }

  /** An APL error (unknown field, wrong type…) met while binding the member at `path`, which is no APL text. */
  static fromApl(path: string, error: AplError, what: string): StructuredQueryError {
    return new StructuredQueryError(path, `Invalid ${path}${what ? ` ${what}` : ''}: ${sentence(error.detail)}`, { cause: error });
  }

  /** An APL error inside the APL text at `path` (a virtual field's expression), with its line and column. */
  static inExpression(path: string, error: AplError): StructuredQueryError {
    return new StructuredQueryError(path, `Invalid ${path}: ${sentence(error.message)}`, { cause: error, position: error.position });
  }
}

function sentence(text: string): string {
  return /[.?!]$/.test(text) ? text : `${text}.`;
}
