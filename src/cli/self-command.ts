/**
 * How to run this same command line again from the current directory, for the commands a
 * banner suggests: `timemark` when that name on PATH is this CLI (a global install or npm link),
 * else the path of the script, so that a suggestion works right after `npm ci` in a clone.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';

export function selfCommand(options: { script?: string; cwd?: string; path?: string } = {}): string {
  const script = realpathOrSelf(options.script ?? process.argv[1] ?? '');
  for (const dir of (options.path ?? process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'timemark');
    if (isExecutable(candidate) && realpathOrSelf(candidate) === script) return 'timemark';
  }
  const fromHere = relative(options.cwd ?? process.cwd(), script);
  if (fromHere !== '' && !fromHere.startsWith('..') && !isAbsolute(fromHere) && isExecutable(script)) return shellQuote(`.${sep}${fromHere}`);
  return `node ${shellQuote(script)}`;
}

/** Quotes a word for POSIX shells when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
