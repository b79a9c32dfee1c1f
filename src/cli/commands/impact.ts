/**
 * `timemark impact <annotation-id>`: did this change make things worse? The annotation's window
 * before against the same window after, signal by signal, through the public API only (the
 * annotation, the dataset's fields, APL), so it works against the hosted service too. The exit
 * code is for scripts: 0 when nothing regressed, 3 when a signal regressed.
 */
import { createAnnotationsClient } from '../../client/annotations-client.js';
import { createEventsClient } from '../../client/events-client.js';
import { formatDuration, parseDuration } from '../../common/duration.js';
import { computeImpact, DEFAULT_WINDOW_MS } from '../../impact/impact.js';
import type { CliIo } from '../io.js';
import { renderImpact } from '../impact/render.js';
import { HELP_OPTION, parseOptions, renderHelp, type CommandSpec } from '../options.js';
import { formatOption, outputFormat } from '../output-format.js';
import { serviceConnection, serviceOptions, withServiceFailures } from '../service-connection.js';
import { UsageError } from '../usage-error.js';

export const IMPACT_DEFAULTS = { window: formatDuration(DEFAULT_WINDOW_MS) } as const;
const FORMATS = ['table', 'json'] as const;
/** Exit code when a signal regressed: distinct from failures (1) and usage errors (2). */
export const REGRESSED_EXIT = 3;

const SPEC: CommandSpec = {
  name: 'impact',
  usage: 'ANNOTATION-ID [options]',
  summary: `Compares a dataset's signals in a window before a change (a point annotation, or a span once it has ended)
with the same window after it, and says whether it regressed, improved, changed nothing, or
cannot tell (not enough data). The default signals are the error rate (status >= 500) and the
p95 latency, from fields found in the dataset's field list.`,
  options: [
    { name: 'dataset', type: 'string', value: 'D', help: "dataset whose events to compare (default: the annotation's first)", example: 'production' },
    {
      name: 'signal',
      type: 'string',
      multiple: true,
      value: "'APL'",
      help: 'an APL aggregation to compare instead of the defaults, e.g. \'countif(level == "error")\' (repeatable)',
      example: "'percentile(duration_ms, 99)'",
    },
    { name: 'window', type: 'string', value: 'DURATION', help: 'length of each window: 90s, 30m, 2h, 1d', default: IMPACT_DEFAULTS.window, example: '1h' },
    formatOption(FORMATS, 'table (for reading) or json (the whole result)'),
    ...serviceOptions(),
    HELP_OPTION,
  ],
  positionals: 1,
  footer: `Rules: countif(…) signals and the error rate compare the share of matching events (two-proportion
test); percentile(…) signals the share of values above the before window's percentile; any other
aggregation is compared over 10 buckets of each window (Mann-Whitney U). Each needs a minimum
sample, and a change of at least 10%; all signals together have a 1% chance of a false verdict.

Exit code 0 when nothing regressed, 3 when a signal regressed, 2 when the command line is wrong,
1 when a request failed.`,
};

export const IMPACT_HELP = renderHelp(SPEC);

export async function run(args: string[], io: CliIo): Promise<number> {
  const options = parseOptions(SPEC, args);
  if (options.boolean('help')) {
    io.out(IMPACT_HELP);
    return 0;
  }
  const [id] = options.positionals;
  if (id === undefined || id.trim() === '') throw new UsageError('the annotation id is missing; give it first, e.g. timemark impact ann_1a2b3c.');
  const format = outputFormat(options.string('format'), FORMATS, io);
  const windowMs = parseDuration('--window', options.string('window') ?? IMPACT_DEFAULTS.window);
  const dataset = options.string('dataset');
  const signals = options.strings('signal') ?? [];
  const connection = serviceConnection(options, io.env);
  const annotations = createAnnotationsClient(connection);
  const events = createEventsClient(connection);
  try {
    const result = await withServiceFailures(connection.url, async () =>
      computeImpact(events, {
        annotation: await annotations.get(id),
        ...(dataset === undefined ? {} : { dataset }),
        signals,
        windowMs,
        nowMs: Date.now(),
      }),
    );
    io.out(format === 'json' ? JSON.stringify(result, null, 2) : renderImpact(result, io.stdoutColumns));
    return result.verdict === 'regressed' ? REGRESSED_EXIT : 0;
  } finally {
    await Promise.all([annotations.close(), events.close()]);
  }
}
