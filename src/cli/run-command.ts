/**
 * Running one command the way the command line runs every command: its module's `run`, with any
 * failure turned into one line on stderr and an exit code. Shared by main.ts (the ES module path,
 * which imports each command when it runs) and the one-file bundles of the busiest commands
 * (src/cli/bundles/, which bin/timemark.js loads with require), so both behave alike.
 */
import type { CliIo } from './io.js';

export interface CommandModule {
  run(args: string[], io: CliIo): Promise<number>;
  /** Its subcommands, so that a message names the one that failed: `timemark annotate create: …`. */
  subcommands?: readonly string[];
}

/** Runs `timemark <name> ...args` and returns the exit code; every failure becomes one line on stderr. */
export async function runCommand(name: string, load: () => Promise<CommandModule>, args: string[], io: CliIo): Promise<number> {
  let command: CommandModule | undefined;
  try {
    command = await load();
    return await command.run(args, io);
  } catch (error) {
    // Loaded only when something failed: a command that succeeds never pays for them.
    const [{ InputError }, { redactUrlsIn }, { UsageError }] = await Promise.all([
      import('../common/errors.js'),
      import('../common/redact-url.js'),
      import('./usage-error.js'),
    ]);
    const subcommand = args[0] !== undefined && command?.subcommands?.includes(args[0]) ? ` ${args[0]}` : '';
    // Our own messages never quote credentials; a library's may quote a URL it was given.
    io.err(`timemark ${name}${subcommand}: ${redactUrlsIn(error instanceof Error ? error.message : String(error))}`);
    // A mistake in how the command was called (or configured) is 2; anything that went wrong while working (ApiError, DataDirError…) is 1.
    return error instanceof UsageError || error instanceof InputError ? 2 : 1;
  }
}

/**
 * The `main` of a one-command bundle (src/cli/bundles/): main.ts's signature, for the command
 * lines that start with `name`, with the command already loaded.
 */
export function bundledMain(name: string, command: CommandModule): (argv: string[], io: CliIo) => Promise<number> {
  return async (argv, io) => {
    const [first, ...args] = argv;
    if (first !== name) throw new Error(`The bundle of "timemark ${name}" was given ${JSON.stringify(argv)}. Expected a command line that starts with ${name}.`);
    return runCommand(name, () => Promise.resolve(command), args, io);
  };
}
