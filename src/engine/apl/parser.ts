import type * as Ast from './ast.js';
import { AplError } from './errors.js';
import { DEFAULT_MAX_TOKENS, tokenize } from './lexer.js';
import { INT64_MAX, INT64_MIN, parseDatetime, parseTimespan } from './literals.js';
import { closestName } from './suggest.js';
import { TokenKind, type Token } from './tokens.js';

export interface ParseOptions {
  readonly maxTokens?: number;
  /** Deepest nesting of expressions (parentheses, calls, dynamic literals): recursion stays bounded. */
  readonly maxDepth?: number;
}

export const DEFAULT_MAX_DEPTH = 100;

export const TABULAR_OPERATORS = [
  'where',
  'extend',
  'project',
  'project-away',
  'project-keep',
  'project-rename',
  'project-reorder',
  'summarize',
  'sort',
  'order',
  'take',
  'limit',
  'top',
  'count',
  'distinct',
  'search',
  'parse',
  'parse-where',
  'parse-kv',
  'extend-valid',
  'sample',
  'redact',
] as const;

/** String and set operators that sit between two operands, as they are spelled. */
export const STRING_OPERATORS: ReadonlySet<string> = new Set(
  ['contains', 'contains_cs', 'startswith', 'startswith_cs', 'endswith', 'endswith_cs', 'has', 'has_cs', 'hasprefix', 'hasprefix_cs', 'hassuffix', 'hassuffix_cs'].flatMap(
    (name) => [name, `!${name}`],
  ),
);

const COMPARISON_TOKENS: ReadonlySet<string> = new Set([
  TokenKind.EQ,
  TokenKind.NEQ,
  TokenKind.LTGT,
  TokenKind.LT,
  TokenKind.LTE,
  TokenKind.GT,
  TokenKind.GTE,
  TokenKind.EQ_TILDE,
  TokenKind.NOT_TILDE,
]);

/** Names that write a typed null: `int(null)`. */
const NULLABLE_TYPES: ReadonlySet<string> = new Set(['bool', 'boolean', 'int', 'long', 'real', 'double', 'decimal', 'string', 'datetime', 'timespan', 'dynamic']);

/** Parses one APL query. Throws AplError, positioned, at the first error. */
export function parse(text: string, options: ParseOptions = {}): Ast.Query {
  const tokens = tokenize(text, { maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS });
  return new Parser(tokens, options.maxDepth ?? DEFAULT_MAX_DEPTH).parseQuery();
}

/**
 * Parses a text that is one scalar expression and nothing else, such as a structured query's
 * virtual field (`toint(status) >= 500`). Throws AplError, positioned in `text`.
 */
