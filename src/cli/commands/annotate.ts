/**
 * `timemark annotate <create|list|get|update|close|delete>`: the annotation API from any shell or
 * CI. The checks the hosted service is known to make (the type pattern, lengths, an end before
 * the start) are made here first, from the shared contract, so they fail before any request,
 * with exit code 2 like every other usage error.
 */
import { createAnnotationsClient, type AnnotationsClient } from '../../client/annotations-client.js';
import {
  ANNOTATION_LIMITS,
  checkDatasetNames,
  checkLength,
  checkOrder,
  checkType,
  type AnnotationPatch,
  type NewAnnotation,
} from '../../common/annotation-contract.js';
import { parseNameList } from '../../common/name-list.js';
import { formatTime, parseTimeInput } from '../../common/time.js';
import type { CliIo } from '../io.js';
import { HELP_OPTION, parseOptions, renderHelp, type CommandSpec, type OptionSpec, type ParsedOptions } from '../options.js';
import { serviceConnection, serviceOptions, withServiceFailures } from '../service-connection.js';
import { UsageError } from '../usage-error.js';

const SERVICE_OPTIONS = serviceOptions();

const OPTION = {
  datasets: {
    name: 'datasets',
    type: 'string',
    multiple: true,
    value: 'A,B',
    help: `datasets whose charts show it (comma-separated or repeated, at most ${ANNOTATION_LIMITS.datasets})`,
    example: 'production',
  },
  type: { name: 'type', type: 'string', value: 'TYPE', help: 'kind of event: lowercase letters, digits and dashes (deploy, incident)', example: 'deploy' },
  time: { name: 'time', type: 'string', value: 'T', help: 'when it happened', default: 'now', example: '"2024-05-01 14:00"' },
  endTime: { name: 'end-time', type: 'string', value: 'T', help: 'end of the span, not before --time', example: 'now' },
  title: { name: 'title', type: 'string', value: 'TEXT', help: `short summary (at most ${ANNOTATION_LIMITS.title} characters)`, example: '"Deploy v2"' },
  description: { name: 'description', type: 'string', value: 'TEXT', help: `explanation (at most ${ANNOTATION_LIMITS.description} characters)`, example: '"Rolled out to 3 regions"' },
  link: { name: 'link', type: 'string', value: 'URL', help: `link for the annotation (its url field, at most ${ANNOTATION_LIMITS.url} characters)`, example: 'https://example.com/release/7' },
  retryAmbiguous: {
    name: 'retry-ambiguous',
    type: 'boolean',
    help: 'also retry failures after which the annotation may exist (a timeout, a dropped connection, a 5xx): risks a duplicate',
  },
  start: { name: 'start', type: 'string', value: 'T', help: 'only annotations that end at or after this time', example: 'now-1d' },
  end: { name: 'end', type: 'string', value: 'T', help: 'only annotations that start at or before this time', example: 'now' },
} as const satisfies Record<string, OptionSpec>;

const FIELD_OPTIONS: readonly OptionSpec[] = [OPTION.datasets, OPTION.type, OPTION.time, OPTION.endTime, OPTION.title, OPTION.description, OPTION.link];

const TIMES = `Times: ISO 8601 with any offset, e.g. 2024-05-01T14:00:00+02:00; a time without an offset,
e.g. "2024-05-01 14:00", is read as UTC. Also Unix seconds or milliseconds, now, now-5m, now+1h.`;
const OUTPUT = `Output: the service's JSON on stdout. On failure: one line on stderr and a non-zero exit
(1 when the service or the network failed, 2 when the command was called wrongly).`;

type Subcommand = 'create' | 'list' | 'get' | 'update' | 'close' | 'delete';

const SUBCOMMANDS: Record<Subcommand, CommandSpec> = {
  create: {
    name: 'annotate create',
    usage: '--datasets A,B --type TYPE [options]',
    summary: 'Creates an annotation and prints it.',
    options: [...FIELD_OPTIONS, OPTION.retryAmbiguous, ...SERVICE_OPTIONS, HELP_OPTION],
    footer: `${TIMES}\n\n${OUTPUT}`,
  },
  list: {
    name: 'annotate list',
    usage: '[--datasets A,B] [--start T] [--end T] [options]',
    summary: 'Lists annotations, optionally only those of some datasets or overlapping a window.',
    options: [OPTION.datasets, OPTION.start, OPTION.end, ...SERVICE_OPTIONS, HELP_OPTION],
    footer: `${TIMES}\n\n${OUTPUT}`,
  },
  get: { name: 'annotate get', usage: 'ID [options]', summary: 'Prints one annotation.', options: [...SERVICE_OPTIONS, HELP_OPTION], positionals: 1, footer: OUTPUT },
  update: {
    name: 'annotate update',
    usage: 'ID [fields] [options]',
    summary: 'Changes the fields given and keeps the others.',
    options: [...FIELD_OPTIONS, ...SERVICE_OPTIONS, HELP_OPTION],
    positionals: 1,
    footer: `${TIMES}\n\n${OUTPUT}`,
  },
  close: {
    name: 'annotate close',
    usage: 'ID [--end-time T] [options]',
    summary: 'Closes a span: sets its end to now, or to --end-time.',
    options: [OPTION.endTime, ...SERVICE_OPTIONS, HELP_OPTION],
    positionals: 1,
    footer: `${TIMES}\n\n${OUTPUT}`,
  },
  delete: { name: 'annotate delete', usage: 'ID [options]', summary: 'Deletes an annotation.', options: [...SERVICE_OPTIONS, HELP_OPTION], positionals: 1, footer: OUTPUT },
};

