#!/usr/bin/env node
/**
 * Bundles the action's two entries with ncc: `node src/action/tools/build-dist.mjs [outDir]`
 * (default dist/). The check-dist test calls it with a temporary directory and compares the
 * result with the committed dist/, so the flags live here only.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const nccCli = join(repoRoot, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js');
const ENTRIES = ['main', 'post'];

export function buildDist(outDir) {
  for (const entry of ENTRIES) {
    const args = [nccCli, 'build', join('src', 'action', `${entry}.ts`), '--out', join(outDir, entry), '--license', 'licenses.txt', '--quiet'];
    // No build cache: a stale cache entry must never make the committed bundle differ from a fresh one.
    const result = spawnSync(process.execPath, [...args, '--no-cache'], { cwd: repoRoot, stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`ncc failed to bundle src/action/${entry}.ts (exit ${result.status ?? result.signal}).`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildDist(resolve(process.argv[2] ?? join(repoRoot, 'dist')));
}
