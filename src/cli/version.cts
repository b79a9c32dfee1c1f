/**
 * The words that ask for the version, and the package's version. CommonJS on purpose: the
 * entry file bin/timemark.js (CommonJS, see bin/package.json) answers `timemark --version` with
 * them before any ES module is loaded, and main.ts reads the same rule.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const VERSION_WORDS: readonly string[] = ['--version', '-V', '-v', 'version'];

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}
