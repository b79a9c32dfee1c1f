import { AplError, type SourcePosition } from './errors.js';
import { INT64_MAX, TIMESPAN_UNITS, scaleDecimal } from './literals.js';
import { TokenKind, type Token } from './tokens.js';

export interface LexOptions {
  /** Refuse queries with more tokens than this (graphql-js's maxTokens): parsing stays bounded. */
  readonly maxTokens: number;
}

export const DEFAULT_MAX_TOKENS = 10_000;

const IDENTIFIER = /[\p{L}_$][\p{L}\p{N}_$]*/uy;
const NUMBER = /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const UNIT = /[a-zA-Z]+/y;
/** Operators spelled with a hyphen, by their first word: `project-away`, `parse-kv`, `extend-valid`, `make-series`, `mv-expand`. */
const HYPHENATED: Readonly<Record<string, RegExp>> = {
  project: /-(away|keep|rename|reorder)(?![\p{L}\p{N}_$])/uy,
  parse: /-(kv|where)(?![\p{L}\p{N}_$])/uy,
  extend: /-(valid)(?![\p{L}\p{N}_$])/uy,
  make: /-(series)(?![\p{L}\p{N}_$])/uy,
  mv: /-(expand)(?![\p{L}\p{N}_$])/uy,
};
/** Longest first, so that `<=` is not read as `<` `=`. */
const PUNCTUATORS: readonly TokenKind[] = [
  TokenKind.DOT_DOT,
  TokenKind.EQ,
  TokenKind.NEQ,
  TokenKind.LTGT,
  TokenKind.LTE,
  TokenKind.GTE,
  TokenKind.EQ_TILDE,
  TokenKind.NOT_TILDE,
  TokenKind.PIPE,
  TokenKind.SEMICOLON,
  TokenKind.COMMA,
  TokenKind.DOT,
  TokenKind.PAREN_L,
  TokenKind.PAREN_R,
  TokenKind.BRACKET_L,
  TokenKind.BRACKET_R,
  TokenKind.BRACE_L,
  TokenKind.BRACE_R,
  TokenKind.COLON,
  TokenKind.ASSIGN,
  TokenKind.LT,
  TokenKind.GT,
  TokenKind.PLUS,
  TokenKind.MINUS,
  TokenKind.STAR,
  TokenKind.SLASH,
  TokenKind.PERCENT,
];
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', n: '\n', r: '\r', t: '\t', '0': '\0' };

/** Splits APL text into tokens, ending with one EOF token. Throws AplError at the first bad character. */
export function tokenize(text: string, options: LexOptions = { maxTokens: DEFAULT_MAX_TOKENS }): Token[] {
  return new Lexer(text, options).run();
}

class Lexer {
  private offset = 0;
  private readonly tokens: Token[] = [];
  // Line and column are tracked incrementally so that long one-line queries stay linear.
  private cursorOffset = 0;
  private cursorLine = 1;
  private cursorColumn = 1;

  constructor(
    private readonly text: string,
    private readonly options: LexOptions,
  ) {}

  run(): Token[] {
    for (;;) {
      this.skipTrivia();
      if (this.offset >= this.text.length) {
        this.push(TokenKind.EOF, '', this.offset, this.offset);
        return this.tokens;
      }
      if (this.tokens.length >= this.options.maxTokens) {
        throw new AplError('limit_exceeded', `the query has more than ${this.options.maxTokens} tokens`, this.positionOf(this.offset));
      }
      this.next();
    }
  }

