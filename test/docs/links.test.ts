/**
 * Every file the documentation points at exists in the repository: relative links, with the
 * heading their `#fragment` names, and file names quoted as code (`webhook-server/docs/sources.md`),
 * which readers copy into a path. The README, the entry page, stays short and links every page
 * under docs/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child-process.js';
import { documentationFiles } from './doc-blocks.js';

const DOCUMENTS = [...documentationFiles(REPO_ROOT), 'CHANGELOG.md', 'bench/README.md', 'webhook-server/docs/sources.md', 'src/engine/README.md'].filter((path) =>
  existsSync(join(REPO_ROOT, path)),
);

interface Reference {
  text: string;
  /** The target, from the repository root. */
  path: string;
  /** The heading anchor after `#`, if any. */
  anchor?: string;
}

/** Markdown without its fenced blocks, whose text is code rather than links or headings. */
function prose(markdown: string): string {
  return markdown.replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[ \t]*$/gm, '');
}

/** Relative link targets and quoted file names, each with the path it resolves to from the repository root. */
function references(document: string): Reference[] {
  const text = prose(readFileSync(join(REPO_ROOT, document), 'utf8'));
  const base = dirname(join(REPO_ROOT, document));
  const found: Reference[] = [];
  for (const match of text.matchAll(/\]\(([^)\s#]*)(?:#([^)\s]*))?\)/g)) {
    const target = match[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    found.push({ text: match[0], path: target === '' ? document : relative(REPO_ROOT, join(base, target)), ...(match[2] ? { anchor: match[2] } : {}) });
  }
  // A quoted markdown, YAML or JSON file name with a folder is a path from the repository root; a
  // bare markdown name (`CHANGELOG.md`) is one too, as the root is where readers look for it.
  for (const match of text.matchAll(/`([\w./-]+\.(?:md|ya?ml|json))`/g)) {
    const target = match[1] ?? '';
    if (!target.includes('/') && !target.endsWith('.md')) continue;
    found.push({ text: match[0], path: target });
  }
  return found;
}

/** The anchors GitHub gives a markdown file's headings: the text lowercased, punctuation dropped, spaces as dashes, repeats numbered. */
function headingAnchors(path: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of prose(readFileSync(join(REPO_ROOT, path), 'utf8')).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = (match[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

describe('documentation references', () => {
  it.each(DOCUMENTS)('%s points only at files that exist, and at headings they have', (document) => {
    const broken = references(document).filter((reference) => {
      if (!existsSync(join(REPO_ROOT, reference.path))) return true;
      return reference.anchor !== undefined && reference.path.endsWith('.md') && !headingAnchors(reference.path).has(decodeURIComponent(reference.anchor));
    });
    expect(broken).toEqual([]);
  });
});

describe('the README', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

  it('is an entry page of fewer than 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(300);
  });

  it('links every page under docs/', () => {
    const linked = new Set(references('README.md').map((reference) => reference.path));
    expect(documentationFiles(REPO_ROOT).filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });
});
