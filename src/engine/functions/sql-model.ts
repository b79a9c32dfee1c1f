import type { JsonValue } from '../results/values.js';

/**
 * `parse_sql`'s data model of a SQL SELECT statement, and `format_sql`'s way back to text. The
 * reference documents the model by example (`columns` of `{colname}`, `from` of `{table}`,
 * `where` as `{operator, params}`, `order` of `{direction, expr}`, literals as `{value,
 * valtype}`); the rest follows the same pattern: `{function, params}` for calls, `alias`,
 * `distinct`, `group`, `having`, `limit`, `join`/`on` on a `from` entry.
 */

export class SqlModelError extends Error {}

type Model = { [key: string]: JsonValue };

interface Token {
  readonly kind: 'word' | 'quoted' | 'number' | 'string' | 'symbol';
  readonly text: string;
  readonly at: number;
}

const SYMBOLS = ['<=', '>=', '<>', '!=', '||', '=', '<', '>', '(', ')', ',', '.', '*', '+', '-', '/', '%', ';'];

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i] as string;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "'") {
      let text = '';
      let j = i + 1;
      for (; j < sql.length; j++) {
        if (sql[j] === "'" && sql[j + 1] === "'") {
          text += "'";
          j++;
        } else if (sql[j] === "'") break;
        else text += sql[j];
      }
      if (j >= sql.length) throw new SqlModelError(`an unterminated string starts at character ${i + 1}`);
      tokens.push({ kind: 'string', text, at: i });
      i = j + 1;
    } else if (ch === '"' || ch === '`') {
      const end = sql.indexOf(ch, i + 1);
      if (end < 0) throw new SqlModelError(`an unterminated quoted name starts at character ${i + 1}`);
      tokens.push({ kind: 'quoted', text: sql.slice(i + 1, end), at: i });
      i = end + 1;
    } else if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      const match = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(sql.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'number', text: match[0], at: i });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const match = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'word', text: match[0], at: i });
      i += match[0].length;
    } else {
      const symbol = SYMBOLS.find((s) => sql.startsWith(s, i));
      if (!symbol) throw new SqlModelError(`unexpected '${ch}' at character ${i + 1}`);
      tokens.push({ kind: 'symbol', text: symbol, at: i });
      i += symbol.length;
    }
  }
  return tokens;
}

/** Words that end an expression or a list rather than name something. */
const KEYWORDS = new Set(['select', 'distinct', 'from', 'where', 'group', 'by', 'having', 'order', 'limit', 'offset', 'as', 'and', 'or', 'not', 'in', 'is', 'null', 'like', 'between', 'asc', 'desc', 'join', 'inner', 'left', 'right', 'full', 'outer', 'cross', 'on', 'true', 'false']);