  private next(): void {
    const start = this.offset;
    const char = this.text[start] ?? '';
    if (char === '"' || char === "'") {
      this.push(TokenKind.STRING, this.readString(start + 1, char), start, this.offset);
      return;
    }
    if (char === '@' && (this.text[start + 1] === '"' || this.text[start + 1] === "'")) {
      this.push(TokenKind.STRING, this.readRawString(start + 2, this.text[start + 1] ?? ''), start, this.offset);
      return;
    }
    if (char >= '0' && char <= '9') {
      this.readNumber(start);
      return;
    }
    if (char === '!' && this.matchIdentifier(start + 1) !== undefined) {
      const name = `!${this.matchIdentifier(start + 1) ?? ''}`;
      this.offset = start + name.length;
      this.pushName(this.withTilde(name), start);
      return;
    }
    const identifier = this.matchIdentifier(start);
    if (identifier !== undefined) {
      this.offset = start + identifier.length;
      // `date(…)` and `time(…)` are the data types page's other names for datetime and timespan.
      const typed = identifier === 'date' ? 'datetime' : identifier === 'time' ? 'timespan' : identifier;
      if (typed === 'datetime' || typed === 'timespan') {
        const literal = this.readTypedLiteral(typed, start);
        if (literal) return;
      }
      const hyphenated = Object.hasOwn(HYPHENATED, identifier) ? HYPHENATED[identifier] : undefined;
      if (hyphenated) {
        hyphenated.lastIndex = this.offset;
        const suffix = hyphenated.exec(this.text);
        if (suffix) {
          this.offset += suffix[0].length;
          this.pushName(`${identifier}${suffix[0]}`, start);
          return;
        }
      }
      this.pushName(this.withTilde(identifier), start);
      return;
    }
    for (const punctuator of PUNCTUATORS) {
      if (this.text.startsWith(punctuator, start)) {
        this.offset = start + punctuator.length;
        this.push(punctuator, punctuator, start, this.offset);
        return;
      }
    }
    const codePoint = String.fromCodePoint(this.text.codePointAt(start) ?? 0);
    throw new AplError('syntax', `unexpected character ${describeChar(codePoint)}`, this.positionOf(start));
  }

  /** `in~` and `!in~` are single operators. */
  private withTilde(name: string): string {
    if ((name === 'in' || name === '!in') && this.text[this.offset] === '~') {
      this.offset++;
      return `${name}~`;
    }
    return name;
  }

  private matchIdentifier(at: number): string | undefined {
    IDENTIFIER.lastIndex = at;
    return IDENTIFIER.exec(this.text)?.[0];
  }

  private skipTrivia(): void {
    const text = this.text;
    while (this.offset < text.length) {
      const char = text[this.offset];
      if (char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f' || char === '\v' || char === '\u00a0' || char === '\ufeff') {
        this.offset++;
      } else if (char === '/' && text[this.offset + 1] === '/') {
        const newline = text.indexOf('\n', this.offset);
        this.offset = newline === -1 ? text.length : newline;
      } else {
        return;
      }
    }
  }

  private readString(from: number, quote: string): string {
    let value = '';
    let i = from;
    const text = this.text;
    for (;;) {
      const char = text[i];
      if (char === undefined || char === '\n') {
        throw new AplError('syntax', `unterminated string: expected a closing ${quote}`, this.positionOf(from - 1));
      }
      if (char === quote) {
        this.offset = i + 1;
        return value;
      }
      if (char === '\\') {
        const escaped = text[i + 1] ?? '';
        const simple = ESCAPES[escaped];
        if (simple !== undefined) {
          value += simple;
          i += 2;
          continue;
        }
        if (escaped === 'u') {
          const hex = /^\{([0-9a-fA-F]{1,6})\}|^([0-9a-fA-F]{4})/.exec(text.slice(i + 2, i + 10));
          const codePoint = hex ? parseInt(hex[1] ?? hex[2] ?? '', 16) : NaN;
          if (hex && codePoint <= 0x10ffff) {
            value += String.fromCodePoint(codePoint);
            i += 2 + hex[0].length;
            continue;
          }
        }
        throw new AplError(
          'syntax',
          `unknown escape \\${escaped} in a string: write \\\\ for a backslash, or use a raw string such as @"C:\\temp"`,
          this.positionOf(i),
        );
      }
      value += char;
      i++;
    }
  }

