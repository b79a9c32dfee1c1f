import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { BRIDGE_DEFAULTS, loadBridgeConfig, secretVariable, type BridgeConfig } from '../../../webhook-server/src/config.js';
import type { RunningBridge } from '../../../webhook-server/src/server.js';
import { SOURCE_NAMES, type SourceName } from '../../../webhook-server/src/sources/types.js';
import { prepareDataDir } from '../../common/data-dir.js';
import { loadOrCreateSecret } from '../../common/secret-file.js';
import { loadServiceConfig, SERVICE_DEFAULTS } from '../../service/config.js';
import type { RunningService } from '../../service/server.js';
import { readPartFlags } from '../args.js';
import { runUntilStopped, type CliIo } from '../io.js';
import { HELP_OPTION, parseOptions, renderHelp, type CommandSpec } from '../options.js';
import { selfCommand, shellQuote } from '../self-command.js';
import { writeDemoSamples, type DemoSamples } from '../start/demo-samples.js';
import { serviceBanner, sessionExport } from './serve.js';

const SPEC: CommandSpec = {
  name: 'start',
  usage: '[options]   (what "npm start" runs)',
  summary: `Runs the local service and the webhook bridge together, wired: the bridge posts to the local
service. Prints the URLs, the token, the dashboard link, the webhook secrets, and commands that
send sample events (written to <data dir>/samples/, dated now), a signed sample deployment and an
annotation, so that the dashboard's last hour shows events, a span and a point.`,
  options: [
    { name: 'port', type: 'string', value: 'N', env: 'TIMEMARK_PORT', help: 'local service port', default: SERVICE_DEFAULTS.port, example: '8080', integer: { min: 0 } },
    { name: 'bridge-port', type: 'string', value: 'N', env: 'TIMEMARK_BRIDGE_PORT', help: 'bridge port', default: BRIDGE_DEFAULTS.port, example: '3000', integer: { min: 0 } },
    { name: 'data-dir', type: 'string', value: 'DIR', env: 'TIMEMARK_DATA_DIR', help: 'local service data (and the sample files)', default: SERVICE_DEFAULTS.dataDir, example: '.timemark' },
    {
      name: 'bridge-data-dir',
      type: 'string',
      value: 'DIR',
      env: 'TIMEMARK_BRIDGE_DATA_DIR',
      help: 'bridge store, admin token and generated webhook secrets',
      default: BRIDGE_DEFAULTS.dataDir,
      example: '.timemark-bridge',
    },
    { name: 'config', type: 'string', value: 'FILE', env: 'TIMEMARK_BRIDGE_CONFIG', help: 'bridge config file, as for "timemark bridge"', example: 'bridge.yaml' },
    HELP_OPTION,
  ],
  footer: `Webhook secrets come from <SOURCE>_WEBHOOK_SECRET when set, else are generated once and kept
in the bridge data dir. Datasets: TIMEMARK_DATASETS [demo].`,
};

export const START_HELP = renderHelp(SPEC);

/** Where the bridge's data dir keeps the webhook secrets a start generates, one file per source. */
const WEBHOOK_SECRETS = 'webhook-secrets';

