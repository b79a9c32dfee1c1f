/**
 * What `npm pack` ships: everything the command line, the bridge and the action need to run,
 * and nothing else. Written as rules rather than a frozen list, so that new modules under
 * src/ and webhook-server/ ship without editing this test.
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, run } from '../helpers/child-process.js';

interface PackFile {
  path: string;
}

describe('the npm package', () => {
  let files: string[];

  beforeAll(async () => {
    // The build is already done (npm test builds first); scripts would rebuild it under running tests.
    const npm = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts']);
    expect(npm.code, npm.stderr).toBe(0);
    const [report] = JSON.parse(npm.stdout) as Array<{ files: PackFile[] }>;
    files = (report?.files ?? []).map((file) => file.path).sort();
  }, 60_000);

  it('ships the command line and its command bundles, the compiled service and bridge, the action and its bundles', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    for (const bin of Object.values(manifest.bin)) expect(files).toContain(bin.replace(/^\.\//, ''));
    for (const path of [
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'action.yml',
      'build/src/cli/main.js',
      'bin/package.json',
      // The one-file bundles bin/timemark.js requires for annotate, ingest and query, with what makes their chunks CommonJS.
      'build/cli/annotate/index.cjs',
      'build/cli/ingest/index.cjs',
      'build/cli/ingest/licenses.txt',
      'build/cli/query/index.cjs',
      'build/cli/package.json',
      'build/src/service/server.js',
      'build/webhook-server/src/server.js',
      'dist/main/index.js',
      'dist/post/index.js',
      'webhook-server/samples/github-deployment.json',
      'webhook-server/templates/argocd-notifications.yaml',
    ]) {
      expect(files).toContain(path);
    }
  });

  it('ships every module that a shipped module imports', () => {
    const shipped = new Set(files);
    const missing: string[] = [];
    for (const path of files.filter((file) => /\.c?js$/.test(file) && !file.startsWith('dist/'))) {
      const text = readFileSync(join(REPO_ROOT, path), 'utf8');
      for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|require\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = posix.normalize(posix.join(posix.dirname(path), match[1] ?? ''));
        if (!shipped.has(target)) missing.push(`${path} → ${target}`);
      }
    }
    expect(files.filter((path) => path.startsWith('build/')).length).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });

  it('ships no tests, benchmarks, CI scripts, TypeScript sources, source maps or local data', () => {
    const unwanted = files.filter(
      (path) =>
        /^(test|bench|tools|\.ci|\.github|node_modules|deploy|\.timemark|\.timemark-bridge)\//.test(path) ||
        /^(src|webhook-server\/src)\//.test(path) ||
        /\.(ts|map|tsbuildinfo|log|sqlite)$/.test(path) ||
        /^(tsconfig.*|vitest\.config\..*|package-lock\.json|\.gitignore)$/.test(path),
    );
    expect(unwanted).toEqual([]);
  });
});
