/** `timemark serve`: the local service. */
import { dashboardAddress } from '../../common/dashboard-link.js';
import { loadServiceConfig, SERVICE_DEFAULTS, type ServiceConfig } from '../../service/config.js';
import type { RunningService } from '../../service/server.js';
import { readPartFlags } from '../args.js';
import { runUntilStopped, type CliIo } from '../io.js';
import { HELP_OPTION, parseOptions, renderHelp, type CommandSpec } from '../options.js';
import { selfCommand, shellQuote } from '../self-command.js';

const SPEC: CommandSpec = {
  name: 'serve',
  usage: '[options]',
  summary: `Runs the local service: the hosted service's API on this machine (annotations, datasets and
their events, APL and structured queries, dashboards, monitors and notifiers), kept durably in the
data dir (SQLite, and DuckDB for the events), and the dashboard at /.`,
  options: [
    { name: 'port', type: 'string', value: 'N', env: 'TIMEMARK_PORT', help: 'port to listen on, 0 for any free one', default: SERVICE_DEFAULTS.port, example: '8080', integer: { min: 0 } },
    { name: 'host', type: 'string', value: 'ADDR', env: 'TIMEMARK_HOST', help: 'address to listen on', default: SERVICE_DEFAULTS.host, example: '0.0.0.0' },
    { name: 'data-dir', type: 'string', value: 'DIR', env: 'TIMEMARK_DATA_DIR', help: 'where data is kept', default: SERVICE_DEFAULTS.dataDir, example: '/var/lib/timemark' },
    {
      name: 'token',
      type: 'string',
      multiple: true,
      value: 'TOKEN',
      env: 'TIMEMARK_TOKENS, comma-separated',
      help: 'accepted token, xaat-… or xapt-…, repeat for several; none: one is generated and saved in the data dir',
      example: 'xaat-…',
    },
    { name: 'org-id', type: 'string', value: 'ID', env: 'TIMEMARK_ORG_ID', help: 'organization that personal tokens must name', default: SERVICE_DEFAULTS.orgId, example: 'my-org' },
    HELP_OPTION,
  ],
  footer: `Environment only:
  TIMEMARK_LOG_LEVEL  fatal, error, warn, info (one JSON line per request), debug or silent [${SERVICE_DEFAULTS.logLevel}]`,
};

export const SERVE_HELP = renderHelp(SPEC);

export function resolveServeConfig(args: string[], env: NodeJS.ProcessEnv): ServiceConfig | 'help' {
  const options = parseOptions(SPEC, args);
  if (options.boolean('help')) return 'help';
  const tokens = options.strings('token');
  const orgId = options.string('org-id');
  return loadServiceConfig(
    {
      ...readPartFlags(options),
      ...(tokens ? { tokens } : {}),
      ...(orgId ? { orgId } : {}),
    },
    env,
  );
}

/**
 * The banner. Its "Try it" lines run as printed, from the directory the service was started in,
 * right after `npm ci`: the CLI is named as it can be run from here, and a generated token is
 * read from its file rather than pasted.
 */
export function describeService(service: RunningService, dataDir: string, self = selfCommand()): string {
  return [
    ...serviceBanner(service, dataDir),
    '',
    'Try it, from this directory:',
    `  ${sessionExport(service)}`,
    `  ${self} annotate create --datasets demo --type deploy --title "First deploy"`,
  ].join('\n');
}

/** The service's lines of a banner, `timemark serve`'s and `timemark start`'s. */
export function serviceBanner(service: RunningService, dataDir: string): string[] {
  const lines = [`Timemark local service listening on ${service.url}`, `  data dir:  ${dataDir}`];
  if (service.generatedToken && service.tokenFile) {
    lines.push(`  token:     ${service.generatedToken}  (generated; saved in ${service.tokenFile})`);
    lines.push(`  dashboard: ${dashboardAddress(service.url, service.generatedToken)}`);
  } else {
    lines.push('  token:     the one(s) you configured', `  dashboard: ${dashboardAddress(service.url)}  (sign in with your token)`);
  }
  return lines;
}

/** The shell line that points the CLI at the service (`TIMEMARK_URL`, `TIMEMARK_TOKEN`), reading a generated token from its file. */
export function sessionExport(service: RunningService): string {
  const token = service.generatedToken && service.tokenFile ? `"$(cat ${shellQuote(service.tokenFile)})"` : '<your token>';
  return `export TIMEMARK_URL=${service.url} TIMEMARK_TOKEN=${token}`;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const config = resolveServeConfig(args, io.env);
  if (config === 'help') {
    io.out(SERVE_HELP);
    return 0;
  }
  const { startService } = await import('../../service/server.js');
  return runUntilStopped(io, {
    start: () => startService(config),
    banner: (service) => describeService(service, config.dataDir),
    stopping: 'closing connections and the store.',
    graceMs: 10_000,
  });
}
