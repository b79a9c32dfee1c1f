/**
 * The `timemark` command line. This module loads nothing but itself: each command's modules are
 * imported only when that command runs, so `timemark --version` or `timemark annotate create` do
 * not pay for the service, the bridge or their databases (bench/cli measures it).
 */
import type { CliIo } from './io.js';
import { runCommand, type CommandModule } from './run-command.js';
import { packageVersion, VERSION_WORDS } from './version.cjs';

const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  serve: { summary: 'run the local service: annotations, events, APL queries, monitors, the dashboard', load: () => import('./commands/serve.js') },
  annotate: { summary: 'create, list, get, update, close or delete annotations (any CI, any shell)', load: () => import('./commands/annotate.js') },
  bridge: { summary: 'run the webhook bridge: deployments and alerts become annotation spans', load: () => import('./commands/bridge.js') },
  start: { summary: 'run the local service and the bridge together, wired (what "npm start" runs)', load: () => import('./commands/start.js') },
  ingest: { summary: 'send events from NDJSON, JSON or CSV files (or stdin) to a dataset', load: () => import('./commands/ingest.js') },
  query: { summary: 'run an APL query and print the result as a table, JSON or CSV', load: () => import('./commands/query.js') },
  impact: { summary: 'did a deploy make things worse? its signals before and after, with a verdict', load: () => import('./commands/impact.js') },
  dora: { summary: 'deployment frequency, change failure rate, time to restore, lead time', load: () => import('./commands/dora.js') },
};

const HELP_WORDS = new Set(['--help', '-h', 'help']);

export const MAIN_HELP = `Usage: timemark <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(10)}  ${command.summary}`)
  .join('\n')}
  version     print the version (also --version, -V)

Run "timemark <command> --help" for a command's options.
`;

/** Runs one command line and returns the exit code; every failure becomes one line on stderr. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || HELP_WORDS.has(name)) {
    // `timemark help annotate create` is `timemark annotate create --help`.
    if (name === 'help' && args[0] !== undefined && Object.hasOwn(COMMANDS, args[0])) return main([...args, '--help'], io);
    io.out(MAIN_HELP);
    return name === undefined ? 2 : 0;
  }
  if (VERSION_WORDS.includes(name)) {
    io.out(packageVersion());
    return 0;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.err(`timemark: unknown command ${JSON.stringify(name)}; use one of ${Object.keys(COMMANDS).join(', ')}, see "timemark --help".`);
    return 2;
  }
  return runCommand(name, entry.load, args, io);
}
