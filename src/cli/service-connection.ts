/**
 * What every command that calls the service API shares: the options that say where the service
 * is and how to reach it, reading them into the client transport's options, and turning a failed
 * request into the one sentence a person can act on.
 */
import type { ApiError } from '../client/api-error.js';
import { CLIENT_DEFAULTS, type TransportOptions } from '../client/transport.js';
import { flagOrEnv } from './args.js';
import { parseWholeNumber, type OptionSpec, type ParsedOptions } from './options.js';
import type { FailureContext } from './service-failure.js';
import { UsageError } from './usage-error.js';

/** The service options, described once for parsing and --help. `timeoutMs` is the command's default per-request limit. */
export function serviceOptions(defaults: { timeoutMs?: number } = {}): readonly OptionSpec[] {
  return [
    { name: 'url', type: 'string', value: 'URL', env: 'TIMEMARK_URL', help: 'service root, e.g. http://127.0.0.1:8080 or https://api.axiom.co', example: 'http://127.0.0.1:8080' },
    { name: 'token', type: 'string', value: 'TOKEN', env: 'TIMEMARK_TOKEN', help: 'API token xaat-… or personal token xapt-…', example: 'xaat-…' },
    { name: 'org-id', type: 'string', value: 'ID', env: 'TIMEMARK_ORG_ID', help: 'organization id, needed with a personal token', example: 'my-org' },
    {
      name: 'timeout',
      type: 'string',
      value: 'MS',
      help: 'time limit per attempt, in milliseconds',
      default: defaults.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs,
      example: '5000',
      integer: { min: 1, unit: 'milliseconds' },
    },
    {
      name: 'retries',
      type: 'string',
      value: 'N',
      help: 'further attempts on rate limits, 5xx and network errors',
      default: CLIENT_DEFAULTS.retries,
      example: '3',
      integer: { min: 0 },
    },
  ];
}

/**
 * The service root and credentials from the flags or TIMEMARK_URL / TIMEMARK_TOKEN /
 * TIMEMARK_ORG_ID, with the per-attempt limit and retries. A malformed URL is caught by the
 * transport as a ConfigError, which the command line reports as a usage error.
 */
export function serviceConnection(options: ParsedOptions, env: NodeJS.ProcessEnv, defaults: { timeoutMs?: number } = {}): TransportOptions {
  const url = flagOrEnv(options.string('url'), env, 'TIMEMARK_URL');
  if (!url) throw new UsageError('no service URL; pass --url or set TIMEMARK_URL, e.g. http://127.0.0.1:8080.');
  const token = flagOrEnv(options.string('token'), env, 'TIMEMARK_TOKEN');
  if (!token) throw new UsageError('no token; pass --token or set TIMEMARK_TOKEN to an API token (xaat-…) or a personal token (xapt-…).');
  const specs = serviceOptions(defaults);
  return {
    url,
    token,
    orgId: flagOrEnv(options.string('org-id'), env, 'TIMEMARK_ORG_ID'),
    timeoutMs: wholeNumber(options, specs, 'timeout') ?? defaults.timeoutMs,
    retries: wholeNumber(options, specs, 'retries'),
    userAgent: 'timemark-cli',
  };
}

function wholeNumber(options: ParsedOptions, specs: readonly OptionSpec[], name: 'timeout' | 'retries'): number | undefined {
  const text = options.string(name);
  const spec = specs.find((option) => option.name === name);
  if (text === undefined || spec?.integer === undefined) return undefined;
  return parseWholeNumber(`--${name}`, text, { ...spec.integer, example: spec.example ?? String(spec.integer.min) });
}

/**
 * Runs `work`; an ApiError from it becomes a ServiceFailureError whose message says what to do
 * (is the service running, which flag changes it). The modules that word it load only on failure.
 */
export async function withServiceFailures<T>(url: string, work: () => Promise<T>, ambiguous?: FailureContext['ambiguous']): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const [{ ApiError }, { describeServiceFailure, ServiceFailureError }, { selfCommand }] = await Promise.all([
      import('../client/api-error.js'),
      import('./service-failure.js'),
      import('./self-command.js'),
    ]);
    if (!(error instanceof ApiError)) throw error;
    throw new ServiceFailureError(describeServiceFailure(error as ApiError, { url, self: selfCommand(), ...(ambiguous ? { ambiguous } : {}) }), error);
  }
}
