import { BRIDGE_DEFAULTS, loadBridgeConfig, secretVariable, type BridgeConfig } from '../../../webhook-server/src/config.js';
import { createBridgeLogger } from '../../../webhook-server/src/logger.js';
import { startBridge, type RunningBridge } from '../../../webhook-server/src/server.js';
import { SOURCE_NAMES } from '../../../webhook-server/src/sources/types.js';
import { flagOrEnv, parseCommandArgs, parsePort } from '../args.js';
import { forceExitAfter, untilStopSignal, type CliIo } from '../io.js';

export const BRIDGE_HELP = `Usage: timemark bridge [options]
       timemark bridge dead-letters [--url URL] [--admin-token TOKEN]

Runs the webhook bridge: deployment systems and monitors POST to /webhooks/<source>, and their
rollouts and alerts become annotation spans on the configured service.

Options (environment variable in brackets):
  --port N          port to listen on, 0 for any free one (TIMEMARK_BRIDGE_PORT) [${BRIDGE_DEFAULTS.port}]
  --host ADDR       address to listen on (TIMEMARK_BRIDGE_HOST) [${BRIDGE_DEFAULTS.host}]
  --data-dir DIR    SQLite store and generated admin token (TIMEMARK_BRIDGE_DATA_DIR) [${BRIDGE_DEFAULTS.dataDir}]
  --config FILE     JSON or YAML file with datasets, mapping rules and more (TIMEMARK_BRIDGE_CONFIG)

Environment (wins over the config file):
  TIMEMARK_URL, TIMEMARK_TOKEN, TIMEMARK_ORG_ID   the annotation service
  TIMEMARK_DATASETS                               default datasets, comma-separated
  DATABASE_URL                                    PostgreSQL for replicas; unset: SQLite in the data dir
  TIMEMARK_BRIDGE_DATABASE_SCHEMA                 PostgreSQL schema for the bridge's tables
  ${SOURCE_NAMES.map(secretVariable).join(', ')}
                                                  one per source, comma-separated for rotation; unset: source off
  TIMEMARK_BRIDGE_ADMIN_TOKEN                     bearer token for /admin; unset: generated and printed
  TIMEMARK_BRIDGE_MAX_OPEN                        close spans with no finish after this long [24h]
  TIMEMARK_BRIDGE_LOG_LEVEL                       pino level [info]
`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  url: { type: 'string' },
  'admin-token': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function resolveBridgeConfig(args: string[], env: NodeJS.ProcessEnv): BridgeConfig {
  const { values } = parseCommandArgs('bridge', args, OPTIONS, 0);
  const port = flagOrEnv(values.port, env, 'TIMEMARK_BRIDGE_PORT');
  const host = flagOrEnv(values.host, env, 'TIMEMARK_BRIDGE_HOST');
  const dataDir = flagOrEnv(values['data-dir'], env, 'TIMEMARK_BRIDGE_DATA_DIR');
  const configFile = flagOrEnv(values.config, env, 'TIMEMARK_BRIDGE_CONFIG');
  return loadBridgeConfig(
    {
      ...(port === undefined ? {} : { port: parsePort(values.port !== undefined ? '--port' : 'TIMEMARK_BRIDGE_PORT', port) }),
      ...(host === undefined ? {} : { host }),
      ...(dataDir === undefined ? {} : { dataDir }),
      ...(configFile === undefined ? {} : { configFile }),
    },
    env,
  );
}

export function describeBridge(bridge: RunningBridge, config: BridgeConfig): string {
  const sources = Object.keys(config.secrets);
  const lines = [
    `Timemark bridge listening on ${bridge.url}`,
    `  store:    ${config.database ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}`,
    `  service:  ${config.service.url}`,
    `  datasets: ${config.mapping.datasets.join(', ') || '(from the mapping rules)'}`,
    `  sources:  ${sources.map((source) => `${bridge.url}/webhooks/${source}`).join('\n            ')}`,
  ];
  if (bridge.adminTokenFile) lines.push(`  admin:    Authorization: Bearer ${bridge.adminToken}  (generated; saved in ${bridge.adminTokenFile})`);
  return lines.join('\n');
}

export async function bridgeCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(BRIDGE_HELP);
    return 0;
  }
  if (args[0] === 'dead-letters') return deadLettersCommand(args.slice(1), io);
  const config = resolveBridgeConfig(args, io.env);
  const logger = createBridgeLogger({ level: io.env.TIMEMARK_BRIDGE_LOG_LEVEL ?? 'info' });
  // Listen for signals before announcing readiness: a supervisor may stop us right after.
  const stopRequested = untilStopSignal();
  const bridge = await startBridge(config, { logger });
  io.out(describeBridge(bridge, config));
  const signal = await stopRequested;
  io.err(`Received ${signal}; finishing in-flight deliveries, then closing the store.`);
  forceExitAfter(20_000);
  await bridge.close();
  return 0;
}

/** Lists the dead letters of a running bridge through its admin API. */
async function deadLettersCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('bridge dead-letters', args, OPTIONS, 0);
  const url = flagOrEnv(values.url, io.env, 'TIMEMARK_BRIDGE_URL') ?? `http://127.0.0.1:${BRIDGE_DEFAULTS.port}`;
  const token = flagOrEnv(values['admin-token'], io.env, 'TIMEMARK_BRIDGE_ADMIN_TOKEN');
  if (token === undefined) {
    io.err('timemark bridge dead-letters: no admin token. Pass --admin-token or set TIMEMARK_BRIDGE_ADMIN_TOKEN (a generated one is in <data dir>/admin-token).');
    return 2;
  }
  let response: Response;
  try {
    response = await fetch(`${url.replace(/\/+$/, '')}/admin/dead-letters`, { headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    io.err(`timemark bridge dead-letters: cannot reach the bridge at ${url}: ${cause}. Pass --url or set TIMEMARK_BRIDGE_URL.`);
    return 1;
  }
  const body = await response.text();
  if (!response.ok) {
    io.err(`timemark bridge dead-letters: ${url} answered ${response.status}: ${body}`);
    return 1;
  }
  io.out(JSON.stringify(JSON.parse(body), null, 2));
  return 0;
}