class Parser {
  private index = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.index + offset];
  }

  private isWord(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token?.kind === 'word' && token.text.toLowerCase() === word;
  }

  private isSymbol(symbol: string): boolean {
    const token = this.peek();
    return token?.kind === 'symbol' && token.text === symbol;
  }

  private accept(word: string): boolean {
    if (!this.isWord(word)) return false;
    this.index++;
    return true;
  }

  private expect(word: string): void {
    if (!this.accept(word)) this.fail(`expected ${word.toUpperCase()}`);
  }

  private expectSymbol(symbol: string): void {
    if (!this.isSymbol(symbol)) this.fail(`expected '${symbol}'`);
    this.index++;
  }

  private fail(what: string): never {
    const token = this.peek();
    throw new SqlModelError(token ? `${what} at character ${token.at + 1}, found '${token.text}'` : `${what} at the end`);
  }

  statement(): Model {
    this.expect('select');
    const model: Model = { statement: 'select' };
    if (this.accept('distinct')) model.distinct = true;
    model.columns = this.list(() => this.selectItem());
    if (this.accept('from')) model.from = this.fromList();
    if (this.accept('where')) model.where = this.expression();
    if (this.accept('group')) {
      this.expect('by');
      model.group = this.list(() => this.expression());
    }
    if (this.accept('having')) model.having = this.expression();
    if (this.accept('order')) {
      this.expect('by');
      model.order = this.list(() => {
        const expr = this.expression();
        if (this.accept('desc')) return { direction: 'desc', expr };
        this.accept('asc');
        return { direction: 'asc', expr };
      });
    }
    if (this.accept('limit')) model.limit = this.expression();
    if (this.accept('offset')) model.offset = this.expression();
    if (this.isSymbol(';')) this.index++;
    if (this.peek()) this.fail('expected the end of the statement');
    return model;
  }

  private list(item: () => JsonValue): JsonValue[] {
    const items = [item()];
    while (this.isSymbol(',')) {
      this.index++;
      items.push(item());
    }
    return items;
  }

  private alias(): string | undefined {
    if (this.accept('as')) return this.name();
    const token = this.peek();
    if ((token?.kind === 'word' && !KEYWORDS.has(token.text.toLowerCase())) || token?.kind === 'quoted') return this.name();
    return undefined;
  }

  private name(): string {
    const token = this.peek();
    if (token?.kind !== 'word' && token?.kind !== 'quoted') this.fail('expected a name');
    this.index++;
    return token.text;
  }

  private selectItem(): JsonValue {
    const expr = this.expression();
    const alias = this.alias();
    return alias === undefined ? expr : { ...(expr as Model), alias };
  }

  private fromList(): JsonValue[] {
    const tables: JsonValue[] = [this.table()];
    for (;;) {
      if (this.isSymbol(',')) {
        this.index++;
        tables.push(this.table());
        continue;
      }
      const join = ['inner', 'left', 'right', 'full', 'cross'].find((kind) => this.isWord(kind)) ?? (this.isWord('join') ? 'inner' : undefined);
      if (join === undefined) return tables;
      if (!this.isWord('join')) this.index++;
      this.accept('outer');
      this.expect('join');
      const table = this.table() as Model;
      tables.push({ ...table, join, ...(this.accept('on') ? { on: this.expression() } : {}) });
    }
  }

  private table(): JsonValue {
    let table = this.name();
    while (this.isSymbol('.')) {
      this.index++;
      table += `.${this.name()}`;
    }
    const alias = this.alias();
    return alias === undefined ? { table } : { table, alias };
  }

  expression(): JsonValue {
    return this.or();
  }

  private or(): JsonValue {
    let left = this.and();
    while (this.accept('or')) left = { operator: 'or', params: [left, this.and()] };
    return left;
  }

  private and(): JsonValue {
    let left = this.not();
    while (this.accept('and')) left = { operator: 'and', params: [left, this.not()] };
    return left;
  }

  private not(): JsonValue {
    if (this.accept('not')) return { operator: 'not', params: [this.not()] };
    return this.comparison();
  }

  private comparison(): JsonValue {
    const left = this.additive();
    const token = this.peek();
    if (token?.kind === 'symbol' && ['=', '<>', '!=', '<', '<=', '>', '>='].includes(token.text)) {
      this.index++;
      return { operator: token.text, params: [left, this.additive()] };
    }
    if (this.accept('is')) {
      const negated = this.accept('not');
      this.expect('null');
      return { operator: negated ? 'is not null' : 'is null', params: [left] };
    }
    const negated = this.isWord('not') && ['in', 'like', 'between'].some((word) => this.isWord(word, 1));
    if (negated) this.index++;
    const prefix = negated ? 'not ' : '';
    if (this.accept('in')) {
      this.expectSymbol('(');
      const items = this.list(() => this.expression());
      this.expectSymbol(')');
      return { operator: `${prefix}in`, params: [left, ...items] };
    }
    if (this.accept('like')) return { operator: `${prefix}like`, params: [left, this.additive()] };
    if (this.accept('between')) {
      const low = this.additive();
      this.expect('and');
      return { operator: `${prefix}between`, params: [left, low, this.additive()] };
    }
    if (negated) this.fail('expected IN, LIKE or BETWEEN');
    return left;
  }

  private additive(): JsonValue {
    let left = this.multiplicative();
    while (this.isSymbol('+') || this.isSymbol('-') || this.isSymbol('||')) {
      const operator = (this.peek() as Token).text;
      this.index++;
      left = { operator, params: [left, this.multiplicative()] };
    }
    return left;
  }

  private multiplicative(): JsonValue {
    let left = this.unary();
    while (this.isSymbol('*') || this.isSymbol('/') || this.isSymbol('%')) {
      const operator = (this.peek() as Token).text;
      this.index++;
      left = { operator, params: [left, this.unary()] };
    }
    return left;
  }

  private unary(): JsonValue {
    if (this.isSymbol('-')) {
      this.index++;
      const operand = this.unary() as Model;
      if (operand.valtype === 'integer' || operand.valtype === 'float') return { ...operand, value: `-${String(operand.value)}` };
      return { operator: '-', params: [operand] };
    }
    return this.primary();
  }

  private primary(): JsonValue {
    const token = this.peek();
    if (!token) this.fail('expected an expression');
    if (token.kind === 'number') {
      this.index++;
      return { value: token.text, valtype: /[.eE]/.test(token.text) ? 'float' : 'integer' };
    }
    if (token.kind === 'string') {
      this.index++;
      return { value: token.text, valtype: 'string' };
    }
    if (token.kind === 'symbol' && token.text === '*') {
      this.index++;
      return { colname: '*' };
    }
    if (token.kind === 'symbol' && token.text === '(') {
      this.index++;
      const inner = this.expression();
      this.expectSymbol(')');
      return inner;
    }
    const lower = token.text.toLowerCase();
    if (token.kind === 'word' && (lower === 'null' || lower === 'true' || lower === 'false')) {
      this.index++;
      return lower === 'null' ? { value: null, valtype: 'null' } : { value: lower, valtype: 'boolean' };
    }
    if (token.kind === 'word' && KEYWORDS.has(lower)) this.fail('expected an expression');
    const name = this.name();
    if (this.isSymbol('(')) {
      this.index++;
      const distinct = this.accept('distinct');
      const params = this.isSymbol(')') ? [] : this.list(() => this.expression());
      this.expectSymbol(')');
      return { function: name.toLowerCase(), params, ...(distinct ? { distinct: true } : {}) };
    }
    if (this.isSymbol('.')) {
      this.index++;
      if (this.isSymbol('*')) {
        this.index++;
        return { table: name, colname: '*' };
      }
      return { table: name, colname: this.name() };
    }
    return { colname: name };
  }
}

