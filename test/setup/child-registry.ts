/**
 * The one register of the child processes tests spawn, shared by every test worker and the main
 * vitest process. A worker writes a file per child when it spawns it (test/helpers/child-process.ts)
 * and deletes it when it sees the child exit; each test file ends by killing its own children that
 * still run (test/setup/kill-children.ts), and the global teardown, or the main process's exit after
 * Ctrl+C, kills whatever is still listed — the children of a worker that crashed or was cut short.
 * So no `timemark serve` outlives a test whose `finally` never ran.
 *
 * Children run in their own process group (spawned `detached`), so that a kill takes what they
 * started too. A pid is killed only while it is still the process that was registered: on Linux
 * its start time (/proc/<pid>/stat) must match, as the pid may have been reused since.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface RegisteredChild {
  pid: number;
  /** The kernel's start time of the process, where /proc tells it; null elsewhere. */
  started: string | null;
  command: string;
}

const PREFIX = 'timemark-test-children-';

/** A fresh register for one test run, named after the process that owns it. */
export function createChildRegistry(): string {
  return mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
}

export function registerChild(registry: string, pid: number, command: string): void {
  const child: RegisteredChild = { pid, started: startTimeOf(pid), command };
  writeFileSync(join(registry, `${pid}.json`), JSON.stringify(child));
}

export function unregisterChild(registry: string, pid: number): void {
  rmSync(join(registry, `${pid}.json`), { force: true });
}

/** A field of /proc/<pid>/stat (Linux), counted from 1, or null when it is gone or /proc does not tell. */
function statField(pid: number, field: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields 3 on come after the command name, which is in parentheses and may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[field - 3] ?? null;
  } catch {
    return null;
  }
}

/** The start time of a running process (field 22), or null. */
function startTimeOf(pid: number): string | null {
  return statField(pid, 22);
}

/**
 * Whether a process with this pid exists (another user's counts too) and has not ended: a killed
 * orphan stays a zombie until its new parent reaps it, which in a container may be never.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return statField(pid, 3) !== 'Z';
}

/** Kills a child's whole process group (its own, as it was spawned detached), or the child alone. */
export function killProcessTree(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Kills every child still listed in the register that is still the process registered, and
 * empties the register. Synchronous, so that it also runs in an `exit` handler. Returns what it
 * killed, one line each.
 */
export function killRegisteredChildren(registry: string): string[] {
  const killed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(registry);
  } catch {
    return killed;
  }
  for (const name of names) {
    const path = join(registry, name);
    let child: RegisteredChild | undefined;
    try {
      child = JSON.parse(readFileSync(path, 'utf8')) as RegisteredChild;
    } catch {
      // A file being written when the worker died: nothing to go by.
    }
    rmSync(path, { force: true });
    if (!child || !isRunning(child.pid)) continue;
    if (child.started !== null && startTimeOf(child.pid) !== child.started) continue;
    killProcessTree(child.pid);
    killed.push(`${child.pid} ${child.command}`);
  }
  return killed;
}

/** Removes a register, killing what it still lists. */
export function closeChildRegistry(registry: string): string[] {
  const killed = killRegisteredChildren(registry);
  rmSync(registry, { recursive: true, force: true });
  return killed;
}

/**
 * Registers left by runs whose main process is gone (killed with SIGKILL, say): their children
 * are killed and the registers removed, so that the next run starts clean.
 */
export function sweepAbandonedRegistries(): string[] {
  const killed: string[] = [];
  for (const name of readdirSync(tmpdir())) {
    const owner = Number(name.startsWith(PREFIX) ? name.slice(PREFIX.length).split('-')[0] : NaN);
    if (!Number.isInteger(owner) || owner === process.pid || isRunning(owner)) continue;
    killed.push(...closeChildRegistry(join(tmpdir(), name)));
  }
  return killed;
}
