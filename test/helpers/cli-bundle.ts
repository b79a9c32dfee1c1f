import { createRequire } from 'node:module';
import type { CliIo } from '../../src/cli/io.js';

export type BundledCommand = 'annotate' | 'ingest' | 'query';

/**
 * The `main` of a built command bundle (build/cli/<command>/index.cjs), loaded as bin/timemark.js
 * loads it, for tests that need their own io (a terminal, a stdin): they run what ships.
 */
export function bundledMain(command: BundledCommand): (argv: string[], io: CliIo) => Promise<number> {
  const bundle = createRequire(import.meta.url)(`../../build/cli/${command}/index.cjs`) as { main: (argv: string[], io: CliIo) => Promise<number> };
  return bundle.main;
}
