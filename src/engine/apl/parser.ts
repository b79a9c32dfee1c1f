import * as Ast from './ast.js';
import { AplError } from './errors.js';
import { DEFAULT_MAX_TOKENS, tokenize } from './lexer.js';
import { INT64_MAX, INT64_MIN, formatDatetime, formatGoDuration, parseDatetime, parseTimespan } from './literals.js';
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
  'getschema',
  'union',
  'join',
  'lookup',
  'make-series',
  'mv-expand',
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
/**
 * `dynamic(…)` found something that is not a JSON value where a value goes: there, an expression
 * may stand instead (`dynamic({'path': uri})`). The same error as any other, told apart by class.
 */
class NotJsonValueError extends AplError {}

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
    const { source, operators } = this.parseTabular();
    if (this.peek().kind === TokenKind.SEMICOLON) this.advance();
    if (this.peek().kind !== TokenKind.EOF) throw this.unexpected(this.peek(), "'|' or the end of the query");
    return { kind: 'Query', sets, lets, source, operators, loc: this.locFrom(first) };
  }

  /** A source and the operators piped after it. */
  private parseTabular(): Ast.TabularExpression {
    const start = this.peek();
    if (start.kind === TokenKind.PAREN_L) {
      const inner = this.parseParenthesizedTabular();
      const operators = [...inner.operators, ...this.parseOperators()];
      return { kind: 'Tabular', source: inner.source, operators, loc: this.locFrom(start) };
    }
    if (start.kind === TokenKind.NAME && start.value === 'search' && !this.sourceEndsAt(1)) return this.parseSearchQuery();
    const source = this.parseSource();
    return { kind: 'Tabular', source, operators: this.parseOperators(), loc: this.locFrom(start) };
  }

  /**
   * A query that starts with `search [kind=…] in (tables) predicate`: the union of the tables
   * (names, `github*` patterns, tabular lets), then the search over it.
   */
  private parseSearchQuery(): Ast.TabularExpression {
    const start = this.advance();
    const { search, tables } = this.parseSearchParts(start, true);
    if (!tables) {
      throw new AplError('syntax', "a query that starts with search names the datasets to look in: search in (['my-dataset']) \"term\", or ['my-dataset'] | search \"term\"", start);
    }
    const union: Ast.UnionOperator = { kind: 'Union', withSource: undefined, tables: tables.items, loc: tables.loc };
    const source: Ast.UnionSource = { kind: 'UnionSource', union, loc: tables.loc };
    return { kind: 'Tabular', source, operators: [search, ...this.parseOperators()], loc: this.locFrom(start) };
  }

  /** Whether a source name ends `ahead` tokens on (`search | take 1` reads a dataset named search). */
  private sourceEndsAt(ahead: number): boolean {
    const next = this.tokens[this.index + ahead];
    return next === undefined || next.kind === TokenKind.PIPE || next.kind === TokenKind.EOF || next.kind === TokenKind.SEMICOLON || next.kind === TokenKind.PAREN_R;
  }

  private parseOperators(): Ast.Operator[] {
    const operators: Ast.Operator[] = [];
    while (this.peek().kind === TokenKind.PIPE) {
      this.advance();
      operators.push(this.parseOperator());
    }
    return operators;
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
    let value: Ast.LetStatement['value'];
    if (this.atFunctionDefinition()) value = this.parseFunctionDefinition();
    else if (this.atTabular()) value = this.parseTabular();
    else {
      const expression = this.parseExpression();
      // `let T = logs | where …`: a name piped on is a table.
      value =
        expression.kind === 'Name' && this.peek().kind === TokenKind.PIPE
          ? { kind: 'Tabular', source: { kind: 'Source', name: expression.name, loc: expression.loc }, operators: this.parseOperators(), loc: this.locFrom(start) }
          : expression;
    }
    return { kind: 'Let', name, value, loc: this.locFrom(start) };
  }

  private parseSet(): Ast.SetStatement {
    const start = this.advance();
    const name = this.parseIdentifier('the name of a query option, such as stricttypes');
    const value = this.accept(TokenKind.ASSIGN) ? this.parseExpression() : undefined;
    return { kind: 'Set', name, value, loc: this.locFrom(start) };
  }

  /** `(` then `)` and `{`, or `(name:` or `(name,`: a function's parameters rather than a parenthesised expression. */
  private atFunctionDefinition(): boolean {
    if (this.peek().kind !== TokenKind.PAREN_L) return false;
    if (this.peekAt(1, TokenKind.PAREN_R)) return this.peekAt(2, TokenKind.BRACE_L);
    return this.peekAt(1, TokenKind.NAME) && (this.peekAt(2, TokenKind.COLON) || this.peekAt(2, TokenKind.COMMA) || (this.peekAt(2, TokenKind.PAREN_R) && this.peekAt(3, TokenKind.BRACE_L)));
  }

  private parseFunctionDefinition(): Ast.FunctionDefinition {
    const start = this.expect(TokenKind.PAREN_L);
    const params: Ast.FunctionParam[] = [];
    if (this.peek().kind !== TokenKind.PAREN_R) {
      do {
        const paramStart = this.peek();
        const name = this.parseIdentifier('a parameter name');
        let type: Ast.Identifier = { kind: 'Identifier', name: 'dynamic', loc: name.loc };
        if (this.accept(TokenKind.COLON)) type = this.parseIdentifier('a type, such as long or string');
        const defaultValue = this.accept(TokenKind.ASSIGN) ? this.parseExpression() : undefined;
        params.push({ kind: 'Param', name, type, defaultValue, loc: this.locFrom(paramStart) });
      } while (this.accept(TokenKind.COMMA));
    }
    this.expect(TokenKind.PAREN_R);
    this.expect(TokenKind.BRACE_L);
    const lets: Ast.LetStatement[] = [];
    while (this.peekName('let')) {
      lets.push(this.parseLet());
      this.expect(TokenKind.SEMICOLON);
    }
    const body = this.parseExpression();
    this.accept(TokenKind.SEMICOLON);
    this.expect(TokenKind.BRACE_R);
    return { kind: 'Function', params, lets, body, loc: this.locFrom(start) };
  }

  /** Whether a tabular expression starts here (in a `let`): a bracketed dataset, a source keyword, or `(` around one. */
  private atTabular(offset = 0): boolean {
    const token = this.tokens[this.index + offset];
    if (!token) return false;
    if (token.kind === TokenKind.BRACKET_L) return true;
    if (token.kind === TokenKind.PAREN_L) return this.atTabular(offset + 1) || (this.peekAt(offset + 1, TokenKind.NAME) && this.peekAt(offset + 2, TokenKind.PIPE));
    if (token.kind !== TokenKind.NAME) return false;
    const next = this.tokens[this.index + offset + 1];
    if ((token.value === 'datatable' || token.value === 'externaldata') && next?.kind === TokenKind.PAREN_L) return true;
    return (token.value === 'print' || token.value === 'union') && next?.kind !== TokenKind.PIPE && next?.kind !== TokenKind.PAREN_L;
  }

  private parseSource(): Ast.TabularSource {
    const start = this.peek();
    if (start.kind === TokenKind.BRACKET_L) {
      const name = this.parseBracketedName();
      return { kind: 'Source', name, loc: this.locFrom(start) };
    }
    if (start.kind === TokenKind.NAME && !start.value.startsWith('!')) {
      const next = this.tokens[this.index + 1];
      // A dataset may be named like a source keyword: `print | take 1` reads the dataset `print`.
      const ends = next === undefined || next.kind === TokenKind.PIPE || next.kind === TokenKind.EOF || next.kind === TokenKind.SEMICOLON || next.kind === TokenKind.PAREN_R;
      if (start.value === 'print' && !ends) return this.parsePrint();
      if (start.value === 'datatable' && next?.kind === TokenKind.PAREN_L) return this.parseDatatable();
      if (start.value === 'externaldata' && next?.kind === TokenKind.PAREN_L) return this.parseExternalData();
      if (start.value === 'union' && !ends) {
        this.advance();
        return { kind: 'UnionSource', union: this.parseUnion(start), loc: this.locFrom(start) };
      }
      this.advance();
      return { kind: 'Source', name: start.value, loc: this.locFrom(start) };
    }
    throw this.unexpected(start, "a dataset name, such as ['my-dataset']");
  }

  private parsePrint(): Ast.PrintSource {
    const start = this.advance();
    return { kind: 'Print', assignments: this.parseList(() => this.parseAssignment()), loc: this.locFrom(start) };
  }

  /** `(name:type, …)`. */
  private parseColumnDeclarations(): Ast.ColumnDeclaration[] {
    this.expect(TokenKind.PAREN_L);
    const columns = this.parseList((): Ast.ColumnDeclaration => {
      const start = this.peek();
      const name = this.parseColumnName();
      this.expect(TokenKind.COLON);
      const type = this.parseIdentifier('a type, such as long or string');
      return { kind: 'ColumnDeclaration', name, type, loc: this.locFrom(start) };
    });
    this.expect(TokenKind.PAREN_R);
    return columns;
  }

  private parseDatatable(): Ast.DatatableSource {
    const start = this.advance();
    const columns = this.parseColumnDeclarations();
    this.expect(TokenKind.BRACKET_L);
    const values: Ast.Expression[] = [];
    // A trailing comma is allowed, as the reference's examples write it.
    while (this.peek().kind !== TokenKind.BRACKET_R) {
      values.push(this.parseExpression());
      if (!this.accept(TokenKind.COMMA)) break;
    }
    this.expect(TokenKind.BRACKET_R);
    return { kind: 'Datatable', columns, values, loc: this.locFrom(start) };
  }

  private parseExternalData(): Ast.ExternalDataSource {
    const start = this.advance();
    const columns = this.parseColumnDeclarations();
    this.expect(TokenKind.BRACKET_L);
    this.parseList(() => this.expect(TokenKind.STRING));
    this.expect(TokenKind.BRACKET_R);
    if (this.peekName('with')) {
      this.advance();
      this.expect(TokenKind.PAREN_L);
      this.parseList(() => {
        this.parseIdentifier('an option name, such as format');
        this.expect(TokenKind.ASSIGN);
        return this.parseExpression();
      });
      this.expect(TokenKind.PAREN_R);
    }
    return { kind: 'ExternalData', columns, loc: this.locFrom(start) };
  }

  /** `kind=value` and the like, before an operator's arguments: the option's value as written. */
  private parseOption(names: readonly string[]): { name: Ast.Identifier; value: Ast.Identifier } | undefined {
    const token = this.peek();
    if (token.kind !== TokenKind.NAME || !names.includes(token.value) || !this.peekAt(1, TokenKind.ASSIGN)) return undefined;
    const name = this.parseIdentifier('an option');
    this.advance();
    return { name, value: this.parseIdentifier(`a value for ${name.name}`) };
  }

  private parseUnion(start: Token): Ast.UnionOperator {
    let withSource: Ast.Identifier | undefined;
    for (let option = this.parseOption(['withsource', 'kind', 'isfuzzy']); option; option = this.parseOption(['withsource', 'kind', 'isfuzzy'])) {
      if (option.name.name === 'withsource') withSource = option.value;
      else if (option.name.name === 'kind' && option.value.name !== 'outer') {
        throw new AplError('syntax', `union kind=${option.value.name} is not supported; expected kind=outer (every column of every table)`, option.value.loc);
      } else if (option.name.name === 'isfuzzy' && option.value.name !== 'false') {
        throw new AplError('syntax', `union isfuzzy=${option.value.name} is not supported; every table must exist`, option.value.loc);
      }
    }
    const tables = this.parseList(() => this.parseTableReference());
    return { kind: 'Union', withSource, tables, loc: this.locFrom(start) };
  }

  /** `(T | …)`: a tabular expression in parentheses, one nesting level deeper. */
  private parseParenthesizedTabular(): Ast.TabularExpression {
    this.expect(TokenKind.PAREN_L);
    this.enter();
    const inner = this.parseTabular();
    this.depth--;
    this.expect(TokenKind.PAREN_R);
    return inner;
  }

  /** A table an operator takes: `(T | …)`, `['name']`, `name`, or a dataset pattern `github*`. */
  private parseTableReference(): Ast.TableReference {
    const start = this.peek();
    if (start.kind === TokenKind.PAREN_L) {
      // The operators after `)` are the outer query's.
      return { ...this.parseParenthesizedTabular(), loc: this.locFrom(start) };
    }
    if (start.kind === TokenKind.BRACKET_L) {
      const name = this.parseBracketedName();
      return name.includes('*') ? { kind: 'DatasetPattern', pattern: name, loc: this.locFrom(start) } : { kind: 'Source', name, loc: this.locFrom(start) };
    }
    let text = '';
    do {
      const token = this.peek();
      if (token.kind === TokenKind.STAR) text += '*';
      else if (token.kind === TokenKind.NAME && !token.value.startsWith('!')) text += token.value;
      else if (token.kind === TokenKind.MINUS && text !== '') text += '-';
      else if (token.kind === TokenKind.INT && text !== '') text += token.value;
      else break;
      this.advance();
    } while (this.adjacent());
    if (text === '') throw this.unexpected(start, "a dataset or a tabular let, such as ['my-dataset']");
    return text.includes('*') ? { kind: 'DatasetPattern', pattern: text, loc: this.locFrom(start) } : { kind: 'Source', name: text, loc: this.locFrom(start) };
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
      case 'getschema':
        return { kind: 'Getschema', loc: this.locFrom(token) };
      case 'union':
        return this.parseUnion(token);
      case 'join':
        return this.parseJoin(token);
      case 'lookup':
        return this.parseLookup(token);
      case 'make-series':
        return this.parseMakeSeries(token);
      case 'mv-expand':
        return this.parseMvExpand(token);
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

  private parseJoin(start: Token): Ast.JoinOperator {
    let joinKind: Ast.JoinKind = 'inner';
    for (let option = this.parseOption(['kind']); option; option = this.parseOption(['kind'])) {
      const kind = Ast.JOIN_KINDS.find((candidate) => candidate === option?.value.name);
      if (!kind) throw new AplError('syntax', `unknown join kind '${option.value.name}'; expected one of ${Ast.JOIN_KINDS.join(', ')}`, option.value.loc);
      joinKind = kind;
    }
    const right = this.parseTableReference();
    return { kind: 'Join', joinKind, right, on: this.parseJoinConditions(), loc: this.locFrom(start) };
  }

  private parseLookup(start: Token): Ast.LookupOperator {
    let joinKind: Ast.LookupOperator['joinKind'] = 'leftouter';
    for (let option = this.parseOption(['kind']); option; option = this.parseOption(['kind'])) {
      if (option.value.name !== 'leftouter' && option.value.name !== 'inner') {
        throw new AplError('syntax', `unknown lookup kind '${option.value.name}'; expected leftouter or inner`, option.value.loc);
      }
      joinKind = option.value.name;
    }
    const right = this.parseTableReference();
    return { kind: 'Lookup', joinKind, right, on: this.parseJoinConditions(), loc: this.locFrom(start) };
  }

  /** `on key, $left.a == $right.b, …`. */
  private parseJoinConditions(): Ast.JoinCondition[] {
    this.expectName('on');
    return this.parseList((): Ast.JoinCondition => {
      const start = this.peek();
      const expression = this.parseExpression();
      if (expression.kind === 'Binary' && expression.operator === '==') {
        return { kind: 'JoinCondition', left: expression.left, right: expression.right, loc: this.locFrom(start) };
      }
      if (expression.kind === 'Name') return { kind: 'JoinCondition', left: expression, right: expression, loc: this.locFrom(start) };
      throw new AplError('syntax', 'a join condition is a column name or an equality such as $left.id == $right.trace_id; separate conditions with commas', expression.loc);
    });
  }

  private parseMakeSeries(start: Token): Ast.MakeSeriesOperator {
    const aggregates: Ast.Assignment[] = [];
    let defaultValue: Ast.Expression | undefined;
    do {
      if (this.peekName('default') && this.peekAt(1, TokenKind.ASSIGN)) break;
      aggregates.push(this.parseAssignment());
    } while (this.accept(TokenKind.COMMA));
    if (this.peekName('default')) {
      this.advance();
      this.expect(TokenKind.ASSIGN);
      defaultValue = this.parseExpression();
    }
    this.expectName('on');
    // Below the comparisons: `on _time in range(…)` is the axis and its range, not `in (…)`.
    const on = this.parseAdditive();
    let from: Ast.Expression | undefined;
    let to: Ast.Expression | undefined;
    if (this.peekName('in')) {
      this.advance();
      this.expectName('range');
      this.expect(TokenKind.PAREN_L);
      from = this.parseExpression();
      this.expect(TokenKind.COMMA);
      to = this.parseExpression();
      this.expect(TokenKind.COMMA);
      const step = this.parseExpression();
      this.expect(TokenKind.PAREN_R);
      return { kind: 'MakeSeries', aggregates, defaultValue, on, from, to, step, by: this.parseMakeSeriesBy(), loc: this.locFrom(start) };
    }
    if (this.peekName('from')) {
      this.advance();
      from = this.parseExpression();
    }
    if (this.peekName('to')) {
      this.advance();
      to = this.parseExpression();
    }
    this.expectName('step');
    const step = this.parseExpression();
    return { kind: 'MakeSeries', aggregates, defaultValue, on, from, to, step, by: this.parseMakeSeriesBy(), loc: this.locFrom(start) };
  }

  private parseMakeSeriesBy(): Ast.Assignment[] {
    if (!this.peekName('by')) return [];
    this.advance();
    return this.parseList(() => this.parseAssignment());
  }

  private parseMvExpand(start: Token): Ast.MvExpandOperator {
    let bagKind: Ast.MvExpandOperator['bagKind'];
    let itemIndex: Ast.Identifier | undefined;
    for (let option = this.parseOption(['kind', 'bagexpansion', 'with_itemindex']); option; option = this.parseOption(['kind', 'bagexpansion', 'with_itemindex'])) {
      if (option.name.name === 'with_itemindex') {
        itemIndex = option.value;
      } else if (option.value.name === 'bag' || option.value.name === 'array') {
        bagKind = option.value.name;
      } else {
        throw new AplError('syntax', `unknown ${option.name.name} '${option.value.name}'; expected bag or array`, option.value.loc);
      }
    }
    const items = this.parseList((): Ast.MvExpandItem => {
      const itemStart = this.peek();
      const assignment = this.parseAssignment();
      let toType: Ast.Identifier | undefined;
      if (this.peekName('to')) {
        this.advance();
        this.expectName('typeof');
        this.expect(TokenKind.PAREN_L);
        toType = this.parseIdentifier('a type, such as long or string');
        this.expect(TokenKind.PAREN_R);
      }
      return { kind: 'MvExpandItem', name: assignment.name, value: assignment.value, toType, loc: this.locFrom(itemStart) };
    });
    let limit: Ast.Expression | undefined;
    if (this.peekName('limit')) {
      this.advance();
      limit = this.parseExpression();
    }
    return { kind: 'MvExpand', bagKind, itemIndex, items, limit, loc: this.locFrom(start) };
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
    return this.parseSearchParts(start, false).search;
  }

  /** `search [kind=…] [in (tables)] predicate`; `in` only where the search starts the query. */
  private parseSearchParts(start: Token, startsQuery: boolean): { search: Ast.SearchOperator; tables?: { items: Ast.TableReference[]; loc: Ast.Loc } } {
    let caseSensitive = false;
    // `search kind:"server"` searches a field named kind; only `kind=` is the option.
    if (this.peekName('kind') && this.peekAt(1, TokenKind.ASSIGN)) {
      this.advance();
      this.advance();
      const kind = this.parseIdentifier('case_sensitive or case_insensitive');
      if (kind.name === 'case_sensitive') caseSensitive = true;
      else if (kind.name !== 'case_insensitive' && kind.name !== 'default') {
        throw new AplError('syntax', `unknown search kind '${kind.name}'; expected case_sensitive or case_insensitive`, kind.loc);
      }
    }
    let tables: { items: Ast.TableReference[]; loc: Ast.Loc } | undefined;
    if (this.peekName('in') && this.peekAt(1, TokenKind.PAREN_L)) {
      if (!startsQuery) {
        throw new AplError('syntax', "search in (…) starts a query, such as search in (github*) \"error\"; after | search looks in the rows before it", this.peek());
      }
      const first = this.advance();
      this.expect(TokenKind.PAREN_L);
      const items = this.parseList(() => this.parseTableReference());
      this.expect(TokenKind.PAREN_R);
      tables = { items, loc: this.locFrom(first) };
    }
    if (this.atOperatorEnd()) throw this.unexpected(this.peek(), 'what to search for, such as "timeout", "*time*" or method:"GET"');
    const predicate = this.parseSearchOr();
    const search: Ast.SearchOperator = { kind: 'Search', predicate, caseSensitive, loc: this.locFrom(start) };
    return tables ? { search, tables } : { search };
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
      // The reference writes the parts side by side (its syntax lines, Kusto), and in parse-where's
      // comparisons with commas between them: both are read, a comma never being a part itself.
      if (pattern.length > 0 && this.accept(TokenKind.COMMA) && this.atOperatorEnd()) {
        throw this.unexpected(this.peek(), "another part of the pattern after ','");
      }
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
      if (token.kind === TokenKind.DOT && this.tokens[this.index + 1]?.kind === TokenKind.BRACKET_L) {
        // `$left.['service.name']`: a bracketed key after a dot.
        this.advance();
        const keyStart = this.peek();
        const key = this.parseBracketedName();
        const index: Ast.StringLiteral = { kind: 'String', value: key, loc: this.locFrom(keyStart) };
        expression = { kind: 'Index', object: expression, index, loc: this.locFrom(start) };
      } else if (token.kind === TokenKind.DOT && this.tokens[this.index + 1]?.kind === TokenKind.NAME) {
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
      const content = this.index;
      let value: Ast.Expression;
      try {
        value = { kind: 'Dynamic', value: this.parseJson(), loc: this.locFrom(token) };
      } catch (jsonError) {
        // The reference also builds values from fields (`dynamic({'path': uri})`), which JSON
        // cannot hold: read the content again as bags and arrays of expressions. Where that
        // fails too, the JSON reading's error is the one that says what was expected.
        if (!(jsonError instanceof NotJsonValueError)) throw jsonError;
        this.index = content;
        try {
          value = this.parseDynamicOfExpressions();
        } catch {
          throw jsonError;
        }
      }
      this.depth--;
      this.expect(TokenKind.PAREN_R);
      return value.kind === 'Dynamic' ? { ...value, loc: this.locFrom(token) } : value;
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
      const timeOfDay = parseTimeOfDay(raw);
      if (timeOfDay !== undefined) return { kind: 'Datetime', value: timeOfDay, timeOfDay: true, loc: this.locFrom(token) };
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

  /**
   * The content of `dynamic(…)` that holds expressions: a bag becomes `bag_pack(key, value, …)`,
   * an array `pack_array(…)`, anything else is an expression (`null` a dynamic null), so that
   * each value is computed per row, as the functions do.
   */
  private parseDynamicOfExpressions(): Ast.Expression {
    const token = this.peek();
    if (this.depth > this.maxDepth) throw this.tooDeep(token);
    const call = (name: string, args: Ast.Expression[]): Ast.Expression => ({
      kind: 'Call',
      name: { kind: 'Identifier', name, loc: this.locOf(token) },
      args,
      loc: this.locFrom(token),
    });
    const nested = (): Ast.Expression => {
      this.depth++;
      const value = this.parseDynamicOfExpressions();
      this.depth--;
      return value;
    };
    if (token.kind === TokenKind.BRACKET_L) {
      this.advance();
      const items: Ast.Expression[] = [];
      if (this.peek().kind !== TokenKind.BRACKET_R) {
        do items.push(nested());
        while (this.accept(TokenKind.COMMA));
      }
      this.expect(TokenKind.BRACKET_R);
      return items.length === 0 ? { kind: 'Dynamic', value: [], loc: this.locFrom(token) } : call('pack_array', items);
    }
    if (token.kind === TokenKind.BRACE_L) {
      this.advance();
      const args: Ast.Expression[] = [];
      if (this.peek().kind !== TokenKind.BRACE_R) {
        do {
          const key = this.peek();
          if (key.kind !== TokenKind.STRING) throw this.unexpected(key, 'a quoted key');
          this.advance();
          if (!this.accept(TokenKind.ASSIGN)) this.expect(TokenKind.COLON);
          args.push({ kind: 'String', value: key.value, loc: this.locFrom(key) }, nested());
        } while (this.accept(TokenKind.COMMA));
      }
      this.expect(TokenKind.BRACE_R);
      return args.length === 0 ? { kind: 'Dynamic', value: {}, loc: this.locFrom(token) } : call('bag_pack', args);
    }
    if (token.kind === TokenKind.NAME && token.value === 'null' && !this.peekAt(1, TokenKind.PAREN_L)) {
      this.advance();
      return { kind: 'TypedNull', type: 'dynamic', loc: this.locFrom(token) };
    }
    return this.parseExpression();
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
        this.expectAfterJsonValue(TokenKind.BRACKET_R);
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
            // The reference writes a slot both as `"a": 1` and as `"a" = 1`.
            if (!this.accept(TokenKind.ASSIGN)) this.expect(TokenKind.COLON);
            this.depth++;
            Object.defineProperty(object, key.value, { value: this.parseJson(), enumerable: true, writable: true, configurable: true });
            this.depth--;
          } while (this.accept(TokenKind.COMMA));
        }
        this.expectAfterJsonValue(TokenKind.BRACE_R);
        return object;
      }
      case TokenKind.STRING:
        this.advance();
        return token.value;
      case TokenKind.INT:
      case TokenKind.REAL:
        this.advance();
        return Number(token.value);
      case TokenKind.TIMESPAN:
        // A timespan inside a dynamic value is its text, as `pack_array(1h)` gives it.
        this.advance();
        return formatGoDuration(BigInt(token.value));
      case TokenKind.TYPED_LITERAL: {
        // `datetime(…)` and `timespan(…)` (or `datetime(null)`): their text, as inside any dynamic value.
        this.advance();
        const typed = this.typedLiteral(token);
        if (typed.kind === 'Datetime' && typed.timeOfDay) {
          throw new AplError('syntax', `a datetime without a date, '${token.raw ?? ''}', is today's only outside dynamic(…): write the date too`, token);
        }
        if (typed.kind === 'Datetime') return formatDatetime(typed.value);
        if (typed.kind === 'Timespan') return formatGoDuration(typed.value);
        return null;
      }
      case TokenKind.MINUS: {
        this.advance();
        const number = this.peek();
        if (number.kind === TokenKind.TIMESPAN) {
          this.advance();
          return formatGoDuration(-BigInt(number.value));
        }
        if (number.kind !== TokenKind.INT && number.kind !== TokenKind.REAL) throw this.unexpected(number, 'a number');
        this.advance();
        return -Number(number.value);
      }
      case TokenKind.NAME:
        if (token.value === 'true' || token.value === 'false' || token.value === 'null') {
          this.advance();
          return token.value === 'null' ? null : token.value === 'true';
        }
        throw this.unexpected(token, 'a JSON value', NotJsonValueError);
      default:
        throw this.unexpected(token, 'a JSON value', NotJsonValueError);
    }
  }

  /**
   * The end of a JSON array or bag. Anything else after one of its values (an operator: `[0.5 *
   * pi()]`) means the value goes on as an expression, which `dynamic(…)` of expressions reads.
   */
  private expectAfterJsonValue(kind: TokenKind): void {
    const token = this.peek();
    if (token.kind !== kind) throw this.unexpected(token, `'${kind}'`, NotJsonValueError);
    this.advance();
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

  private unexpected(token: Token, expected: string, ErrorClass: typeof AplError = AplError): AplError {
    return new ErrorClass('syntax', `expected ${expected}, found ${describeToken(token)}`, token);
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

/**
 * `hh:mm[:ss[.fffffffff]]` alone, which the data types page reads as that time today: the
 * nanoseconds into the day, or undefined for anything else.
 */
function parseTimeOfDay(raw: string): bigint | undefined {
  const match = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(raw);
  if (!match) return undefined;
  const [hours, minutes, seconds] = [Number(match[1]), Number(match[2]), Number(match[3] ?? '0')];
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  const fraction = BigInt((match[4] ?? '').padEnd(9, '0'));
  return ((BigInt(hours) * 60n + BigInt(minutes)) * 60n + BigInt(seconds)) * 1_000_000_000n + fraction;
}