export async function run(args: string[], io: CliIo): Promise<number> {
  const options = parseOptions(SPEC, args);
  if (options.boolean('help')) {
    io.out(START_HELP);
    return 0;
  }
  const configFile = options.string('config');
  const serviceConfig = loadServiceConfig(
    readPartFlags(options, { port: 'port', dataDir: 'data-dir' }),
    io.env,
    { logLevel: 'warn' },
  );

  const [{ startService }, { startBridge }] = await Promise.all([import('../../service/server.js'), import('../../../webhook-server/src/server.js')]);
  return runUntilStopped(io, {
    start: async () => {
      const service = await startService(serviceConfig);
      const token = service.generatedToken ?? (serviceConfig.tokens[0] as string);
      // A development setup: every source without a configured secret gets a generated one, kept
      // in the bridge's data dir and printed; configured secrets are never printed.
      const generated = new Map<SourceName, string>();
      try {
        const config = loadBridgeConfig(
          {
            ...readPartFlags(options, { port: 'bridge-port', dataDir: 'bridge-data-dir' }),
            ...(configFile ? { configFile } : {}),
          },
          io.env,
          {
            service: { url: service.url, token, orgId: serviceConfig.orgId },
            embeddedStore: true,
            defaults: {
              datasets: ['demo'],
              logLevel: 'warn',
              secret: (source, dataDir) => {
                prepareDataDir(dataDir, '--bridge-data-dir / TIMEMARK_BRIDGE_DATA_DIR');
                const secret = loadOrCreateSecret(join(dataDir, WEBHOOK_SECRETS, source), { bytes: 18, what: `${source} webhook secret` });
                generated.set(source, secret);
                return secret;
              },
            },
          },
        );
        const samples = writeDemoSamples(join(serviceConfig.dataDir, 'samples'), Date.now());
        const bridge = await startBridge(config, { portOption: '--bridge-port' });
        return {
          banner: { service, serviceDataDir: serviceConfig.dataDir, bridge, config, generated, samples, self: selfCommand() },
          close: async () => {
            await bridge.close();
            await service.close();
          },
        };
      } catch (error) {
        await service.close();
        throw error;
      }
    },
    banner: (started) => describeStart(started.banner),
    stopping: 'stopping the bridge, then the local service.',
    graceMs: 20_000,
  });
}

interface StartBanner {
  readonly service: RunningService;
  readonly serviceDataDir: string;
  readonly bridge: RunningBridge;
  readonly config: BridgeConfig;
  /** The webhook secrets this start generated (a configured one is never printed). */
  readonly generated: ReadonlyMap<SourceName, string>;
  readonly samples: DemoSamples;
  readonly self: string;
}

/**
 * The banner: where everything is, then the "Try it" lines, which run as printed from this
 * directory and put sample events, a deploy span (through the bridge) and a point (through the
 * annotation API) in the dashboard's default range.
 */
function describeStart({ service, serviceDataDir, bridge, config, generated, samples, self }: StartBanner): string {
  const dataset = config.mapping.datasets[0] ?? 'demo';
  const github = generated.has('github')
    ? `"$(cat ${shellQuote(join(config.dataDir, WEBHOOK_SECRETS, 'github'))})"`
    : `"\${${secretVariable('github')}%%,*}"`; // the first of a rotation list
  return [
    ...serviceBanner(service, serviceDataDir),
    `Timemark bridge listening on ${bridge.url}`,
    `  data dir:  ${config.dataDir}  (SQLite store)`,
    `  datasets:  ${config.mapping.datasets.join(', ')}`,
    `  admin:     ${bridge.adminTokenFile ? `Authorization: Bearer ${bridge.adminToken}` : 'the TIMEMARK_BRIDGE_ADMIN_TOKEN you configured'}`,
    `  webhooks:  ${bridge.url}/webhooks/<source>, signed with these secrets:`,
    ...SOURCE_NAMES.map((source) => `    ${secretVariable(source)}=${generated.get(source) ?? `(from ${secretVariable(source)})`}`),
    '',
    'Try it, from this directory: sample events, a deploy span through the bridge, a point through the API.',
    `  ${sessionExport(service)}`,
    `  secret=${github}`,
    `  ${self} ingest ${shellQuote(dataset)} ${shellQuote(samples.events)}`,
    sampleCurl(bridge.url, 'deployment', samples.deployment),
    sampleCurl(bridge.url, 'deployment_status', samples.deploymentSuccess),
    `  ${self} annotate create --datasets ${shellQuote(dataset)} --type feature-flag --title "Checkout v2 switched on" --time now-38m`,
    `Then open the dashboard: the last hour of ${dataset}, with the deploy as a band and the switch as a line.`,
  ].join('\n');
}

/** A signed GitHub delivery of `file`, with the secret from the shell variable `secret` the banner sets. */
function sampleCurl(url: string, event: string, file: string): string {
  const body = shellQuote(file);
  return (
    `  curl -sS ${url}/webhooks/github -H 'Content-Type: application/json' -H 'X-GitHub-Event: ${event}' ` +
    `-H 'X-GitHub-Delivery: ${randomUUID()}' ` +
    `-H "X-Hub-Signature-256: sha256=$(openssl dgst -sha256 -hmac "$secret" < ${body} | sed 's/.* //')" --data-binary @${body}`
  );
}
