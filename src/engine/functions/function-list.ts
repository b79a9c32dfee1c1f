import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AGGREGATIONS } from '../aggregations/index.js';
import { ANY } from './bind.js';
import { FAMILIES } from './index.js';
import type { FunctionDef, Param } from './types.js';

/**
 * The list of supported functions in docs/apl.md, written from the registries so that the two
 * cannot disagree: `npm run docs:apl` rewrites the page's generated block, and a test fails
 * while the page is out of date.
 */

export const START = '<!-- functions:list (generated from the registries by `npm run docs:apl`) -->';
export const END = '<!-- /functions:list -->';

function cell(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

function paramText(param: Param): string {
  const type = param.kind === 'type' ? 'typeof(T)' : param.to === 'string' ? 'string' : param.types.length === ANY.length ? 'any' : param.types.join(' or ');
  return `${param.name}: ${type}`;
}

/** `name(a: string, [b: long], c…)`: optional parameters in brackets, a repeated last one with an ellipsis. */
export function signatureOf(def: FunctionDef, name = def.name): string {
  const parts = def.params.map((param, index) => {
    const text = paramText(param);
    const repeated = def.variadic !== undefined && index === def.params.length - 1;
    return param.optional ? `[${text}]` : repeated ? `${text}, …` : text;
  });
  return `${name}(${parts.join(', ')})`;
}

function returnsOf(def: FunctionDef): string {
  const type = typeof def.returns === 'string' ? def.returns : def.returns.doc;
  return def.reported ? `${type} (${def.reported})` : type;
}

export function renderFunctionList(): string {
  const lines: string[] = [];
  for (const family of FAMILIES) {
    lines.push(`### ${family.title}`, '', '| function | returns | what it gives |', '| --- | --- | --- |');
    for (const def of [...family.functions].sort((a, b) => a.name.localeCompare(b.name))) {
      const aliases = def.aliases?.length ? ` (also ${def.aliases.map((alias) => `\`${alias}\``).join(', ')})` : '';
      lines.push(`| \`${cell(signatureOf(def))}\`${aliases} | ${cell(returnsOf(def))} | ${cell(def.summary)} |`);
    }
    lines.push('');
  }
  lines.push('### Aggregations', '', '| aggregation | conditional form | what it gives |', '| --- | --- | --- |');
  for (const def of [...AGGREGATIONS].sort((a, b) => a.name.localeCompare(b.name))) {
    const conditional = def.conditional ? `\`${def.conditional.name}\`` : '';
    lines.push(`| \`${cell(def.syntax)}\` | ${conditional} | ${cell(def.summary)} |`);
  }
  return lines.join('\n');
}

/** `document` with its generated block replaced by `list`. */
export function withFunctionList(document: string, list: string): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/apl.md lacks the markers ${START} … ${END}.`);
  return `${document.slice(0, start + START.length)}\n${list}\n${document.slice(end)}`;
}

const isScript = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isScript) {
  // Run from build/src/engine/functions/: the page is at the repository's docs/apl.md.
  const path = fileURLToPath(new URL('../../../../docs/apl.md', import.meta.url));
  writeFileSync(path, withFunctionList(readFileSync(path, 'utf8'), renderFunctionList()));
}
