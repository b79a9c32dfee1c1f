/**
 * Every file the documentation points at exists in the repository: relative links, and file
 * names quoted as code (`webhook-server/docs/sources.md`), which readers copy into a path.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/child-process.js';

const DOCUMENTS = ['README.md', 'CHANGELOG.md', 'bench/README.md', 'webhook-server/docs/sources.md', 'src/engine/README.md'].filter((path) =>
  existsSync(join(REPO_ROOT, path)),
);

/** Relative link targets and quoted file names, each with the path it resolves to from the repository root. */
function references(document: string): Array<{ text: string; path: string }> {
  const text = readFileSync(join(REPO_ROOT, document), 'utf8');
  const base = dirname(join(REPO_ROOT, document));
  const found: Array<{ text: string; path: string }> = [];
  for (const match of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
    const target = match[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    found.push({ text: match[0], path: relative(REPO_ROOT, join(base, target)) });
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

describe('documentation references', () => {
  it.each(DOCUMENTS)('%s points only at files that exist', (document) => {
    const missing = references(document).filter((reference) => !existsSync(join(REPO_ROOT, reference.path)));
    expect(missing).toEqual([]);
  });
});
