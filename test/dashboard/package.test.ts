import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { exited, REPO_ROOT, run, spawnChild } from '../helpers/child-process.js';

/**
 * The page as `npm pack` ships it: the packed tarball is unpacked next to the repository's
 * node_modules and its own `timemark serve` must serve the page and every file the page loads.
 */

let workDir: string;
let child: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'timemark-pack-'));
  // The suite has built already (npm test builds first), so skip prepare.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', workDir]);
  expect(packed.code, packed.stderr).toBe(0);
  const tarball = packed.stdout.trim().split('\n').at(-1) ?? '';
  const untar = await run('tar', ['-xzf', join(workDir, tarball), '-C', workDir]);
  expect(untar.code, untar.stderr).toBe(0);
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(workDir, 'package', 'node_modules'), 'dir');

  child = spawnChild(process.execPath, [join(workDir, 'package', 'bin', 'timemark.js'), 'serve', '--port', '0', '--data-dir', join(workDir, 'data')], {
    cwd: workDir,
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`The packed timemark serve printed no address within 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child?.stdout?.on('data', onData);
    child?.stderr?.on('data', onData);
  });
});

afterAll(async () => {
  if (child) {
    child.kill('SIGTERM');
    await exited(child);
  }
  rmSync(workDir, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('serves the page and every script, style sheet and module it loads', async () => {
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const pending = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] as string);
    expect(pending).toEqual(expect.arrayContaining(['/assets/js/dashboard/main.js', '/assets/vendor/uPlot.iife.min.js', '/assets/dashboard.css']));
    const seen = new Set<string>();
    while (pending.length > 0) {
      const path = pending.pop() as string;
      if (seen.has(path)) continue;
      seen.add(path);
      const reply = await fetch(url + path);
      expect(reply.status, path).toBe(200);
      const text = await reply.text();
      // Modules import each other relatively: follow them all.
      if (path.startsWith('/assets/js/')) {
        for (const match of text.matchAll(/from '(\.\.?\/[\w./-]+\.js)'/g)) pending.push(new URL(match[1] as string, url + path).pathname);
      }
    }
    expect(seen.size).toBeGreaterThan(10);
  });
});
