import { readFileSync } from 'node:fs';
import { ApiError } from '../client/api-error.js';
import { InputError } from '../common/input-error.js';
import { annotateCommand } from './commands/annotate.js';
import { bridgeCommand } from './commands/bridge.js';
import { serveCommand } from './commands/serve.js';
import { startCommand } from './commands/start.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage-error.js';

export const MAIN_HELP = `Usage: timemark <command> [options]

Commands:
  serve       run the local annotation service
  annotate    create, list, get, update, close or delete annotations (any CI, any shell)
  bridge      run the webhook bridge: deployments and alerts become annotation spans
  start       run the local service and the bridge together, wired (what "npm start" runs)

Run "timemark <command> --help" for a command's options.
`;

type Command = (args: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  annotate: annotateCommand,
  bridge: bridgeCommand,
  start: startCommand,
};

/** Runs one command line and returns the exit code; every failure becomes one line on stderr. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(MAIN_HELP);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.out(packageVersion());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`timemark: unknown command ${JSON.stringify(name)}. Expected one of: ${Object.keys(COMMANDS).join(', ')}.`);
    return 2;
  }
  try {
    return await command(args, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof InputError) {
      io.err(`timemark ${name}: ${error.message}`);
      return 2;
    }
    if (error instanceof ApiError) {
      io.err(`timemark ${name}: ${error.message}`);
      return 1;
    }
    io.err(`timemark ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
