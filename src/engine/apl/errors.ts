import { InputError } from '../../common/errors.js';

/**
 * The one error type of the APL front end: every lexer, parser and check error is an AplError
 * with the 1-based line and column of the offending text, so that the HTTP reply (wire.md
 * `detail`) and the CLI's caret code frame point at it.
 */

/** Stable machine names of compile errors; `compileErrorCode` carries their number on the wire. */
export const APL_ERROR_CODES = {
  syntax: 1,
  unknown_field: 2,
  unknown_function: 3,
  wrong_arity: 4,
  type_mismatch: 5,
  unknown_dataset: 6,
  limit_exceeded: 7,
  invalid_argument: 8,
  /** Documented APL that the local service cannot run (a hosted-only data source, say): the message says why. */
  not_available_locally: 9,
} as const;

export type AplErrorCode = keyof typeof APL_ERROR_CODES;

export interface SourcePosition {
  /** 1-based. */
  readonly line: number;
  /** 1-based, in Unicode code points. */
  readonly column: number;
}

/** Compile errors (syntax and semantics alike) are errorType 1 of wire.md's `detail`. */
export const COMPILE_ERROR_TYPE = 1;

/** HTTP 400 with `detail: {errorType, compileErrorCode, line, column, message}` (apl.md). */
export class AplError extends InputError {
  readonly position: SourcePosition;

  constructor(
    readonly kind: AplErrorCode,
    /** What is wrong, without the position: "unknown field 'statsu'; did you mean 'status'?". */
    readonly detail: string,
    at: SourcePosition,
  ) {
    const position = { line: at.line, column: at.column };
    super(`line ${position.line}, column ${position.column}: ${detail}`, {
      code: `apl_${kind}`,
      replyMembers: {
        detail: { errorType: COMPILE_ERROR_TYPE, compileErrorCode: APL_ERROR_CODES[kind], line: position.line, column: position.column, message: detail },
      },
    });
    this.position = position;
  }

  get line(): number {
    return this.position.line;
  }

  get column(): number {
    return this.position.column;
  }
}

/** Where a UTF-16 offset of `text` lies, as 1-based line and code-point column. */
export function positionAt(text: string, offset: number): SourcePosition {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: [...text.slice(lineStart, end)].length + 1 };
}

/**
 * The line of `text` the position is on, with a caret under the column:
 *
 *     2 | | where statsu == 200
 *       |         ^
 */
export function codeFrame(text: string, position: SourcePosition): string {
  const lines = text.split('\n');
  const source = (lines[position.line - 1] ?? '').replace(/\r$/, '').replace(/\t/g, ' ');
  const gutter = String(position.line);
  const pad = ' '.repeat(gutter.length);
  const caretPad = ' '.repeat(Math.max(0, position.column - 1));
  return `${gutter} | ${source}\n${pad} | ${caretPad}^`;
}
