import { BRIDGE_DEFAULTS, loadBridgeConfig, secretVariable, type BridgeConfig } from '../../../webhook-server/src/config.js';
import type { RunningBridge } from '../../../webhook-server/src/server.js';
import { SOURCE_NAMES } from '../../../webhook-server/src/sources/types.js';
import { redactUrl, redactUrlsIn } from '../../common/redact-url.js';
import { flagOrEnv, readPartFlags } from '../args.js';
import { runUntilStopped, type CliIo } from '../io.js';
import { HELP_OPTION, parseOptions, renderHelp, type CommandSpec } from '../options.js';
import { UsageError } from '../usage-error.js';

const BRIDGE_SPEC: CommandSpec = {
  name: 'bridge',
  usage: '[options]\n       timemark bridge dead-letters [--url URL] [--admin-token TOKEN]',
  summary: `Runs the webhook bridge: deployment systems and monitors POST to /webhooks/<source>, and their
rollouts and alerts become annotation spans on the configured service.`,
  options: [
    { name: 'port', type: 'string', value: 'N', env: 'TIMEMARK_BRIDGE_PORT', help: 'port to listen on, 0 for any free one', default: BRIDGE_DEFAULTS.port, example: '3000', integer: { min: 0 } },
    { name: 'host', type: 'string', value: 'ADDR', env: 'TIMEMARK_BRIDGE_HOST', help: 'address to listen on', default: BRIDGE_DEFAULTS.host, example: '0.0.0.0' },
    { name: 'data-dir', type: 'string', value: 'DIR', env: 'TIMEMARK_BRIDGE_DATA_DIR', help: 'SQLite store and generated admin token', default: BRIDGE_DEFAULTS.dataDir, example: '/var/lib/timemark-bridge' },
    { name: 'config', type: 'string', value: 'FILE', env: 'TIMEMARK_BRIDGE_CONFIG', help: 'JSON or YAML file with datasets, mapping rules and more', example: 'bridge.yaml' },
    HELP_OPTION,
  ],
  footer: `Environment (wins over the config file):
  TIMEMARK_URL, TIMEMARK_TOKEN, TIMEMARK_ORG_ID   the service the annotations go to
  TIMEMARK_DATASETS                               default datasets, comma-separated
  DATABASE_URL                                    PostgreSQL for replicas; unset: SQLite in the data dir
  TIMEMARK_BRIDGE_DATABASE_SCHEMA                 PostgreSQL schema for the bridge's tables
  ${SOURCE_NAMES.map(secretVariable).join(', ')}
                                                  one per source, comma-separated for rotation; unset: source off
  TIMEMARK_BRIDGE_ADMIN_TOKEN                     bearer token for /admin; unset: generated into
                                                  <data dir>/admin-token (the file is printed, not the token)
  TIMEMARK_BRIDGE_MAX_OPEN                        close spans with no finish after this long [24h]
  TIMEMARK_BRIDGE_LOG_LEVEL                       pino level [info]

Run "timemark bridge dead-letters --help" for the dead letters of a running bridge.`,
};

const DEAD_LETTERS_SPEC: CommandSpec = {
  name: 'bridge dead-letters',
  usage: '[options]',
  summary: 'Lists the dead letters of a running bridge (episodes it gave up applying), through its admin API.',
  options: [
    {
      name: 'url',
      type: 'string',
      value: 'URL',
      env: 'TIMEMARK_BRIDGE_URL',
      help: 'the bridge',
      default: `http://127.0.0.1:${BRIDGE_DEFAULTS.port}`,
      example: `http://127.0.0.1:${BRIDGE_DEFAULTS.port}`,
    },
    {
      name: 'admin-token',
      type: 'string',
      value: 'TOKEN',
      env: 'TIMEMARK_BRIDGE_ADMIN_TOKEN',
      help: "the bridge's admin token (a generated one is in <data dir>/admin-token)",
      example: '"$(cat .timemark-bridge/admin-token)"',
    },
    HELP_OPTION,
  ],
  footer: 'Output: the dead letters as JSON on stdout.',
};