/** The data model of one SELECT statement; throws SqlModelError, saying where, for anything else. */
export function parseSqlModel(sql: string): JsonValue {
  return new Parser(tokenize(sql)).statement();
}

// ── format_sql ───────────────────────────────────────────────────────────────────────────────

/** How tightly an operator binds: a looser operand is parenthesised. */
const PRECEDENCE: Readonly<Record<string, number>> = { or: 1, and: 2, not: 3, '=': 4, '<>': 4, '!=': 4, '<': 4, '<=': 4, '>': 4, '>=': 4, '+': 5, '-': 5, '||': 5, '*': 6, '/': 6, '%': 6 };

const isObject = (value: JsonValue | undefined): value is Model => typeof value === 'object' && value !== null && !Array.isArray(value);

function formatName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_$]*$/.test(name) && !KEYWORDS.has(name.toLowerCase()) ? name : `"${name}"`;
}

function formatExpression(value: JsonValue | undefined, parent = 0): string {
  if (!isObject(value)) throw new SqlModelError(`expected an expression object, got ${JSON.stringify(value ?? null)}`);
  if (typeof value.operator === 'string') {
    const operator = value.operator.toLowerCase();
    const params = Array.isArray(value.params) ? value.params : [];
    const precedence = PRECEDENCE[operator] ?? 4;
    let text: string;
    if (operator === 'not') text = `not ${formatExpression(params[0], precedence)}`;
    else if (operator === 'is null' || operator === 'is not null') text = `${formatExpression(params[0], 5)} ${operator}`;
    else if (operator.endsWith('in')) text = `${formatExpression(params[0], 5)} ${operator} (${params.slice(1).map((p) => formatExpression(p)).join(', ')})`;
    else if (operator.endsWith('between')) text = `${formatExpression(params[0], 5)} ${operator} ${formatExpression(params[1], 5)} and ${formatExpression(params[2], 5)}`;
    else if (operator === '-' && params.length === 1) text = `-${formatExpression(params[0], 7)}`;
    else text = `${formatExpression(params[0], precedence)} ${operator} ${formatExpression(params[1], precedence + 1)}`;
    return precedence < parent ? `(${text})` : text;
  }
  if (typeof value.function === 'string') {
    const params = Array.isArray(value.params) ? value.params.map((p) => formatExpression(p)) : [];
    return `${value.function}(${value.distinct === true ? 'distinct ' : ''}${params.join(', ')})`;
  }
  if (typeof value.colname === 'string') {
    const column = value.colname === '*' ? '*' : formatName(value.colname);
    return typeof value.table === 'string' ? `${formatName(value.table)}.${column}` : column;
  }
  if ('valtype' in value) {
    if (value.valtype === 'string') return `'${String(value.value).replaceAll("'", "''")}'`;
    if (value.valtype === 'null' || value.value === null) return 'null';
    return String(value.value);
  }
  throw new SqlModelError(`cannot write ${JSON.stringify(value)} as SQL`);
}

