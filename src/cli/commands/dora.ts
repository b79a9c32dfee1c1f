/**
 * `timemark dora --datasets D --since 30d`: the four DORA figures from the annotations of some
 * datasets — deployments with their outcome, commit time and impact verdict, and incident and
 * monitor spans — listed through the public API, so it works against the hosted service too.
 */
import { createAnnotationsClient } from '../../client/annotations-client.js';
import { checkDatasetNames, checkType } from '../../common/annotation-contract.js';
import { formatDuration, parseDuration } from '../../common/duration.js';
import { parseNameList } from '../../common/name-list.js';
import { formatTime } from '../../common/time.js';
import { computeDora, DORA_DEFAULTS, type DoraReport } from '../../dora/dora.js';
import type { CliIo } from '../io.js';
import { renderDora } from '../impact/render.js';
import { HELP_OPTION, parseOptions, renderHelp, type CommandSpec } from '../options.js';
import { formatOption, outputFormat } from '../output-format.js';
import { serviceConnection, serviceOptions, withServiceFailures } from '../service-connection.js';
import { UsageError } from '../usage-error.js';

const FORMATS = ['table', 'json'] as const;
export const DORA_CLI_DEFAULTS = { since: '30d' } as const;

const SPEC: CommandSpec = {
  name: 'dora',
  usage: '--datasets A,B [--since 30d] [options]',
  summary: `Deployment frequency, change failure rate, time to restore and change lead time, from the
deployments and incidents annotated on the datasets. --explain adds each figure's definition,
how it was measured and every span it counted.`,
  options: [
    { name: 'datasets', type: 'string', multiple: true, value: 'A,B', help: 'datasets whose annotations to read (comma-separated or repeated)', example: 'production' },
    { name: 'since', type: 'string', value: 'DURATION', help: 'how far back from now: 7d, 30d, 90d', default: DORA_CLI_DEFAULTS.since, example: '90d' },
    { name: 'type', type: 'string', value: 'TYPE', help: 'annotation type of deployments', default: DORA_DEFAULTS.deployType, example: 'production-release' },
    {
      name: 'incident-types',
      type: 'string',
      value: 'A,B',
      help: 'annotation types of incidents',
      default: DORA_DEFAULTS.incidentTypes.join(','),
      example: 'incident,alert',
    },
    {
      name: 'failure-window',
      type: 'string',
      value: 'DURATION',
      help: 'an incident this soon after a deployment ends counts against it',
      default: formatDuration(DORA_DEFAULTS.failureWindowMs),
      example: '2h',
    },
    { name: 'explain', type: 'boolean', help: "each figure's definition, method and the spans it counted" },
    formatOption(FORMATS, 'table (for reading) or json'),
    ...serviceOptions(),
    HELP_OPTION,
  ],
  footer: 'Exit code 0 on success, 2 when the command line is wrong, 1 when a request failed.',
};

export const DORA_HELP = renderHelp(SPEC);

export async function run(args: string[], io: CliIo): Promise<number> {
  const options = parseOptions(SPEC, args);
  if (options.boolean('help')) {
    io.out(DORA_HELP);
    return 0;
  }
  const given = options.strings('datasets');
  if (given === undefined) throw new UsageError('--datasets is missing; give the datasets whose deployments to count, e.g. --datasets production.');
  const datasets = checkDatasetNames('--datasets', parseNameList('--datasets', given));
  const format = outputFormat(options.string('format'), FORMATS, io);
  const sinceMs = parseDuration('--since', options.string('since') ?? DORA_CLI_DEFAULTS.since);
  const failureWindowText = options.string('failure-window');
  const failureWindowMs = failureWindowText === undefined ? DORA_DEFAULTS.failureWindowMs : parseDuration('--failure-window', failureWindowText);
  const deployType = checkType('--type', options.string('type') ?? DORA_DEFAULTS.deployType);
  const incidentTypesText = options.string('incident-types');
  const incidentTypes = incidentTypesText === undefined ? [...DORA_DEFAULTS.incidentTypes] : parseNameList('--incident-types', [incidentTypesText]).map((type) => checkType('--incident-types', type));
  const explain = options.boolean('explain');
  const endMs = Date.now();
  const startMs = endMs - sinceMs;
  const connection = serviceConnection(options, io.env);
  const client = createAnnotationsClient(connection);
  try {
    const annotations = await withServiceFailures(connection.url, () => client.list({ datasets, start: formatTime(startMs), end: formatTime(endMs) }));
    const report = computeDora({ annotations, datasets, startMs, endMs, deployType, incidentTypes, failureWindowMs });
    io.out(format === 'json' ? JSON.stringify(explain ? report : withoutSpans(report), null, 2) : renderDora(report, explain, io.stdoutColumns));
    return 0;
  } finally {
    await client.close();
  }
}

/** The figures alone: the spans behind them come with --explain. */
function withoutSpans(report: DoraReport): unknown {
  const strip = <T extends { spans: unknown }>({ spans: _spans, ...figure }: T) => figure;
  return {
    ...report,
    deploymentFrequency: strip(report.deploymentFrequency),
    changeFailureRate: strip(report.changeFailureRate),
    timeToRestore: strip(report.timeToRestore),
    leadTime: strip(report.leadTime),
  };
}