export const BRIDGE_HELP = renderHelp(BRIDGE_SPEC);

/** For the command line's messages: `timemark bridge dead-letters: …`. */
export const subcommands = ['dead-letters'] as const;

export function resolveBridgeConfig(args: string[], env: NodeJS.ProcessEnv): BridgeConfig | 'help' {
  const options = parseOptions(BRIDGE_SPEC, args);
  if (options.boolean('help')) return 'help';
  const configFile = options.string('config');
  return loadBridgeConfig(
    {
      ...readPartFlags(options),
      ...(configFile ? { configFile } : {}),
    },
    env,
  );
}

export function describeBridge(bridge: RunningBridge, config: BridgeConfig): string {
  const sources = Object.keys(config.secrets);
  const lines = [
    `Timemark bridge listening on ${bridge.url}`,
    `  store:    ${config.database ? `PostgreSQL at ${redactUrl(config.database.url)}` : `SQLite in ${config.dataDir}`}`,
    `  service:  ${redactUrl(config.service.url)}`,
    `  datasets: ${config.mapping.datasets.join(', ') || '(from the mapping rules)'}`,
    `  sources:  ${sources.map((source) => `${bridge.url}/webhooks/${source}`).join('\n            ')}`,
  ];
  // Stdout goes to log shippers in production: a generated secret is named by its file, never shown.
  lines.push(
    bridge.adminTokenFile
      ? `  admin:    bearer token generated and saved in ${bridge.adminTokenFile} (or set TIMEMARK_BRIDGE_ADMIN_TOKEN)`
      : '  admin:    bearer token from TIMEMARK_BRIDGE_ADMIN_TOKEN',
  );
  return lines.join('\n');
}

export async function run(args: string[], io: CliIo): Promise<number> {
  if (args[0] === 'dead-letters') return deadLetters(args.slice(1), io);
  const config = resolveBridgeConfig(args, io.env);
  if (config === 'help') {
    io.out(BRIDGE_HELP);
    return 0;
  }
  const { startBridge } = await import('../../../webhook-server/src/server.js');
  return runUntilStopped(io, {
    start: () => startBridge(config),
    banner: (bridge) => describeBridge(bridge, config),
    stopping: 'finishing in-flight deliveries, then closing the store.',
    graceMs: 20_000,
  });
}

/** Lists the dead letters of a running bridge through its admin API. */
async function deadLetters(args: string[], io: CliIo): Promise<number> {
  const options = parseOptions(DEAD_LETTERS_SPEC, args);
  if (options.boolean('help')) {
    io.out(renderHelp(DEAD_LETTERS_SPEC));
    return 0;
  }
  const url = flagOrEnv(options.string('url'), io.env, 'TIMEMARK_BRIDGE_URL') ?? `http://127.0.0.1:${BRIDGE_DEFAULTS.port}`;
  const token = flagOrEnv(options.string('admin-token'), io.env, 'TIMEMARK_BRIDGE_ADMIN_TOKEN');
  if (token === undefined) {
    throw new UsageError('no admin token; pass --admin-token or set TIMEMARK_BRIDGE_ADMIN_TOKEN (a generated one is in <data dir>/admin-token).');
  }
  let response: Response;
  try {
    response = await fetch(`${url.replace(/\/+$/, '')}/admin/dead-letters`, { headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    const cause = redactUrlsIn(error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error));
    throw new Error(`cannot reach the bridge at ${redactUrl(url)} (${cause}): is it running? Point --url (TIMEMARK_BRIDGE_URL) at it.`, { cause: error });
  }
  const body = await response.text();
  if (!response.ok) throw new Error(`${redactUrl(url)} answered ${response.status}: ${body}`);
  io.out(JSON.stringify(JSON.parse(body), null, 2));
  return 0;
}