const withAlias = (text: string, item: Model): string => (typeof item.alias === 'string' ? `${text} as ${formatName(item.alias)}` : text);

/** SQL text of a `parse_sql` model, keywords in lower case; throws SqlModelError for what is not one. */
export function formatSqlModel(model: JsonValue): string {
  if (!isObject(model) || model.statement !== 'select' || !Array.isArray(model.columns)) throw new SqlModelError('expected a model of a select statement, as parse_sql() gives');
  const parts = [`select ${model.distinct === true ? 'distinct ' : ''}${model.columns.map((column) => withAlias(formatExpression(column), column as Model)).join(', ')}`];
  if (Array.isArray(model.from)) {
    const tables = model.from.map((entry, index) => {
      if (!isObject(entry) || typeof entry.table !== 'string') throw new SqlModelError(`expected {table} in from, got ${JSON.stringify(entry)}`);
      const table = withAlias(entry.table.split('.').map(formatName).join('.'), entry);
      if (index === 0) return table;
      if (typeof entry.join !== 'string') return `, ${table}`;
      return ` ${entry.join === 'inner' ? '' : `${entry.join} `}join ${table}${entry.on === undefined ? '' : ` on ${formatExpression(entry.on)}`}`;
    });
    parts.push(`from ${tables.join('')}`);
  }
  if (model.where !== undefined) parts.push(`where ${formatExpression(model.where)}`);
  if (Array.isArray(model.group)) parts.push(`group by ${model.group.map((e) => formatExpression(e)).join(', ')}`);
  if (model.having !== undefined) parts.push(`having ${formatExpression(model.having)}`);
  if (Array.isArray(model.order)) {
    parts.push(`order by ${model.order.map((entry) => (isObject(entry) ? `${formatExpression(entry.expr)} ${entry.direction === 'desc' ? 'desc' : 'asc'}` : formatExpression(entry))).join(', ')}`);
  }
  if (model.limit !== undefined) parts.push(`limit ${formatExpression(model.limit)}`);
  if (model.offset !== undefined) parts.push(`offset ${formatExpression(model.offset)}`);
  return parts.join(' ');
}
