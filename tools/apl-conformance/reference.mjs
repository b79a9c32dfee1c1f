/**
 * What the conformance tools share: reading the APL reference's pages from a clone of
 * github.com/axiomhq/docs, and a fresh local service to send queries to.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startLocalService, stop } from '../../bench/lib/processes.mjs';

export const APL_PAGES = 'content/docs/(query-reference)/apl';
export const TOKEN = 'xaat-apl-conformance-0000000000';

/** Every `.mdx` page under the APL reference, as `{ path, text }` (a work tree, or a bare repository read at HEAD). */
export function readPages(docs) {
  if (existsSync(join(docs, APL_PAGES))) {
    const walk = (dir) => readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : name.endsWith('.mdx') ? [path] : [];
    });
    return walk(join(docs, APL_PAGES)).map((path) => ({ path: relative(join(docs, APL_PAGES), path), text: readFileSync(path, 'utf8') }));
  }
  const git = (...args) => execFileSync('git', ['-C', docs, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return git('ls-tree', '-r', '--name-only', 'HEAD', `${APL_PAGES}/`)
    .split('\n')
    .filter((path) => path.endsWith('.mdx'))
    .map((path) => ({ path: path.slice(APL_PAGES.length + 1), text: git('show', `HEAD:${path}`) }));
}

/**
 * The ```kusto code blocks of a page's text, in order: each block's query (trimmed), where the
 * block starts and where the text after it begins.
 */
export function* kustoBlocks(text) {
  const fence = /^```([A-Za-z]*)[^\n]*\n([\s\S]*?)^```/gm;
  let match;
  while ((match = fence.exec(text))) {
    if (match[1] === 'kusto') yield { apl: match[2].trim(), start: match.index, end: fence.lastIndex };
  }
}

/** Runs `work(url)` against a local service on a fresh data directory, then stops it and removes the directory. */
export async function withLocalService(work) {
  const dataDir = mkdtempSync(join(tmpdir(), 'timemark-apl-conformance-'));
  const { child, url } = await startLocalService(dataDir, TOKEN);
  try {
    return await work(url);
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Sends `apl` to `POST /v1/datasets/_apl?format=tabular` over the last 90 days, as a user would.
 * Resolves with the status and, on 200, the parsed body; otherwise the error's message.
 */
export async function queryApl(url, apl) {
  const body = { apl, startTime: new Date(Date.now() - 90 * 86_400_000).toISOString(), endTime: new Date(Date.now() + 3_600_000).toISOString() };
  const response = await fetch(`${url}/v1/datasets/_apl?format=tabular`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.ok) return { status: response.status, body: JSON.parse(text) };
  let message = text;
  try {
    message = JSON.parse(text).message ?? text;
  } catch {
    // Not JSON: the text itself is the message.
  }
  return { status: response.status, message };
}
