import { closeSync, mkdirSync, openSync, statfsSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DataDirError } from './errors.js';

/**
 * File systems of the kernel's own making (Linux statfs magic numbers), where no data can be kept:
 * creating a directory there fails in ways that say little (ENOENT under /proc), and Node's
 * recursive mkdir retries such a failure forever.
 */
const PSEUDO_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x62656570, 'configfs'],
  [0xcafe4a11, 'bpf'],
]);

const NEEDED = 'Expected a directory this user can create and write, on a disk';

/**
 * Makes sure `path` is a directory this process can write, creating it (and its parents) if
 * needed, or throws a DataDirError whose sentence names `option` (e.g. `--data-dir /
 * TIMEMARK_DATA_DIR`), the path, what is wrong and what is needed — at once, never retrying.
 */
export function prepareDataDir(path: string, option: string): void {
  const target = resolve(path);
  function fail(problem: string, cause?: unknown): never {
    throw new DataDirError(`Cannot use the data dir ${path} (${option}): ${problem}. ${NEEDED}, e.g. ${option.split(' ')[0]} ./data.`, { cause });
  }

  // The nearest part of the path that exists decides: it must be a directory on a real file system.
  const missing: string[] = [];
  let existing = target;
  for (;;) {
    let stats;
    try {
      stats = statSync(existing, { throwIfNoEntry: false });
    } catch (error) {
      // Below a file: the walk goes on up to the file, which is named as the problem.
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') fail(explain(error, existing), error);
    }
    if (stats !== undefined) {
      if (!stats.isDirectory()) fail(`${existing} is a file, not a directory`);
      break;
    }
    missing.unshift(existing);
    existing = dirname(existing);
  }
  const fileSystem = PSEUDO_FILE_SYSTEMS.get(Number(statfsSync(existing).type));
  if (fileSystem !== undefined) fail(`${existing} is on the ${fileSystem} pseudo file system, which cannot keep files`);

  for (const directory of missing) {
    try {
      mkdirSync(directory, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(directory).isDirectory()) fail(explain(error, directory), error);
    }
  }

  // Permissions, a read-only mount or a full disk show only when something is written.
  const probe = join(target, `.write-probe-${process.pid}`);
  try {
    const fd = openSync(probe, 'wx', 0o600);
    try {
      writeSync(fd, 'ok');
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  } catch (error) {
    fail(explain(error, target), error);
  }
}

function explain(error: unknown, path: string): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EACCES':
    case 'EPERM':
      return `this user may not write in ${path} (permission denied)`;
    case 'EROFS':
      return `${path} is on a read-only file system`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `a file is in the way at ${path}`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `the disk holding ${path} is full`;
    case 'ENAMETOOLONG':
      return 'the path is too long';
    default:
      return `${path} cannot be created or written (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}
