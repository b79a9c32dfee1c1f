import type * as Ast from '../apl/ast.js';
import { REDACT_MARKS, type Expr, type LiteralValue } from '../plan/types.js';
import { call, fail, literal } from './context.js';
import { captureGroups } from './parse.js';

/**
 * The redact operator's options and patterns, bound: what replaces each match of each pattern
 * in each field, as the plan's `redact` operator (plan/types.ts) takes it.
 */
/** The text with every match of every pattern redacted, in pattern order. */
export type RedactRewrite = (text: Expr) => Expr;

const OPTIONS = ['replaceToken', 'replaceHash', 'redactGroups'] as const;
/** RE2's rewrite strings name groups \0 to \9 only. */
const MAX_GROUPS = 9;

export function bindRedact(operator: Ast.RedactOperator, constant: (node: Ast.Expression) => LiteralValue | undefined): RedactRewrite {
  const given = new Map<string, Ast.NamedOption>();
  for (const option of operator.options) {
    if (!(OPTIONS as readonly string[]).includes(option.name.name)) {
      fail('invalid_argument', `unknown redact option '${option.name.name}'; expected ${OPTIONS.join(', ')}`, option.name);
    }
    if (given.has(option.name.name)) fail('invalid_argument', `redact option '${option.name.name}' is given twice`, option.name);
    given.set(option.name.name, option);
  }
  const tokenOption = given.get('replaceToken');
  const token = tokenOption ? constant(tokenOption.value) : '*';
  if (typeof token !== 'string' || token === '') fail('invalid_argument', 'replaceToken takes a non-empty string, such as replaceToken="x"', tokenOption?.value ?? operator);
  const hash = flag(given.get('replaceHash'), constant);
  const groups = flag(given.get('redactGroups'), constant);
  if (hash && tokenOption) fail('invalid_argument', 'replaceToken and replaceHash=true cannot be used together: a match is replaced by one or the other', tokenOption);
  // One character stands for each character it replaces; a longer token for the whole match.
  const mode = hash ? 'hash' : [...token].length === 1 ? 'chars' : 'whole';
  const rewrites = operator.patterns.flatMap((node) => patternsOf(node, constant)).map(({ pattern, node }) => {
    const { regex, replacement } = groups ? groupRewrite(pattern, node) : { regex: pattern, replacement: `${REDACT_MARKS.open}\\0${REDACT_MARKS.close}` };
    return { regex, replacement };
  });
  return (text) =>
    rewrites.reduce<Expr>(
      (value, { regex, replacement }) =>
        call('redact', [value, literal('string', regex), literal('string', replacement), literal('string', token), literal('string', mode)], 'string'),
      text,
    );
}

function flag(option: Ast.NamedOption | undefined, constant: (node: Ast.Expression) => LiteralValue | undefined): boolean {
  if (!option) return false;
  const value = constant(option.value);
  if (typeof value !== 'boolean') fail('invalid_argument', `${option.name.name} takes true or false`, option.value);
  return value;
}

/** A pattern is a string, or a dynamic array of strings (several patterns). */
function patternsOf(node: Ast.Expression, constant: (node: Ast.Expression) => LiteralValue | undefined): { pattern: string; node: Ast.Expression }[] {
  if (node.kind === 'Dynamic' && Array.isArray(node.value) && node.value.every((item) => typeof item === 'string')) {
    return (node.value as string[]).map((pattern) => ({ pattern, node }));
  }
  const value = constant(node);
  if (typeof value !== 'string' || value === '') fail('invalid_argument', "redact takes regular expressions as constant strings, such as @'\\d{3}-\\d{2}-\\d{4}'", node);
  return [{ pattern: value, node }];
}

/**
 * redactGroups: the pattern cut at its top-level capturing groups, each part a group of its own,
 * so that the rewrite keeps the parts between the groups (`\1`, `\3`) and marks the groups.
 * A quantifier after a group goes with it; a `|` at the top level has no parts to keep apart.
 */
function groupRewrite(pattern: string, node: Ast.Expression): { regex: string; replacement: string } {
  const parts: { text: string; redacted: boolean }[] = [];
  let plain = '';
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i] as string;
    if (char === '\\') {
      plain += pattern.slice(i, i + 2);
      i += 2;
    } else if (char === '[') {
      const end = classEnd(pattern, i);
      plain += pattern.slice(i, end);
      i = end;
    } else if (char === '|') {
      fail('invalid_argument', 'redactGroups=true needs a pattern without | outside its groups; put the alternatives inside a group', node);
    } else if (char === '(' && pattern[i + 1] !== '?') {
      const close = groupEnd(pattern, i);
      const quantifier = /^(?:[*+?]|\{\d+(?:,\d*)?\})\??/.exec(pattern.slice(close + 1))?.[0] ?? '';
      if (plain !== '') parts.push({ text: plain, redacted: false });
      plain = '';
      parts.push({ text: `(?:${pattern.slice(i + 1, close)})${quantifier}`, redacted: true });
      i = close + 1 + quantifier.length;
    } else {
      plain += char;
      i += 1;
    }
  }
  if (plain !== '') parts.push({ text: plain, redacted: false });
  if (!parts.some((part) => part.redacted)) fail('invalid_argument', 'redactGroups=true redacts capturing groups, and this pattern has none', node);
  let regex = '';
  let replacement = '';
  let group = 0;
  for (const part of parts) {
    group += 1;
    regex += `(${part.text})`;
    replacement += part.redacted ? `${REDACT_MARKS.open}\\${group}${REDACT_MARKS.close}` : `\\${group}`;
    group += captureGroups(part.text);
  }
  if (group > MAX_GROUPS) fail('invalid_argument', `redactGroups=true handles patterns of up to ${MAX_GROUPS} groups, counting the parts between groups`, node);
  return { regex, replacement };
}

function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
  return i + 1;
}

function groupEnd(pattern: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < pattern.length) {
    const char = pattern[i];
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === '[') {
      i = classEnd(pattern, i);
      continue;
    }
    if (char === '(') depth++;
    if (char === ')' && --depth === 0) return i;
    i++;
  }
  return pattern.length;
}