export const ANNOTATE_HELP = `Usage: timemark annotate <command> [options]

Creates, lists, shows, changes, closes and deletes annotations on the hosted service or a
local one (timemark serve), from any shell or CI.

Commands:
  create              create an annotation (needs --datasets and --type)
  list                list annotations (filters: --datasets, --start, --end)
  get ID              show one annotation
  update ID           change the given fields, keep the rest
  close ID            set endTime (now, or --end-time) to close a span
  delete ID           delete an annotation

Run "timemark annotate <command> --help" for a command's options.

${TIMES}
`;

/** For the command line's messages: `timemark annotate create: …`. */
export const subcommands = Object.keys(SUBCOMMANDS) as Subcommand[];

export async function run(args: string[], io: CliIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    const topic = rest[0];
    if (subcommand === 'help' && topic !== undefined && isSubcommand(topic)) io.out(renderHelp(SUBCOMMANDS[topic]));
    else io.out(ANNOTATE_HELP);
    return subcommand === undefined ? 2 : 0;
  }
  if (!isSubcommand(subcommand)) {
    throw new UsageError(`unknown command ${JSON.stringify(subcommand)}; use one of ${subcommands.join(', ')}, see "timemark annotate --help".`);
  }
  const spec = SUBCOMMANDS[subcommand];
  const options = parseOptions(spec, rest);
  if (options.boolean('help')) {
    io.out(renderHelp(spec));
    return 0;
  }
  const id = options.positionals[0];
  if ((spec.positionals ?? 0) > 0 && !id) {
    throw new UsageError(`the annotation id is missing; give it first, e.g. "timemark annotate ${subcommand} ann_1a2b3c".`);
  }
  const now = Date.now();
  // Everything is read and checked before the client exists: a usage error sends nothing.
  const request = prepare(subcommand, options, now);
  const connection = serviceConnection(options, io.env);
  const client = createAnnotationsClient(connection);
  try {
    const result = await withServiceFailures(connection.url, () => request(client, id ?? ''));
    io.out(JSON.stringify(result, null, 2));
    return 0;
  } finally {
    await client.close();
  }
}

function isSubcommand(name: string): name is Subcommand {
  return Object.hasOwn(SUBCOMMANDS, name);
}

type Request = (client: AnnotationsClient, id: string) => Promise<unknown>;

/** Reads and checks the command's fields, and returns the call to make with them. */
function prepare(subcommand: Subcommand, options: ParsedOptions, now: number): Request {
  switch (subcommand) {
    case 'create': {
      const annotation = newAnnotation(options, now);
      const retryAmbiguousFailures = options.boolean('retry-ambiguous');
      return (client) => client.create(annotation, { retryAmbiguousFailures });
    }
    case 'list': {
      const datasets = options.strings('datasets');
      const start = optionalTime('--start', options.string('start'), now);
      const end = optionalTime('--end', options.string('end'), now);
      if (start !== undefined && end !== undefined) checkOrder('--start', Date.parse(start), '--end', Date.parse(end));
      return (client) => client.list({ datasets: datasets ? datasetNames(datasets) : undefined, start, end });
    }
    case 'get':
      return (client, id) => client.get(id);
    case 'update': {
      const patch = patchOf(options, now);
      if (Object.keys(patch).length === 0) {
        throw new UsageError(`nothing to change; give at least one of ${FIELD_OPTIONS.map((option) => `--${option.name}`).join(', ')}.`);
      }
      return (client, id) => client.update(id, patch);
    }
    case 'close': {
      const endTime = optionalTime('--end-time', options.string('end-time'), now) ?? formatTime(now);
      return (client, id) => client.update(id, { endTime });
    }
    case 'delete':
      return async (client, id) => {
        await client.delete(id);
        return { id, deleted: true };
      };
  }
}

function newAnnotation(options: ParsedOptions, now: number): NewAnnotation {
  const patch = patchOf(options, now);
  if (!patch.datasets) throw new UsageError('--datasets is missing; say which charts show it, e.g. --datasets production.');
  if (!patch.type) throw new UsageError('--type is missing; say what kind of event it is, e.g. --type deploy.');
  // Sent rather than left to the service, so that an --end-time is checked against the same start.
  const time = patch.time ?? formatTime(now);
  if (patch.endTime !== undefined) checkOrder('--time', Date.parse(time), '--end-time', Date.parse(patch.endTime));
  return { ...patch, datasets: patch.datasets, type: patch.type, time };
}

function patchOf(options: ParsedOptions, now: number): AnnotationPatch {
  const patch: AnnotationPatch = {};
  const datasets = options.strings('datasets');
  if (datasets) patch.datasets = datasetNames(datasets);
  const type = options.string('type');
  if (type !== undefined) patch.type = checkType('--type', type);
  const time = optionalTime('--time', options.string('time'), now);
  if (time) patch.time = time;
  const endTime = optionalTime('--end-time', options.string('end-time'), now);
  if (endTime) patch.endTime = endTime;
  if (time && endTime) checkOrder('--time', Date.parse(time), '--end-time', Date.parse(endTime));
  const title = options.string('title');
  if (title !== undefined) patch.title = checkLength('--title', title, 'title');
  const description = options.string('description');
  if (description !== undefined) patch.description = checkLength('--description', description, 'description');
  const link = options.string('link');
  if (link !== undefined) patch.url = checkLength('--link', link, 'url');
  return patch;
}

function datasetNames(values: readonly string[]): string[] {
  return checkDatasetNames('--datasets', parseNameList('--datasets', values));
}

function optionalTime(flag: string, value: string | undefined, now: number): string | undefined {
  return value === undefined ? undefined : formatTime(parseTimeInput(flag, value, now));
}
