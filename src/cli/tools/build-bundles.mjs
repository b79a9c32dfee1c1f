#!/usr/bin/env node
/**
 * Bundles the commands people run most often from shells and CI steps, each into one CommonJS
 * file that bin/timemark.js loads with require: build/cli/<command>/index.cjs. Loading one file
 * skips the ES module loader, which otherwise reads the command's twenty-odd modules one by one
 * (bench/cli has the figures). Run by "npm run build" after tsc, from what tsc compiled into
 * build/src, so a bundle runs the same code as the ES module path; build/ is never committed.
 * No ncc build cache (node_modules may be shared), no source maps (the package ships none).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const nccCli = join(repoRoot, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js');

/** The commands bin/timemark.js loads from a bundle; keep the two lists alike. */
export const BUNDLED_COMMANDS = ['annotate', 'ingest', 'query'];

export function buildBundles() {
  const outDir = join(repoRoot, 'build', 'cli');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // ncc splits off what only a failure loads (the modules that word it) into chunks named
  // <id>.index.cjs.js; this makes them CommonJS too, inside a package of ES modules.
  writeFileSync(join(outDir, 'package.json'), '{ "type": "commonjs" }\n');
  for (const command of BUNDLED_COMMANDS) {
    // ncc writes CommonJS for a .cjs entry; the compiled entries are ES modules, so a one-line entry requires one.
    const entry = join(outDir, `${command}.entry.cjs`);
    writeFileSync(entry, `module.exports = require('../src/cli/bundles/${command}.js');\n`);
    try {
      const args = [nccCli, 'build', entry, '--out', join(outDir, command), '--target', 'es2022', '--license', 'licenses.txt', '--no-cache', '--quiet'];
      const result = spawnSync(process.execPath, args, { cwd: repoRoot, stdio: 'inherit' });
      if (result.status !== 0) throw new Error(`ncc failed to bundle build/src/cli/bundles/${command}.js (exit ${result.status ?? result.signal}).`);
    } finally {
      rmSync(entry, { force: true });
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildBundles();
}
