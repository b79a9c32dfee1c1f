/**
 * The fenced blocks of the documentation that tests run or check, and how a documented JSON
 * reply is compared with a real one. The markers are words after the language in the block's
 * info string, which GitHub ignores when it highlights the block:
 *
 * - ```` ```sh runnable ````: a shell example, run as written (test/docs/examples.test.ts);
 * - ```` ```text output ````: what the runnable block before it prints on stdout;
 * - ```` ```json request POST /v2/annotations ````: a request body, sent to that route;
 * - ```` ```json response [status] [METHOD /path] ````: a reply, compared with the reply to the
 *   request block before it, the JSON a runnable block before it printed, or, when it names one,
 *   the reply of that route to a request without a body.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export type DocBlock =
  | { kind: 'runnable'; line: number; text: string; output?: string }
  | { kind: 'request'; line: number; text: string; method: string; path: string; expectsReply: boolean }
  | { kind: 'response'; line: number; text: string; status?: number; method?: string; path?: string };

interface Fence {
  line: number;
  info: string[];
  text: string;
}

/** The fenced blocks of a markdown text, indented ones (in list items) included, with their info words. */
function fences(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const found: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', info = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    found.push({ line: i + 1, info: info.trim().split(/\s+/).filter(Boolean), text: body.join('\n') });
    i = j;
  }
  return found;
}

const METHOD = /^(GET|POST|PUT|DELETE|PATCH)$/;

/**
 * The blocks of a document that tests run or check, in document order. A marker used wrongly (an
 * output block with no runnable block before it, a request without a route) is an error that
 * names the document and line, so that a typo cannot turn an example into an unchecked one.
 */
export function docBlocks(document: string, markdown: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const where = (fence: Fence): string => `${document}:${fence.line}`;
  for (const fence of fences(markdown)) {
    const [language, marker, ...rest] = fence.info;
    if (marker === undefined) continue;
    if (language === 'sh' && marker === 'runnable') {
      blocks.push({ kind: 'runnable', line: fence.line, text: fence.text });
    } else if (language === 'text' && marker === 'output') {
      const previous = blocks.at(-1);
      if (previous?.kind !== 'runnable' || previous.output !== undefined) throw new Error(`${where(fence)}: an output block must follow a runnable sh block.`);
      previous.output = fence.text;
    } else if (language === 'json' && marker === 'request') {
      const [method = '', path = ''] = rest;
      if (!METHOD.test(method) || !path.startsWith('/')) throw new Error(`${where(fence)}: a request block names its route, e.g. "json request POST /v2/annotations".`);
      blocks.push({ kind: 'request', line: fence.line, text: fence.text, method, path, expectsReply: false });
    } else if (language === 'json' && marker === 'response') {
      const status = rest[0] !== undefined && /^\d{3}$/.test(rest[0]) ? Number(rest.shift()) : undefined;
      const [method, path] = rest;
      if (method !== undefined && (!METHOD.test(method) || !path?.startsWith('/'))) throw new Error(`${where(fence)}: "${fence.info.join(' ')}" is not "json response [status] [METHOD /path]".`);
      const previous = blocks.at(-1);
      if (method === undefined && previous === undefined) throw new Error(`${where(fence)}: a response block without a route needs a request or runnable block before it.`);
      if (method === undefined && previous?.kind === 'request') previous.expectsReply = true;
      blocks.push({ kind: 'response', line: fence.line, text: fence.text, ...(status === undefined ? {} : { status }), ...(method === undefined ? {} : { method, path }) });
    }
  }
  return blocks;
}

/** README.md and every page under docs/, as paths from the repository root. */
export function documentationFiles(root: string): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(relative(root, path));
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  return ['README.md', ...pages.sort()];
}

export function readDocument(root: string, document: string): string {
  return readFileSync(join(root, document), 'utf8');
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Where a documented JSON value and a real one differ in shape: the same members in every object
 * (none missing, none extra), the same kind of value in each (a documented `null` stands for any
 * value, as replies leave some out as null), arrays compared element by element where both have
 * elements (a documented element beyond the real ones, with the real first one).
 */
export function shapeDifferences(documented: unknown, real: unknown, path = '$'): string[] {
  if (documented === null || real === null) return [];
  if (kindOf(documented) !== kindOf(real)) return [`${path}: the documentation shows ${kindOf(documented)}, the reply has ${kindOf(real)}`];
  if (Array.isArray(documented) && Array.isArray(real)) {
    if (real.length === 0) return [];
    return documented.flatMap((element, i) => shapeDifferences(element, real[i] ?? real[0], `${path}[${i}]`));
  }
  if (kindOf(documented) !== 'object') return [];
  const shown = documented as Record<string, unknown>;
  const replied = real as Record<string, unknown>;
  return [
    ...Object.keys(shown)
      .filter((key) => !(key in replied))
      .map((key) => `${path}.${key}: shown in the documentation, absent from the reply`),
    ...Object.keys(replied)
      .filter((key) => !(key in shown))
      .map((key) => `${path}.${key}: in the reply, left out of the documentation`),
    ...Object.keys(shown)
      .filter((key) => key in replied)
      .flatMap((key) => shapeDifferences(shown[key], replied[key], `${path}.${key}`)),
  ];
}

/**
 * Output with what changes from run to run masked, for comparing a run with the documented
 * output: times (RFC 3339, and durations and rates as the CLI prints them) and generated ids.
 * Line ends are compared as \n (CSV ends its lines with \r\n).
 */
export function maskVariable(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g, '<time>')
    .replace(/\b(ann|mon|ntf)_[0-9a-z]+/g, '$1_<id>')
    .replace(/\b\d[\d,]*(?:\.\d+)? ?(ms|s|events\/s)\b/g, '<n> $1')
    .replace(/\s+$/, '');
}