export function parseExpression(text: string, options: ParseOptions = {}): Ast.Expression {
  const tokens = tokenize(text, { maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS });
  return new Parser(tokens, options.maxDepth ?? DEFAULT_MAX_DEPTH).parseWholeExpression();
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly maxDepth: number,
  ) {}

  // ── Query and operators ──────────────────────────────────────────────────────────────────

  parseQuery(): Ast.Query {
    const first = this.peek();
    const lets: Ast.LetStatement[] = [];
    const sets: Ast.SetStatement[] = [];
    while (this.peekName('let') || (this.peekName('set') && this.peekAt(1, TokenKind.NAME))) {
      if (this.peekName('let')) lets.push(this.parseLet());
      else sets.push(this.parseSet());
      this.expect(TokenKind.SEMICOLON);
    }
    if (this.peek().kind === TokenKind.EOF) throw this.unexpected(this.peek(), 'a dataset name, such as [\'my-dataset\']');
    const source = this.parseSource();
    const operators: Ast.Operator[] = [];
    while (this.peek().kind === TokenKind.PIPE) {
      this.advance();
      operators.push(this.parseOperator());
    }
    if (this.peek().kind === TokenKind.SEMICOLON) this.advance();
    if (this.peek().kind !== TokenKind.EOF) throw this.unexpected(this.peek(), "'|' or the end of the query");
    return { kind: 'Query', sets, lets, source, operators, loc: this.locFrom(first) };
  }

  parseWholeExpression(): Ast.Expression {
    const expression = this.parseExpression();
    if (this.peek().kind !== TokenKind.EOF) throw this.unexpected(this.peek(), 'an operator or the end of the expression');
    return expression;
  }

  private parseLet(): Ast.LetStatement {
    const start = this.advance();
    const name = this.parseIdentifier('a name for the let statement');
    this.expect(TokenKind.ASSIGN);
    const value = this.parseExpression();
    return { kind: 'Let', name, value, loc: this.locFrom(start) };
  }

  private parseSet(): Ast.SetStatement {
    const start = this.advance();
    const name = this.parseIdentifier('the name of a query option, such as stricttypes');
    const value = this.accept(TokenKind.ASSIGN) ? this.parseExpression() : undefined;
    return { kind: 'Set', name, value, loc: this.locFrom(start) };
  }

  private parseSource(): Ast.Source {
    const start = this.peek();
    if (start.kind === TokenKind.BRACKET_L) {
      const name = this.parseBracketedName();
      return { kind: 'Source', name, loc: this.locFrom(start) };
    }
    if (start.kind === TokenKind.NAME && !start.value.startsWith('!')) {
      this.advance();
      return { kind: 'Source', name: start.value, loc: this.locFrom(start) };
    }
    throw this.unexpected(start, "a dataset name, such as ['my-dataset']");
  }

  private parseOperator(): Ast.Operator {
    const token = this.peek();
    if (token.kind !== TokenKind.NAME) throw this.unexpected(token, 'a tabular operator, such as where, summarize or take');
    this.advance();
    switch (token.value) {
      case 'where':
        return { kind: 'Where', predicate: this.parseExpression(), loc: this.locFrom(token) };
      case 'extend':
        return { kind: 'Extend', assignments: this.parseList(() => this.parseAssignment()), loc: this.locFrom(token) };
      case 'project':
        return { kind: 'Project', assignments: this.parseList(() => this.parseAssignment()), loc: this.locFrom(token) };
      case 'project-away':
        return { kind: 'ProjectAway', patterns: this.parseList(() => this.parseNamePattern()), loc: this.locFrom(token) };
      case 'project-keep':
        return { kind: 'ProjectKeep', patterns: this.parseList(() => this.parseNamePattern()), loc: this.locFrom(token) };
      case 'project-reorder':
        return { kind: 'ProjectReorder', keys: this.parseList(() => this.parseReorderKey()), loc: this.locFrom(token) };
      case 'project-rename':
        return { kind: 'ProjectRename', renames: this.parseList(() => this.parseRename()), loc: this.locFrom(token) };
      case 'summarize':
        return this.parseSummarize(token);
      case 'sort':
      case 'order':
        this.expectName('by');
        return { kind: 'Sort', keys: this.parseList(() => this.parseSortKey()), loc: this.locFrom(token) };
      case 'take':
      case 'limit':
        return { kind: 'Take', count: this.parseExpression(), loc: this.locFrom(token) };
      case 'top': {
        const count = this.parseExpression();
        this.expectName('by');
        return { kind: 'Top', count, key: this.parseSortKey(), loc: this.locFrom(token) };
      }
      case 'count':
        return { kind: 'Count', loc: this.locFrom(token) };
      case 'distinct':
        return this.parseDistinct(token);
      case 'search':
        return this.parseSearch(token);
      case 'parse':
      case 'parse-where':
        return this.parseParse(token, token.value === 'parse-where');
      case 'parse-kv':
        return this.parseParseKv(token);
      case 'extend-valid':
        return { kind: 'ExtendValid', assignments: this.parseList(() => this.parseAssignment()), loc: this.locFrom(token) };
      case 'sample':
        return { kind: 'Sample', proportion: this.parseExpression(), loc: this.locFrom(token) };
      case 'redact':
        return this.parseRedact(token);
      default: {
        const suggestion = closestName(token.value, TABULAR_OPERATORS);
        const hint = suggestion ? `; did you mean '${suggestion}'?` : `; expected one of ${TABULAR_OPERATORS.join(', ')}`;
        throw new AplError('syntax', `unknown tabular operator '${token.value}'${hint}`, token);
      }
    }
  }

  private parseSummarize(start: Token): Ast.SummarizeOperator {
    const aggregates = this.peekName('by') || this.atOperatorEnd() ? [] : this.parseList(() => this.parseAssignment());
    let by: Ast.Assignment[] = [];
    if (this.peekName('by')) {
      this.advance();
      by = this.parseList(() => this.parseAssignment());
    }
    if (aggregates.length === 0 && by.length === 0) throw this.unexpected(this.peek(), "an aggregation such as count(), or 'by'");
    return { kind: 'Summarize', aggregates, by, loc: this.locFrom(start) };
  }

  private parseDistinct(start: Token): Ast.DistinctOperator {
    if (this.peek().kind === TokenKind.STAR) {
      this.advance();
      return { kind: 'Distinct', columns: [], loc: this.locFrom(start) };
    }
    return { kind: 'Distinct', columns: this.parseList(() => this.parseColumnName()), loc: this.locFrom(start) };
  }

  private parseSearch(start: Token): Ast.SearchOperator {
    let caseSensitive = false;
    if (this.peekName('kind')) {
      this.advance();
      this.expect(TokenKind.ASSIGN);
      const kind = this.parseIdentifier('case_sensitive or case_insensitive');
      if (kind.name === 'case_sensitive') caseSensitive = true;
      else if (kind.name !== 'case_insensitive' && kind.name !== 'default') {
        throw new AplError('syntax', `unknown search kind '${kind.name}'; expected case_sensitive or case_insensitive`, kind.loc);
      }
    }
    if (this.peekName('in') && this.peekAt(1, TokenKind.PAREN_L)) {
      throw new AplError('invalid_argument', 'search in (…) searches several datasets, which is not supported here; search one dataset with [\'dataset\'] | search …', this.peek());
    }
    if (this.atOperatorEnd()) throw this.unexpected(this.peek(), 'what to search for, such as "timeout", "*time*" or method:"GET"');
    const predicate = this.parseSearchOr();
    return { kind: 'Search', predicate, caseSensitive, loc: this.locFrom(start) };
  }

  private parseSearchOr(): Ast.SearchPredicate {
    return this.parseSearchLogical('or', () => this.parseSearchLogical('and', () => this.parseSearchUnary()));
  }

  private parseSearchLogical(operator: 'and' | 'or', operand: () => Ast.SearchPredicate): Ast.SearchPredicate {
    const start = this.peek();
    let left = operand();
    while (this.peekName(operator)) {
      this.advance();
      const right = operand();
      left = { kind: 'SearchLogical', operator, left, right, loc: this.locFrom(start) };
    }
    return left;
  }

  /**
   * One operand of a search predicate: a term, `field:term`, `*`, `not …`, a parenthesised
   * predicate, or a bool expression. `(a + b) > 3` is an expression that starts like a group:
   * a group followed by more of an expression is read again as an expression.
   */
  private parseSearchUnary(): Ast.SearchPredicate {
    const start = this.peek();
    this.enter();
    try {
      if (this.peekName('not')) {
        this.advance();
        return { kind: 'SearchNot', operand: this.parseSearchUnary(), loc: this.locFrom(start) };
      }
      if (start.kind === TokenKind.STAR && this.searchOperandEndsAt(1)) {
        this.advance();
        return { kind: 'SearchAll', loc: this.locFrom(start) };
      }
      if (start.kind === TokenKind.STRING && this.searchOperandEndsAt(1)) {
        this.advance();
        return { kind: 'SearchTerm', field: undefined, term: { kind: 'String', value: start.value, loc: this.locOf(start) }, loc: this.locFrom(start) };
      }
      const fieldTerm = this.trySearchFieldTerm();
      if (fieldTerm) return fieldTerm;
      if (start.kind === TokenKind.PAREN_L) {
        const mark = this.index;
        this.advance();
        const inner = this.parseSearchOr();
        this.expect(TokenKind.PAREN_R);
        if (this.searchOperandEndsAt(0)) return inner;
        this.index = mark;
      }
      return { kind: 'SearchExpression', expression: this.parseComparison(), loc: this.locFrom(start) };
    } finally {
      this.depth--;
    }
  }

  /** `field:"term"` or `['geo.city']:"term"`, if that is what comes next. */
  private trySearchFieldTerm(): Ast.SearchTerm | undefined {
    const start = this.peek();
    const bracketed = start.kind === TokenKind.BRACKET_L && this.peekAt(1, TokenKind.STRING) && this.peekAt(2, TokenKind.BRACKET_R);
    if (!bracketed && (start.kind !== TokenKind.NAME || start.value.startsWith('!'))) return undefined;
    const mark = this.index;
    const field = this.parseColumnName();
    if (!this.accept(TokenKind.COLON)) {
      this.index = mark;
      return undefined;
    }
    const term = this.peek();
    if (term.kind !== TokenKind.STRING) throw this.unexpected(term, `the term to find in '${field.name}' as a string, such as ${field.name}:"GET"`);
    this.advance();
    return { kind: 'SearchTerm', field, term: { kind: 'String', value: term.value, loc: this.locOf(term) }, loc: this.locFrom(start) };
  }

  /** Whether the search operand ends `ahead` tokens on: at `and`, `or`, `)`, `|` or the end. */
  private searchOperandEndsAt(ahead: number): boolean {
    const token = this.tokens[this.index + ahead];
    if (!token) return true;
    if (token.kind === TokenKind.NAME) return token.value === 'and' || token.value === 'or';
    return token.kind === TokenKind.PAREN_R || token.kind === TokenKind.PIPE || token.kind === TokenKind.EOF || token.kind === TokenKind.SEMICOLON;
  }

  /** `parse [kind=simple|relaxed|regex] [flags=…] expression with [*] "text" name[:type] …`. */
  private parseParse(start: Token, where: boolean): Ast.ParseOperator {
    let mode: Ast.ParseOperator['mode'] = 'simple';
    let flags: Ast.StringLiteral | undefined;
    if (this.peekName('kind') && this.peekAt(1, TokenKind.ASSIGN)) {
      this.advance();
      this.advance();
      const kind = this.parseIdentifier('simple, relaxed or regex');
      if (kind.name !== 'simple' && kind.name !== 'relaxed' && kind.name !== 'regex') {
        throw new AplError('syntax', `unknown parse kind '${kind.name}'; expected simple, relaxed or regex`, kind.loc);
      }
      mode = kind.name;
    }
    if (this.peekName('flags') && this.peekAt(1, TokenKind.ASSIGN)) {
      this.advance();
      this.advance();
      const token = this.peek();
      if (token.kind !== TokenKind.NAME && token.kind !== TokenKind.STRING) throw this.unexpected(token, 'regular expression flags such as i or Us');
      this.advance();
      flags = { kind: 'String', value: token.value, loc: this.locOf(token) };
    }
    const source = this.parseExpression();
    this.expectName('with');
    const pattern: Ast.ParseItem[] = [];
    while (!this.atOperatorEnd()) {
      const token = this.peek();
      if (token.kind === TokenKind.STAR) {
        this.advance();
        pattern.push({ kind: 'ParseWildcard', loc: this.locOf(token) });
      } else if (token.kind === TokenKind.STRING) {
        this.advance();
        pattern.push({ kind: 'String', value: token.value, loc: this.locOf(token) });
      } else if (token.kind === TokenKind.NAME || token.kind === TokenKind.BRACKET_L) {
        pattern.push(this.parseCapture());
      } else {
        throw this.unexpected(token, "'*', a string or a column name of the pattern");
      }
    }
    if (pattern.length === 0) throw this.unexpected(this.peek(), 'the pattern to parse, such as * "id=" id:long');
    return { kind: 'Parse', mode, flags, source, pattern, where, loc: this.locFrom(start) };
  }

  /** `name` or `name:type`. */
  private parseCapture(): Ast.ParseCapture {
    const start = this.peek();
    const name = this.parseColumnName();
    let type: Ast.Identifier | undefined;
    if (this.accept(TokenKind.COLON)) type = this.parseIdentifier('a type such as string, long, real, datetime or bool');
    return { kind: 'ParseCapture', name, type, loc: this.locFrom(start) };
  }

  /** `parse-kv expression as (key[:type], …) with (option = value, …)`. */
  private parseParseKv(start: Token): Ast.ParseKvOperator {
    const source = this.parseExpression();
    this.expectName('as');
    this.expect(TokenKind.PAREN_L);
    const keys = this.parseList(() => this.parseCapture());
    this.expect(TokenKind.PAREN_R);
    let options: Ast.NamedOption[] = [];
    if (this.peekName('with')) {
      this.advance();
      this.expect(TokenKind.PAREN_L);
      options = this.parseList(() => this.parseNamedOption());
      this.expect(TokenKind.PAREN_R);
    }
    return { kind: 'ParseKv', source, keys, options, loc: this.locFrom(start) };
  }

  private parseNamedOption(): Ast.NamedOption {
    const start = this.peek();
    const name = this.parseIdentifier('an option name');
    this.expect(TokenKind.ASSIGN);
    return { kind: 'NamedOption', name, value: this.parseExpression(), loc: this.locFrom(start) };
  }

  /** `redact [replaceToken=…] [replaceHash=…] [redactGroups=…] regex, … [on field, …]`. */
  private parseRedact(start: Token): Ast.RedactOperator {
    const options: Ast.NamedOption[] = [];
    while (this.peek().kind === TokenKind.NAME && this.peekAt(1, TokenKind.ASSIGN)) options.push(this.parseNamedOption());
    if (this.atOperatorEnd() || this.peekName('on')) throw this.unexpected(this.peek(), "the regular expression of what to redact, such as @'\\d{3}-\\d{2}-\\d{4}'");
    const patterns = this.parseList(() => this.parseExpression());
    let fields: Ast.NamePattern[] = [];
    if (this.peekName('on')) {
      this.advance();
      fields = this.parseList(() => this.parseNamePattern());
    }
    return { kind: 'Redact', options, patterns, fields, loc: this.locFrom(start) };
  }

  private parseAssignment(): Ast.Assignment {
    const start = this.peek();
    const next = this.tokens[this.index + 1];
    if (start.kind === TokenKind.NAME && next?.kind === TokenKind.ASSIGN && !start.value.startsWith('!')) {
      const name = this.parseIdentifier('a column name');
      this.advance();
      return { kind: 'Assignment', name, value: this.parseExpression(), loc: this.locFrom(start) };
    }
    if (start.kind === TokenKind.BRACKET_L && this.tokens[this.index + 3]?.kind === TokenKind.ASSIGN) {
      const name = this.parseColumnName();
      this.advance();
      return { kind: 'Assignment', name, value: this.parseExpression(), loc: this.locFrom(start) };
    }
    return { kind: 'Assignment', name: undefined, value: this.parseExpression(), loc: this.locFrom(start) };
  }

  private parseRename(): Ast.Rename {
    const start = this.peek();
    const newName = this.parseColumnName();
    this.expect(TokenKind.ASSIGN);
    const oldName = this.parseColumnName();
    return { kind: 'Rename', newName, oldName, loc: this.locFrom(start) };
  }

  /** A column name, bare or bracketed. */
  private parseColumnName(): Ast.Identifier {
    const start = this.peek();
    if (start.kind === TokenKind.BRACKET_L) {
      const name = this.parseBracketedName();
      return { kind: 'Identifier', name, loc: this.locFrom(start) };
    }
    return this.parseDottedIdentifier();
  }

  /** `geo.city` as one name, for operators that take column names rather than expressions. */
  private parseDottedIdentifier(): Ast.Identifier {
    const start = this.peek();
    let name = this.parseIdentifier('a column name').name;
    while (this.peek().kind === TokenKind.DOT && this.adjacent() && this.tokens[this.index + 1]?.kind === TokenKind.NAME) {
      this.advance();
      name += `.${this.advance().value}`;
    }
    return { kind: 'Identifier', name, loc: this.locFrom(start) };
  }

  /**
   * A name with `*` wildcards, written without spaces (`geo.*`, `*_ms`), or bracketed and then
   * perhaps followed by a wildcard (`['geo.']*`).
   */
  private parseNamePattern(): Ast.NamePattern {
    const start = this.peek();
    const parts = [''];
    let pattern = '';
    const append = (text: string): void => {
      parts[parts.length - 1] += text;
      pattern += text;
    };
    do {
      const token = this.peek();
      if (token.kind === TokenKind.STAR) {
        parts.push('');
        pattern += '*';
        this.advance();
      } else if (token.kind === TokenKind.BRACKET_L && this.peekAt(1, TokenKind.STRING)) {
        append(this.parseBracketedName());
      } else if (token.kind === TokenKind.NAME || token.kind === TokenKind.DOT || token.kind === TokenKind.INT) {
        append(token.kind === TokenKind.DOT ? '.' : token.value);
        this.advance();
      } else {
        break;
      }
    } while (this.adjacent());
    if (pattern === '') throw this.unexpected(start, 'a column name or a pattern such as geo.*');
    return { kind: 'NamePattern', pattern, wildcard: parts.length > 1, parts, loc: this.locFrom(start) };
  }

  /** `name`, `pattern*`, `*`, each perhaps with asc, desc, granny-asc or granny-desc. */
  private parseReorderKey(): Ast.ReorderKey {
    const start = this.peek();
    const pattern = this.parseNamePattern();
    let order: Ast.ReorderKey['order'];
    if (this.peekName('asc') || this.peekName('desc')) {
      order = this.advance().value as 'asc' | 'desc';
    } else if (this.peekName('granny') && this.peekAt(1, TokenKind.MINUS)) {
      this.advance();
      this.advance();
      const direction = this.peek();
      if (!this.adjacent() || (!this.peekName('asc') && !this.peekName('desc'))) throw this.unexpected(direction, "'granny-asc' or 'granny-desc'");
      order = `granny-${this.advance().value}` as 'granny-asc' | 'granny-desc';
    }
    return { kind: 'ReorderKey', pattern, order, loc: this.locFrom(start) };
  }

  private parseSortKey(): Ast.SortKey {
    const start = this.peek();
    const value = this.parseExpression();
    let direction: Ast.SortKey['direction'];
    let nulls: Ast.SortKey['nulls'];
    if (this.peekName('asc') || this.peekName('desc')) direction = this.advance().value as 'asc' | 'desc';
    if (this.peekName('nulls')) {
      this.advance();
      const which = this.peek();
      if (!this.peekName('first') && !this.peekName('last')) throw this.unexpected(which, "'first' or 'last'");
      nulls = this.advance().value as 'first' | 'last';
    }
    return { kind: 'SortKey', value, direction, nulls, loc: this.locFrom(start) };
  }

  // ── Expressions, lowest precedence first ──────────────────────────────────────────────────

  parseExpression(): Ast.Expression {
    this.enter();
    const expression = this.parseLogical('or', () => this.parseLogical('and', () => this.parseComparison()));
    this.depth--;
    return expression;
  }

  private parseLogical(operator: 'and' | 'or', operand: () => Ast.Expression): Ast.Expression {
    const start = this.peek();
    let left = operand();
    while (this.peekName(operator)) {
      const operatorToken = this.advance();
      const right = operand();
      left = { kind: 'Binary', operator, operatorLoc: this.locOf(operatorToken), left, right, loc: this.locFrom(start) };
    }
    return left;
  }

  private parseComparison(): Ast.Expression {
    const start = this.peek();
    const left = this.parseAdditive();
    const token = this.peek();
    if (COMPARISON_TOKENS.has(token.kind)) {
      this.advance();
      const operator = token.kind === TokenKind.LTGT ? '!=' : token.kind;
      return { kind: 'Binary', operator, operatorLoc: this.locOf(token), left, right: this.parseAdditive(), loc: this.locFrom(start) };
    }
    if (token.kind !== TokenKind.NAME) return left;
    if (STRING_OPERATORS.has(token.value)) {
      this.advance();
      return { kind: 'Binary', operator: token.value, operatorLoc: this.locOf(token), left, right: this.parseAdditive(), loc: this.locFrom(start) };
    }
    if (token.value === 'matches') {
      this.advance();
      this.expectName('regex');
      return { kind: 'Binary', operator: 'matches regex', operatorLoc: this.locOf(token), left, right: this.parseAdditive(), loc: this.locFrom(start) };
    }
    if (token.value === 'in' || token.value === '!in' || token.value === 'in~' || token.value === '!in~') {
      this.advance();
      this.expect(TokenKind.PAREN_L);
      const items = this.peek().kind === TokenKind.PAREN_R ? [] : this.parseList(() => this.parseExpression());
      this.expect(TokenKind.PAREN_R);
      return {
        kind: 'In',
        value: left,
        negated: token.value.startsWith('!'),
        caseInsensitive: token.value.endsWith('~'),
        items,
        loc: this.locFrom(start),
      };
    }
    if (token.value === 'between' || token.value === '!between') {
      this.advance();
      this.expect(TokenKind.PAREN_L);
      const low = this.parseAdditive();
      this.expect(TokenKind.DOT_DOT);
      const high = this.parseAdditive();
      this.expect(TokenKind.PAREN_R);
      return { kind: 'Between', value: left, negated: token.value === '!between', low, high, loc: this.locFrom(start) };
    }
    return left;
  }

  private parseAdditive(): Ast.Expression {
    return this.parseBinaryLevel([TokenKind.PLUS, TokenKind.MINUS], () => this.parseMultiplicative());
  }

  private parseMultiplicative(): Ast.Expression {
    return this.parseBinaryLevel([TokenKind.STAR, TokenKind.SLASH, TokenKind.PERCENT], () => this.parseUnary());
  }

  private parseBinaryLevel(operators: readonly TokenKind[], operand: () => Ast.Expression): Ast.Expression {
    const start = this.peek();
    let left = operand();
    while (operators.includes(this.peek().kind)) {
      const token = this.advance();
      const right = operand();
      left = { kind: 'Binary', operator: token.kind, operatorLoc: this.locOf(token), left, right, loc: this.locFrom(start) };
    }
    return left;
  }

  private parseUnary(): Ast.Expression {
    const token = this.peek();
    if (token.kind === TokenKind.MINUS || token.kind === TokenKind.PLUS) {
      this.advance();
      this.enter();
      const operand = this.parseUnary();
      this.depth--;
      return { kind: 'Unary', operator: token.kind, operand, loc: this.locFrom(token) };
    }
    return this.parsePostfix();
  }

  private parsePostfix(): Ast.Expression {
    const start = this.peek();
    let expression = this.parsePrimary();
    for (;;) {
      const token = this.peek();
      if (token.kind === TokenKind.DOT && this.tokens[this.index + 1]?.kind === TokenKind.NAME) {
        this.advance();
        const name = this.advance();
        expression = { kind: 'Member', object: expression, name: name.value, loc: this.locFrom(start) };
      } else if (token.kind === TokenKind.BRACKET_L) {
        this.advance();
        const index = this.parseExpression();
        this.expect(TokenKind.BRACKET_R);
        expression = { kind: 'Index', object: expression, index, loc: this.locFrom(start) };
      } else {
        return expression;
      }
    }
  }

  private parsePrimary(): Ast.Expression {
    const token = this.peek();
    switch (token.kind) {
      case TokenKind.STRING:
        this.advance();
        return { kind: 'String', value: token.value, loc: this.locFrom(token) };
      case TokenKind.INT:
        this.advance();
        return { kind: 'Int', value: BigInt(token.value), loc: this.locFrom(token) };
      case TokenKind.REAL: {
        this.advance();
        const value = Number(token.value);
        if (!Number.isFinite(value)) throw new AplError('syntax', `real ${token.value} is out of range`, token);
        return { kind: 'Real', value, loc: this.locFrom(token) };
      }
      case TokenKind.TIMESPAN:
        this.advance();
        return { kind: 'Timespan', value: BigInt(token.value), loc: this.locFrom(token) };
      case TokenKind.TYPED_LITERAL:
        this.advance();
        return this.typedLiteral(token);
      case TokenKind.PAREN_L: {
        this.advance();
        const inner = this.parseExpression();
        this.expect(TokenKind.PAREN_R);
        return inner;
      }
      case TokenKind.BRACKET_L: {
        const name = this.parseBracketedName();
        return { kind: 'Name', name, bracketed: true, loc: this.locFrom(token) };
      }
      case TokenKind.STAR:
        this.advance();
        return { kind: 'Star', loc: this.locFrom(token) };
      case TokenKind.NAME:
        return this.parseNameOrCall();
      default:
        throw this.unexpected(token, 'an expression');
    }
  }

  private parseNameOrCall(): Ast.Expression {
    const token = this.advance();
    if (token.value.startsWith('!')) throw this.unexpected(token, 'an expression');
    if (token.value === 'true' || token.value === 'false') return { kind: 'Bool', value: token.value === 'true', loc: this.locFrom(token) };
    if (token.value === 'null') {
      throw new AplError('syntax', 'a bare null has no type; write a typed null such as string(null), int(null) or dynamic(null)', token);
    }
    if (this.peek().kind !== TokenKind.PAREN_L) return { kind: 'Name', name: token.value, bracketed: false, loc: this.locFrom(token) };
    if (NULLABLE_TYPES.has(token.value) && this.peekAt(1, TokenKind.NAME, 'null') && this.peekAt(2, TokenKind.PAREN_R)) {
      this.index += 3;
      return { kind: 'TypedNull', type: token.value, loc: this.locFrom(token) };
    }
    if (token.value === 'dynamic') {
      this.advance();
      this.enter();
      const value = this.parseJson();
      this.depth--;
      this.expect(TokenKind.PAREN_R);
      return { kind: 'Dynamic', value, loc: this.locFrom(token) };
    }
    this.advance();
    this.enter();
    const argNames: (Ast.Identifier | undefined)[] = [];
    const args =
      this.peek().kind === TokenKind.PAREN_R
        ? []
        : this.parseList(() => {
            argNames.push(this.parseArgumentName());
            return this.parseExpression();
          });
    this.depth--;
    this.expect(TokenKind.PAREN_R);
    const name: Ast.Identifier = { kind: 'Identifier', name: token.value, loc: this.locOf(token) };
    return { kind: 'Call', name, args, ...(argNames.some((argName) => argName !== undefined) ? { argNames } : {}), loc: this.locFrom(token) };
  }

  /** `name =` (or `['name'] =`) before an argument: the name of an output column (`arg_max(x, longest = uri)`). */
  private parseArgumentName(): Ast.Identifier | undefined {
    const start = this.peek();
    if (start.kind === TokenKind.NAME && this.tokens[this.index + 1]?.kind === TokenKind.ASSIGN && !start.value.startsWith('!')) {
      const name = this.parseIdentifier('an argument name');
      this.advance();
      return name;
    }
    if (start.kind === TokenKind.BRACKET_L && this.tokens[this.index + 3]?.kind === TokenKind.ASSIGN) {
      const name = this.parseColumnName();
      this.advance();
      return name;
    }
    return undefined;
  }

  private typedLiteral(token: Token): Ast.Expression {
    const raw = token.raw ?? '';
    if (raw === 'null') return { kind: 'TypedNull', type: token.value, loc: this.locFrom(token) };
    if (token.value === 'datetime') {
      const value = parseDatetime(raw);
      if (value === undefined) {
        throw new AplError('syntax', `invalid datetime '${raw}'; expected a date or an ISO 8601 time such as 2024-01-15T14:00:00Z`, token);
      }
      if (value < INT64_MIN || value > INT64_MAX) {
        // Datetimes are int64 nanoseconds since 1970, which reach from 1677 to 2262.
        throw new AplError('syntax', `datetime '${raw}' is out of range; datetimes run from 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z`, token);
      }
      return { kind: 'Datetime', value, loc: this.locFrom(token) };
    }
    const value = parseTimespan(raw);
    if (value === undefined) {
      throw new AplError('syntax', `invalid timespan '${raw}'; expected a length such as 15s, 1.5h or 1.02:03:04`, token);
    }
    return { kind: 'Timespan', value, loc: this.locFrom(token) };
  }

  /** The content of `dynamic(…)`: JSON, with APL's quoting. */
  private parseJson(): Ast.JsonValue {
    const token = this.peek();
    if (this.depth > this.maxDepth) throw this.tooDeep(token);
    switch (token.kind) {
      case TokenKind.BRACKET_L: {
        this.advance();
        const items: Ast.JsonValue[] = [];
        if (this.peek().kind !== TokenKind.BRACKET_R) {
          do {
            this.depth++;
            items.push(this.parseJson());
            this.depth--;
          } while (this.accept(TokenKind.COMMA));
        }
        this.expect(TokenKind.BRACKET_R);
        return items;
      }
      case TokenKind.BRACE_L: {
        this.advance();
        const object: Record<string, Ast.JsonValue> = {};
        if (this.peek().kind !== TokenKind.BRACE_R) {
          do {
            const key = this.peek();
            if (key.kind !== TokenKind.STRING) throw this.unexpected(key, 'a quoted key');
            this.advance();
            this.expect(TokenKind.COLON);
            this.depth++;
            Object.defineProperty(object, key.value, { value: this.parseJson(), enumerable: true, writable: true, configurable: true });
            this.depth--;
          } while (this.accept(TokenKind.COMMA));
        }
        this.expect(TokenKind.BRACE_R);
        return object;
      }
      case TokenKind.STRING:
        this.advance();
        return token.value;
      case TokenKind.INT:
      case TokenKind.REAL:
        this.advance();
        return Number(token.value);
      case TokenKind.MINUS: {
        this.advance();
        const number = this.peek();
        if (number.kind !== TokenKind.INT && number.kind !== TokenKind.REAL) throw this.unexpected(number, 'a number');
        this.advance();
        return -Number(number.value);
      }
      case TokenKind.NAME:
        if (token.value === 'true' || token.value === 'false' || token.value === 'null') {
          this.advance();
          return token.value === 'null' ? null : token.value === 'true';
        }
        throw this.unexpected(token, 'a JSON value');
      default:
        throw this.unexpected(token, 'a JSON value');
    }
  }

  // ── Helpers ──────────────────────────────────────────────────────────────────────────────

  private parseList<T>(item: () => T): T[] {
    const items = [item()];
    while (this.accept(TokenKind.COMMA)) items.push(item());
    return items;
  }

  private parseIdentifier(expected: string): Ast.Identifier {
    const token = this.peek();
    if (token.kind !== TokenKind.NAME || token.value.startsWith('!')) throw this.unexpected(token, expected);
    this.advance();
    return { kind: 'Identifier', name: token.value, loc: this.locOf(token) };
  }

  /** `['name']` or `["name"]`. */
  private parseBracketedName(): string {
    this.expect(TokenKind.BRACKET_L);
    const token = this.peek();
    if (token.kind !== TokenKind.STRING) throw this.unexpected(token, "a quoted name, such as ['geo.city']");
    this.advance();
    this.expect(TokenKind.BRACKET_R);
    if (token.value === '') throw new AplError('syntax', 'a name cannot be empty', token);
    return token.value;
  }

  private atOperatorEnd(): boolean {
    const kind = this.peek().kind;
    return kind === TokenKind.PIPE || kind === TokenKind.EOF || kind === TokenKind.SEMICOLON;
  }

  /** Whether the current token follows the previous one with no space between. */
  private adjacent(): boolean {
    const previous = this.tokens[this.index - 1];
    return previous !== undefined && previous.end === this.peek().start;
  }

  private enter(): void {
    this.depth++;
    if (this.depth > this.maxDepth) throw this.tooDeep(this.peek());
  }

  private tooDeep(token: Token): AplError {
    return new AplError('limit_exceeded', `the query nests deeper than ${this.maxDepth} levels`, token);
  }

  private peek(): Token {
    return this.tokens[this.index] ?? (this.tokens[this.tokens.length - 1] as Token);
  }

  private peekAt(ahead: number, kind: TokenKind, value?: string): boolean {
    const token = this.tokens[this.index + ahead];
    return token?.kind === kind && (value === undefined || token.value === value);
  }

  private peekName(name: string): boolean {
    const token = this.peek();
    return token.kind === TokenKind.NAME && token.value === name;
  }

  private advance(): Token {
    const token = this.peek();
    if (token.kind !== TokenKind.EOF) this.index++;
    return token;
  }

  private accept(kind: TokenKind): boolean {
    if (this.peek().kind !== kind) return false;
    this.advance();
    return true;
  }

  private expect(kind: TokenKind): Token {
    const token = this.peek();
    if (token.kind !== kind) throw this.unexpected(token, `'${kind}'`);
    return this.advance();
  }

  private expectName(name: string): Token {
    const token = this.peek();
    if (token.kind !== TokenKind.NAME || token.value !== name) throw this.unexpected(token, `'${name}'`);
    return this.advance();
  }

  private unexpected(token: Token, expected: string): AplError {
    return new AplError('syntax', `expected ${expected}, found ${describeToken(token)}`, token);
  }

  private locOf(token: Token): Ast.Loc {
    return { line: token.line, column: token.column, start: token.start, end: token.end };
  }

  /** The span from `start` to the last token consumed. */
  private locFrom(start: Token): Ast.Loc {
    const last = this.tokens[this.index - 1] ?? start;
    return { line: start.line, column: start.column, start: start.start, end: Math.max(last.end, start.end) };
  }
}

function describeToken(token: Token): string {
  switch (token.kind) {
    case TokenKind.EOF:
      return 'the end of the query';
    case TokenKind.NAME:
      return `'${token.value}'`;
    case TokenKind.STRING:
      return `the string ${JSON.stringify(token.value.length > 40 ? `${token.value.slice(0, 40)}…` : token.value)}`;
    case TokenKind.INT:
    case TokenKind.REAL:
      return `the number ${token.value}`;
    case TokenKind.TIMESPAN:
      return 'a timespan';
    case TokenKind.TYPED_LITERAL:
      return `a ${token.value} literal`;
    default:
      return `'${token.kind}'`;
  }
}
