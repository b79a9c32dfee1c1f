/**
 * What a regular expression's shape promises about one of its capture groups, read from the
 * pattern's text (RE2 syntax) without running it.
 *
 * `extract()` must tell "no match" (null) from "matched, and the group captured nothing" (''),
 * but DuckDB's `regexp_extract` gives '' for both, so the general lowering takes a second regex
 * pass whenever the capture is empty — and that fallback, though rarely taken, costs a sixth of
 * a string-heavy query. When the group can only ever capture at least one character whenever the
 * pattern matches, an empty result can only mean no match, and one pass is enough.
 *
 * The reading is conservative: any syntax it does not know (`\Q…\E`, back references, an
 * unbalanced pattern) answers "not sure", and the caller keeps the general lowering.
 */

type Node =
  | { kind: 'atom' } // consumes at least one character: a literal, a class, `.`, `\d`…
  | { kind: 'empty' } // consumes nothing: `^`, `$`, `\b`, a flag group such as `(?i)`
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; branches: Node[] }
  | { kind: 'group'; capture: number | undefined; body: Node }
  | { kind: 'repeat'; min: number; body: Node };

class Unsure extends Error {}

/**
 * Whether capture group `group` (0: the whole match) of `pattern` captures at least one
 * character every time the pattern matches: it must take part in every match (not inside an
 * alternative or an optional repeat) and be unable to match the empty string. False when unsure.
 */
export function captureNeverEmpty(pattern: string, group: number): boolean {
  let root: Node;
  try {
    root = new Parser(pattern).parse();
  } catch (error) {
    if (error instanceof Unsure) return false;
    throw error;
  }
  if (group === 0) return minLength(root) > 0;
  const path = pathTo(root, group);
  if (!path) return false;
  const target = path[path.length - 1] as Node;
  // Every enclosing node must be one that always takes part: a sequence, a group, or a repeat of at least once.
  const alwaysTaken = path.slice(0, -1).every((node) => node.kind === 'seq' || node.kind === 'group' || (node.kind === 'repeat' && node.min >= 1));
  return alwaysTaken && minLength(target) > 0;
}

function minLength(node: Node): number {
  switch (node.kind) {
    case 'atom':
      return 1;
    case 'empty':
      return 0;
    case 'seq':
      return node.items.reduce((sum, item) => sum + minLength(item), 0);
    case 'alt':
      return Math.min(...node.branches.map(minLength));
    case 'group':
      return minLength(node.body);
    case 'repeat':
      return node.min === 0 ? 0 : node.min * minLength(node.body);
  }
}

/** The nodes from the root down to capture group `group`, or undefined when there is no such group. */
function pathTo(node: Node, group: number): Node[] | undefined {
  if (node.kind === 'group' && node.capture === group) return [node];
  const children = node.kind === 'seq' ? node.items : node.kind === 'alt' ? node.branches : node.kind === 'group' || node.kind === 'repeat' ? [node.body] : [];
  for (const child of children) {
    const below = pathTo(child, group);
    if (below) return [node, ...below];
  }
  return undefined;
}

/** A recursive-descent reader of RE2's syntax, as far as consumption and grouping go. */
class Parser {
  private at = 0;
  private captures = 0;

  constructor(private readonly text: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.at !== this.text.length) throw new Unsure();
    return node;
  }

  private alternation(): Node {
    const branches = [this.sequence()];
    while (this.text[this.at] === '|') {
      this.at++;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? (branches[0] as Node) : { kind: 'alt', branches };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.text.length && this.text[this.at] !== '|' && this.text[this.at] !== ')') {
      items.push(this.quantified(this.atom()));
    }
    return { kind: 'seq', items };
  }

  private quantified(body: Node): Node {
    let node = body;
    for (;;) {
      const rest = this.text.slice(this.at);
      const counted = /^\{(\d+)(?:,(\d*))?\}/.exec(rest);
      let min: number;
      if (rest.startsWith('*') || rest.startsWith('?')) {
        min = 0;
        this.at++;
      } else if (rest.startsWith('+')) {
        min = 1;
        this.at++;
      } else if (counted) {
        min = Number(counted[1]);
        this.at += counted[0].length;
      } else {
        return node;
      }
      // A lazy or possessive mark changes which match is found, not how little it may consume.
      if (this.text[this.at] === '?' || this.text[this.at] === '+') this.at++;
      node = { kind: 'repeat', min, body: node };
    }
  }

  private atom(): Node {
    const char = this.text[this.at] as string;
    switch (char) {
      case '(':
        return this.group();
      case '[':
        this.characterClass();
        return { kind: 'atom' };
      case '\\':
        return this.escape();
      case '^':
      case '$':
        this.at++;
        return { kind: 'empty' };
      case '*':
      case '+':
      case '?':
        // A repeat with nothing to repeat: RE2 refuses the pattern, and extract reports that.
        throw new Unsure();
      default:
        // A `{` that does not open a count is a literal in RE2, as is every other character.
        this.at += char.length;
        return { kind: 'atom' };
    }
  }

  private group(): Node {
    this.at++; // (
    let capture: number | undefined;
    if (this.text.startsWith('?', this.at)) {
      const named = /^\?P?<[A-Za-z_][A-Za-z0-9_]*>/.exec(this.text.slice(this.at));
      const flags = /^\?[imsU-]*([:)])/.exec(this.text.slice(this.at));
      if (named) {
        this.at += named[0].length;
        capture = ++this.captures;
      } else if (flags) {
        this.at += flags[0].length;
        // `(?i)`: flags for the rest of the group, consuming nothing.
        if (flags[1] === ')') return { kind: 'empty' };
      } else {
        throw new Unsure();
      }
    } else {
      capture = ++this.captures;
    }
    const body = this.alternation();
    if (this.text[this.at] !== ')') throw new Unsure();
    this.at++;
    return { kind: 'group', capture, body };
  }

  /** Skips `[…]`: a `]` right after `[` or `[^` is a member, `[:alpha:]` is one item, `\` escapes. */
  private characterClass(): void {
    this.at++; // [
    if (this.text[this.at] === '^') this.at++;
    if (this.text[this.at] === ']') this.at++;
    while (this.at < this.text.length && this.text[this.at] !== ']') {
      if (this.text[this.at] === '\\') this.at += 2;
      else if (this.text.startsWith('[:', this.at)) {
        const end = this.text.indexOf(':]', this.at + 2);
        if (end < 0) throw new Unsure();
        this.at = end + 2;
      } else this.at++;
    }
    if (this.text[this.at] !== ']') throw new Unsure();
    this.at++;
  }

  private escape(): Node {
    const next = this.text[this.at + 1];
    if (next === undefined) throw new Unsure();
    // Assertions consume nothing; \Q…\E, back references and the like are left to the general lowering.
    if ('bBAz'.includes(next)) {
      this.at += 2;
      return { kind: 'empty' };
    }
    if (next === 'Q' || next === 'E' || /[0-9]/.test(next)) throw new Unsure();
    if (next === 'p' || next === 'P' || next === 'x') {
      const braced = this.text[this.at + 2] === '{';
      if (braced) {
        const end = this.text.indexOf('}', this.at + 3);
        if (end < 0) throw new Unsure();
        this.at = end + 1;
      } else {
        this.at += next === 'x' ? 4 : 3;
        if (this.at > this.text.length) throw new Unsure();
      }
      return { kind: 'atom' };
    }
    this.at += 2;
    return { kind: 'atom' };
  }
}