  /** `@"…"`: no escapes; a doubled quote stands for one quote. */
  private readRawString(from: number, quote: string): string {
    let value = '';
    let i = from;
    for (;;) {
      const close = this.text.indexOf(quote, i);
      if (close === -1) throw new AplError('syntax', `unterminated string: expected a closing ${quote}`, this.positionOf(from - 2));
      value += this.text.slice(i, close);
      if (this.text[close + 1] === quote) {
        value += quote;
        i = close + 2;
        continue;
      }
      this.offset = close + 1;
      return value;
    }
  }

  private readNumber(start: number): void {
    NUMBER.lastIndex = start;
    const number = NUMBER.exec(this.text)?.[0] ?? '';
    let end = start + number.length;
    UNIT.lastIndex = end;
    const unit = UNIT.exec(this.text)?.[0];
    if (unit !== undefined) {
      const unitNs = TIMESPAN_UNITS[unit];
      if (unitNs === undefined) {
        throw new AplError(
          'syntax',
          `unknown timespan unit '${unit}' after ${number}: expected one of d, h, m, s, ms, min, sec, tick, microsecond, ns`,
          this.positionOf(end),
        );
      }
      end += unit.length;
      const ns = scaleDecimal(number, unitNs);
      if (ns === undefined || ns > INT64_MAX) {
        throw new AplError('syntax', `timespan ${number}${unit} is out of range`, this.positionOf(start));
      }
      this.offset = end;
      this.push(TokenKind.TIMESPAN, ns.toString(), start, end);
      return;
    }
    this.offset = end;
    if (/^\d+$/.test(number)) {
      if (BigInt(number) > INT64_MAX) {
        throw new AplError('syntax', `integer ${number} does not fit in 64 bits; write it as a real, such as ${number}.0`, this.positionOf(start));
      }
      this.push(TokenKind.INT, number, start, end);
      return;
    }
    this.push(TokenKind.REAL, number, start, end);
  }

  /**
   * `datetime(2024-01-15T14:00:00Z)` and `timespan(1.02:03:04)` take unquoted content that is
   * not made of tokens, so the lexer reads it raw. Returns false when no `(` follows.
   */
  private readTypedLiteral(type: string, start: number): boolean {
    let i = this.offset;
    while (this.text[i] === ' ' || this.text[i] === '\t') i++;
    if (this.text[i] !== '(') return false;
    const close = this.text.indexOf(')', i + 1);
    const newline = this.text.indexOf('\n', i + 1);
    if (close === -1 || (newline !== -1 && newline < close)) {
      throw new AplError('syntax', `unterminated ${type} literal: expected ')'`, this.positionOf(start));
    }
    let raw = this.text.slice(i + 1, close).trim();
    const quote = raw[0];
    if ((quote === '"' || quote === "'") && raw.length >= 2 && raw.endsWith(quote)) raw = raw.slice(1, -1);
    this.offset = close + 1;
    this.push(TokenKind.TYPED_LITERAL, type, start, this.offset, raw);
    return true;
  }

  private pushName(name: string, start: number): void {
    this.push(TokenKind.NAME, name, start, this.offset);
  }

  private push(kind: TokenKind, value: string, start: number, end: number, raw?: string): void {
    const { line, column } = this.positionOf(start);
    this.tokens.push(raw === undefined ? { kind, value, start, end, line, column } : { kind, value, raw, start, end, line, column });
  }

  /** Positions are asked for in increasing order, except for errors, which may look back. */
  private positionOf(offset: number): SourcePosition {
    if (offset < this.cursorOffset) {
      this.cursorOffset = 0;
      this.cursorLine = 1;
      this.cursorColumn = 1;
    }
    const text = this.text;
    for (let i = this.cursorOffset; i < offset && i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 10) {
        this.cursorLine++;
        this.cursorColumn = 1;
      } else if (code < 0xdc00 || code > 0xdfff) {
        // A low surrogate continues the code point its high surrogate began.
        this.cursorColumn++;
      }
    }
    this.cursorOffset = Math.max(offset, this.cursorOffset);
    return { line: this.cursorLine, column: this.cursorColumn };
  }
}

function describeChar(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code < 0x20 || code === 0x7f ? hex : `'${char}' (${hex})`;
}
