import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { selfCommand, shellQuote } from '../../src/cli/self-command.js';

describe('selfCommand: how a banner tells the user to run timemark again', () => {
  const root = mkdtempSync(join(tmpdir(), 'timemark self command-'));
  const clone = join(root, 'clone');
  const script = join(clone, 'bin', 'timemark.js');
  mkdirSync(join(clone, 'bin'), { recursive: true });
  writeFileSync(script, '#!/usr/bin/env node\n');
  chmodSync(script, 0o755);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('names the script relative to a clone it runs in, as after npm ci', () => {
    expect(selfCommand({ script, cwd: clone, path: '/usr/bin' })).toBe('./bin/timemark.js');
  });

  it('says timemark when that name on PATH is this same script (npm link, a global install)', () => {
    const bin = join(root, 'global-bin');
    mkdirSync(bin);
    symlinkSync(script, join(bin, 'timemark'));
    expect(selfCommand({ script, cwd: root, path: `/usr/bin:${bin}` })).toBe('timemark');
  });

  it('runs the script by its full path from anywhere else, and quotes a path with spaces', () => {
    expect(selfCommand({ script, cwd: '/usr', path: '' })).toBe(`node '${script}'`);
    expect(selfCommand({ script, cwd: join(root, '..'), path: '' })).toMatch(/^'\.\/timemark self command-\w+\/clone\/bin\/timemark\.js'$/);
  });

  it('quotes only words that need it', () => {
    expect(shellQuote('.timemark/token')).toBe('.timemark/token');
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`);
  });
});
