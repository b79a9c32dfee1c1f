/** Token kinds are their own spelling where they have one (graphql-js style), so errors can quote them. */
export const TokenKind = {
  EOF: '<end of query>',
  NAME: 'Name',
  STRING: 'String',
  INT: 'Int',
  REAL: 'Real',
  TIMESPAN: 'Timespan',
  /** `datetime(…)` or `timespan(…)` with its raw content: `datetime(2024-01-15T14:00:00Z)`. */
  TYPED_LITERAL: 'TypedLiteral',
  PIPE: '|',
  SEMICOLON: ';',
  COMMA: ',',
  DOT: '.',
  DOT_DOT: '..',
  PAREN_L: '(',
  PAREN_R: ')',
  BRACKET_L: '[',
  BRACKET_R: ']',
  BRACE_L: '{',
  BRACE_R: '}',
  COLON: ':',
  ASSIGN: '=',
  EQ: '==',
  NEQ: '!=',
  LTGT: '<>',
  LT: '<',
  LTE: '<=',
  GT: '>',
  GTE: '>=',
  EQ_TILDE: '=~',
  NOT_TILDE: '!~',
  PLUS: '+',
  MINUS: '-',
  STAR: '*',
  SLASH: '/',
  PERCENT: '%',
} as const;

export type TokenKind = (typeof TokenKind)[keyof typeof TokenKind];

export interface Token {
  readonly kind: TokenKind;
  /**
   * Names: the identifier (`where`, `!contains`, `in~`, `project-away`); strings: the decoded
   * value; numbers: their text; timespans: nanoseconds as decimal text; typed literals: the
   * type (`datetime`) — the content is in `raw`.
   */
  readonly value: string;
  readonly raw?: string;
  /** UTF-16 offsets into the query text. */
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly column: number;
}
