import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_DEFAULTS, startService } from '../../service/server.js';
import { BRIDGE_DEFAULTS, loadBridgeConfig, secretVariable } from '../../../webhook-server/src/config.js';
import { createBridgeLogger } from '../../../webhook-server/src/logger.js';
import { startBridge, type RunningBridge } from '../../../webhook-server/src/server.js';
import { loadOrCreateSecret } from '../../common/secret-file.js';
import { SOURCE_NAMES } from '../../../webhook-server/src/sources/types.js';
import { flagOrEnv, parseCommandArgs, parsePort } from '../args.js';
import { forceExitAfter, untilStopSignal, type CliIo } from '../io.js';

export const START_HELP = `Usage: timemark start [options]   (what "npm start" runs)

Runs the local annotation service and the webhook bridge together, wired: the bridge posts to
the local service. Prints the URLs, the token, the webhook secrets and a signed sample curl.

Options:
  --port N            local service port (TIMEMARK_PORT) [${SERVICE_DEFAULTS.port}]
  --bridge-port N     bridge port (TIMEMARK_BRIDGE_PORT) [${BRIDGE_DEFAULTS.port}]
  --data-dir DIR      local service data (TIMEMARK_DATA_DIR) [${SERVICE_DEFAULTS.dataDir}]
  --bridge-data-dir DIR  bridge store, admin token and generated webhook secrets
                      (TIMEMARK_BRIDGE_DATA_DIR) [${BRIDGE_DEFAULTS.dataDir}]
  --config FILE       bridge config file, as for "timemark bridge" (TIMEMARK_BRIDGE_CONFIG)

Webhook secrets come from <SOURCE>_WEBHOOK_SECRET when set, else are generated once and kept
in the bridge data dir. Datasets: TIMEMARK_DATASETS [demo].
`;

const OPTIONS = {
  port: { type: 'string' },
  'bridge-port': { type: 'string' },
  'data-dir': { type: 'string' },
  'bridge-data-dir': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const SAMPLES = 'webhook-server/samples';

export async function startCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('start', args, OPTIONS, 0);
  if (values.help) {
    io.out(START_HELP);
    return 0;
  }
  const servicePort = flagOrEnv(values.port, io.env, 'TIMEMARK_PORT');
  const bridgePort = flagOrEnv(values['bridge-port'], io.env, 'TIMEMARK_BRIDGE_PORT');
  const serviceDir = flagOrEnv(values['data-dir'], io.env, 'TIMEMARK_DATA_DIR') ?? SERVICE_DEFAULTS.dataDir;
  const bridgeDir = flagOrEnv(values['bridge-data-dir'], io.env, 'TIMEMARK_BRIDGE_DATA_DIR') ?? BRIDGE_DEFAULTS.dataDir;
  const configFile = flagOrEnv(values.config, io.env, 'TIMEMARK_BRIDGE_CONFIG');

  // Listen for signals before announcing readiness: a supervisor may stop us right after.
  const stopRequested = untilStopSignal();
  const service = await startService({
    port: servicePort === undefined ? SERVICE_DEFAULTS.port : parsePort('--port', servicePort),
    host: SERVICE_DEFAULTS.host,
    dataDir: serviceDir,
    tokens: [],
    orgId: SERVICE_DEFAULTS.orgId,
  });
  const token = service.generatedToken ?? readFileSync(service.tokenFile ?? join(serviceDir, 'token'), 'utf8').trim();

  // A development setup: every source is on, with a secret the user can read from the output.
  const env: NodeJS.ProcessEnv = { ...io.env, TIMEMARK_URL: service.url, TIMEMARK_TOKEN: token };
  delete env.DATABASE_URL;
  env.TIMEMARK_DATASETS ||= 'demo';
  for (const source of SOURCE_NAMES) {
    const variable = secretVariable(source);
    env[variable] ||= loadOrCreateSecret(join(bridgeDir, 'webhook-secrets', source), { bytes: 18 });
  }
  let bridge: RunningBridge;
  try {
    const config = loadBridgeConfig(
      {
        port: bridgePort === undefined ? BRIDGE_DEFAULTS.port : parsePort('--bridge-port', bridgePort),
        dataDir: bridgeDir,
        ...(configFile === undefined ? {} : { configFile }),
      },
      env,
    );
    bridge = await startBridge(config, { logger: createBridgeLogger({ level: io.env.TIMEMARK_BRIDGE_LOG_LEVEL ?? 'warn' }) });
    io.out(
      [
        `Timemark local service listening on ${service.url}`,
        `  data dir: ${serviceDir}`,
        `  token:    ${token}`,
        `Timemark bridge listening on ${bridge.url}`,
        `  data dir: ${bridgeDir}  (SQLite store)`,
        `  datasets: ${config.mapping.datasets.join(', ')}`,
        `  admin:    Authorization: Bearer ${bridge.adminToken}`,
        '  webhook URLs and secrets:',
        ...SOURCE_NAMES.map((source) => `    ${`${bridge?.url}/webhooks/${source}`.padEnd(48)} ${secretVariable(source)}=${env[secretVariable(source)]}`),
        '',
        'From the repository root, send a signed sample deployment (opens a span), then its success (closes it):',
        sampleCurl(bridge.url, String(env.GITHUB_WEBHOOK_SECRET), 'deployment', 'github-deployment.json'),
        sampleCurl(bridge.url, String(env.GITHUB_WEBHOOK_SECRET), 'deployment_status', 'github-deployment-success.json'),
        '',
        'See it:',
        `  TIMEMARK_URL=${service.url} TIMEMARK_TOKEN=${token} ./bin/timemark.js annotate list --datasets ${config.mapping.datasets[0] ?? 'demo'} --start 2024-01-01T00:00:00Z --end now`,
      ].join('\n'),
    );
  } catch (error) {
    await service.close();
    throw error;
  }
  const signal = await stopRequested;
  io.err(`Received ${signal}; stopping the bridge, then the local service.`);
  forceExitAfter(20_000);
  await bridge.close();
  await service.close();
  return 0;
}

function sampleCurl(url: string, secret: string, event: string, file: string): string {
  const body = `${SAMPLES}/${file}`;
  return (
    `  curl -sS ${url}/webhooks/github -H 'Content-Type: application/json' -H 'X-GitHub-Event: ${event}' ` +
    `-H "X-GitHub-Delivery: $(date +%s%N)" ` +
    `-H "X-Hub-Signature-256: sha256=$(openssl dgst -sha256 -hmac '${secret}' < ${body} | sed 's/.* //')" --data-binary @${body}`
  );
}
