import { createAnnotationsClient, type AnnotationPatch, type AnnotationsClient, type NewAnnotation } from '../../client/index.js';
import { CLIENT_DEFAULTS } from '../../client/annotations-client.js';
import { parseNameList } from '../../common/name-list.js';
import { formatTime, parseTimeInput } from '../../common/time.js';
import { flagOrEnv, parseCommandArgs, parsePositiveInteger } from '../args.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../usage-error.js';

export const ANNOTATE_HELP = `Usage: timemark annotate <command> [options]

Commands:
  create              create an annotation (needs --datasets and --type)
  list                list annotations (filters: --datasets, --start, --end)
  get ID              show one annotation
  update ID           change the given fields, keep the rest
  close ID            set endTime (now, or --end-time) to close a span
  delete ID           delete an annotation

Service (environment variable in brackets):
  --url URL           service root (TIMEMARK_URL), e.g. http://127.0.0.1:8080 or https://api.axiom.co
  --token TOKEN       API token xaat-… or personal token xapt-… (TIMEMARK_TOKEN)
  --org-id ID         organization id, needed with a personal token (TIMEMARK_ORG_ID)
  --timeout MS        time limit per attempt [${CLIENT_DEFAULTS.timeoutMs}]
  --retries N         further attempts on rate limits, 5xx and network errors [${CLIENT_DEFAULTS.retries}]
  --retry-ambiguous   create: also retry failures after which the annotation may exist (risks a duplicate)

Fields:
  --datasets A,B      datasets whose charts show it (comma-separated or repeated)
  --type TYPE         kind of event: lowercase letters, digits, dashes (deploy, incident)
  --time T            when it happened [now]
  --end-time T        end of the span
  --title TEXT        short summary (≤ 256)
  --description TEXT  explanation (≤ 512)
  --link URL          link for the annotation (its url field)
  --start T, --end T  list: only annotations overlapping this window

Times: ISO 8601 with any offset, Unix seconds or milliseconds, now, now-5m, now+1h.
Output: the service's JSON on stdout. On failure: one line on stderr and a non-zero exit
(1 when the service or network failed, 2 when the command was called wrongly).
`;

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  'org-id': { type: 'string' },
  timeout: { type: 'string' },
  retries: { type: 'string' },
  'retry-ambiguous': { type: 'boolean' },
  datasets: { type: 'string', multiple: true },
  type: { type: 'string' },
  time: { type: 'string' },
  'end-time': { type: 'string' },
  title: { type: 'string' },
  description: { type: 'string' },
  link: { type: 'string' },
  start: { type: 'string' },
  end: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values'];

const FIELD_FLAGS = ['datasets', 'type', 'time', 'end-time', 'title', 'description', 'link'] as const;
const FLAGS_OF: Record<string, readonly string[]> = {
  create: [...FIELD_FLAGS, 'retry-ambiguous'],
  list: ['datasets', 'start', 'end'],
  get: [],
  update: FIELD_FLAGS,
  close: ['end-time'],
  delete: [],
};
const SERVICE_FLAGS = ['url', 'token', 'org-id', 'timeout', 'retries', 'help'];

export async function annotateCommand(args: string[], io: CliIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    io.out(ANNOTATE_HELP);
    return subcommand === undefined ? 2 : 0;
  }
  const allowed = FLAGS_OF[subcommand];
  if (!allowed) {
    throw new UsageError(`Unknown annotate command ${JSON.stringify(subcommand)}. Expected one of: ${Object.keys(FLAGS_OF).join(', ')}.`);
  }
  const takesId = subcommand !== 'create' && subcommand !== 'list';
  const { values, positionals } = parseCommandArgs(`annotate ${subcommand}`, rest, OPTIONS, takesId ? 1 : 0);
  if (values.help) {
    io.out(ANNOTATE_HELP);
    return 0;
  }
  for (const flag of Object.keys(values)) {
    if (!allowed.includes(flag) && !SERVICE_FLAGS.includes(flag)) {
      throw new UsageError(`annotate ${subcommand} does not take --${flag}. It takes: ${allowed.map((name) => `--${name}`).join(', ') || 'no field options'}.`);
    }
  }
  const id = positionals[0];
  if (takesId && !id) throw new UsageError(`annotate ${subcommand} needs the annotation id, e.g. "timemark annotate ${subcommand} ann_1a2b3c".`);

  const client = createClient(values, io.env);
  try {
    const result = await run(client, subcommand, id ?? '', values);
    io.out(JSON.stringify(result, null, 2));
    return 0;
  } finally {
    await client.close();
  }
}

