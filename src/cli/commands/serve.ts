import { SERVICE_DEFAULTS, startService, type ServiceConfig, type RunningService } from '../../service/server.js';
import { flagOrEnv, parseCommandArgs, parsePort } from '../args.js';
import { forceExitAfter, untilStopSignal, type CliIo } from '../io.js';

export const SERVE_HELP = `Usage: timemark serve [options]

Runs the local annotation service: the /v2/annotations, /v2/datasets and /v2/user API of the
hosted service, stored durably in a SQLite file in the data dir.

Options (environment variable in brackets):
  --port N          port to listen on, 0 for any free one (TIMEMARK_PORT) [${SERVICE_DEFAULTS.port}]
  --host ADDR       address to listen on (TIMEMARK_HOST) [${SERVICE_DEFAULTS.host}]
  --data-dir DIR    where data is kept (TIMEMARK_DATA_DIR) [${SERVICE_DEFAULTS.dataDir}]
  --token TOKEN     accepted token, xaat-… or xapt-…; repeat for several
                    (TIMEMARK_TOKENS, comma-separated). None: one is generated,
                    saved in the data dir and printed.
  --org-id ID       organization that personal tokens must name (TIMEMARK_ORG_ID) [${SERVICE_DEFAULTS.orgId}]
`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  token: { type: 'string', multiple: true },
  'org-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function resolveServeConfig(args: string[], env: NodeJS.ProcessEnv): ServiceConfig | 'help' {
  const { values } = parseCommandArgs('serve', args, OPTIONS, 0);
  if (values.help) return 'help';
  const port = flagOrEnv(values.port, env, 'TIMEMARK_PORT');
  const tokens =
    values.token && values.token.length > 0
      ? values.token
      : (env.TIMEMARK_TOKENS ?? '')
          .split(',')
          .map((token) => token.trim())
          .filter((token) => token !== '');
  return {
    port: port === undefined ? SERVICE_DEFAULTS.port : parsePort(values.port !== undefined ? '--port' : 'TIMEMARK_PORT', port),
    host: flagOrEnv(values.host, env, 'TIMEMARK_HOST') ?? SERVICE_DEFAULTS.host,
    dataDir: flagOrEnv(values['data-dir'], env, 'TIMEMARK_DATA_DIR') ?? SERVICE_DEFAULTS.dataDir,
    tokens,
    orgId: flagOrEnv(values['org-id'], env, 'TIMEMARK_ORG_ID') ?? SERVICE_DEFAULTS.orgId,
  };
}

export function describeService(service: RunningService, dataDir: string): string {
  const lines = [`Timemark local service listening on ${service.url}`, `  data dir: ${dataDir}`];
  if (service.generatedToken) {
    lines.push(`  token:    ${service.generatedToken}  (generated; saved in ${service.tokenFile})`);
    lines.push('', 'Try it:', `  export TIMEMARK_URL=${service.url} TIMEMARK_TOKEN=${service.generatedToken}`);
  } else {
    lines.push('  token:    the one(s) you configured', '', 'Try it:', `  export TIMEMARK_URL=${service.url} TIMEMARK_TOKEN=<your token>`);
  }
  lines.push('  timemark annotate create --datasets demo --type deploy --title "First deploy"');
  return lines.join('\n');
}

export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  const config = resolveServeConfig(args, io.env);
  if (config === 'help') {
    io.out(SERVE_HELP);
    return 0;
  }
  // Listen for signals before announcing readiness: a supervisor may stop us right after.
  const stopRequested = untilStopSignal();
  const service = await startService(config);
  io.out(describeService(service, config.dataDir));
  const signal = await stopRequested;
  io.err(`Received ${signal}; closing connections and the store.`);
  forceExitAfter(10_000);
  await service.close();
  return 0;
}
