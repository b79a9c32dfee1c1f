import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, run } from '../helpers/child-process.js';

function filesUnder(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  walk(root);
  return files;
}

describe('dist/', () => {
  it('is what a fresh build of src/action produces (run "npm run build:action" and commit dist/ when this fails)', { timeout: 240_000 }, async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'timemark-check-dist-'));
    try {
      const build = await run(process.execPath, ['src/action/tools/build-dist.mjs', outDir]);
      expect(build.code, build.stdout + build.stderr).toBe(0);
      const fresh = filesUnder(outDir);
      const committed = filesUnder(join(REPO_ROOT, 'dist'));
      expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
      const stale = [...fresh].filter(([path, text]) => committed.get(path) !== text).map(([path]) => path);
      expect(stale, `dist/ differs from a fresh build in: ${stale.join(', ')}`).toEqual([]);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});