async function run(client: AnnotationsClient, subcommand: string, id: string, values: Values): Promise<unknown> {
  const now = Date.now();
  switch (subcommand) {
    case 'create':
      return client.create(newAnnotation(values, now), { retryAmbiguousFailures: values['retry-ambiguous'] === true });
    case 'list':
      return client.list({
        datasets: values.datasets ? parseNameList('--datasets', values.datasets) : undefined,
        start: optionalTime('--start', values.start, now),
        end: optionalTime('--end', values.end, now),
      });
    case 'get':
      return client.get(id);
    case 'update': {
      const patch = patchOf(values, now);
      if (Object.keys(patch).length === 0) {
        throw new UsageError(`annotate update needs at least one field to change: ${FIELD_FLAGS.map((flag) => `--${flag}`).join(', ')}.`);
      }
      return client.update(id, patch);
    }
    case 'close':
      return client.update(id, { endTime: optionalTime('--end-time', values['end-time'], now) ?? formatTime(now) });
    default:
      await client.delete(id);
      return { id, deleted: true };
  }
}

function newAnnotation(values: Values, now: number): NewAnnotation {
  if (!values.datasets) throw new UsageError('annotate create needs --datasets, e.g. --datasets production.');
  if (!values.type) throw new UsageError('annotate create needs --type, e.g. --type deploy.');
  return { ...patchOf(values, now), datasets: parseNameList('--datasets', values.datasets), type: values.type };
}

function patchOf(values: Values, now: number): AnnotationPatch {
  const patch: AnnotationPatch = {};
  if (values.datasets) patch.datasets = parseNameList('--datasets', values.datasets);
  if (values.type !== undefined) patch.type = values.type;
  const time = optionalTime('--time', values.time, now);
  if (time) patch.time = time;
  const endTime = optionalTime('--end-time', values['end-time'], now);
  if (endTime) patch.endTime = endTime;
  if (values.title !== undefined) patch.title = values.title;
  if (values.description !== undefined) patch.description = values.description;
  if (values.link !== undefined) patch.url = values.link;
  return patch;
}

function optionalTime(flag: string, value: string | undefined, now: number): string | undefined {
  return value === undefined ? undefined : formatTime(parseTimeInput(flag, value, now));
}

function createClient(values: Values, env: NodeJS.ProcessEnv): AnnotationsClient {
  const url = flagOrEnv(values.url, env, 'TIMEMARK_URL');
  if (!url) throw new UsageError('No service URL. Pass --url or set TIMEMARK_URL, e.g. http://127.0.0.1:8080.');
  const token = flagOrEnv(values.token, env, 'TIMEMARK_TOKEN');
  if (!token) throw new UsageError('No token. Pass --token or set TIMEMARK_TOKEN to an API token (xaat-…) or a personal token (xapt-…).');
  try {
    return createAnnotationsClient({
      url,
      token,
      orgId: flagOrEnv(values['org-id'], env, 'TIMEMARK_ORG_ID'),
      timeoutMs: values.timeout === undefined ? undefined : parsePositiveInteger('--timeout', values.timeout),
      retries: values.retries === undefined ? undefined : parsePositiveInteger('--retries', values.retries, { allowZero: true }),
      userAgent: 'timemark-cli',
    });
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
}
