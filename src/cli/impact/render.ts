/**
 * What `timemark impact` and `timemark dora` print on a terminal: the verdict or the figures
 * first, then the table, then what decided them. Programs get the JSON instead.
 */
import { readableDuration } from '../../common/duration.js';
import { roundFigure as round, type CountedSpan, type DoraReport, type Figure } from '../../dora/dora.js';
import { formatChange, formatSide, formatTest, signalLabel } from '../../impact/format.js';
import type { ImpactResult } from '../../impact/impact.js';
import { RULES, type RuleName } from '../../impact/rules.js';
import { renderTable } from '../query/render.js';

/** Rows as a table, through the query command's renderer. */
function textTable(headers: readonly string[], rows: readonly (readonly string[])[], columns?: number): string {
  return renderTable({ name: '0', fields: headers.map((name) => ({ name, type: 'string' })), columns: headers.map((_, index) => rows.map((row) => row[index] ?? '')) }, columns);
}

export function renderImpact(result: ImpactResult, columns?: number): string {
  const { annotation } = result;
  const title = annotation.title === undefined ? '' : ` "${annotation.title}"`;
  const window = readableDuration(result.windowMs);
  const lines = [
    `Impact of ${annotation.type}${title} (${annotation.id}) on ${result.dataset}: ${result.verdict.toUpperCase()}`,
    `${window} before (${result.before.start} to ${result.before.end}) against ${window} after (${result.after.start} to ${result.after.end}${result.after.complete ? '' : ', not over yet'})`,
  ];
  if (result.signals.length > 0) {
    const rows = result.signals.map((signal) => [signalLabel(signal), formatSide(signal, signal.before), formatSide(signal, signal.after), formatChange(signal.change), signal.verdict, formatTest(signal)]);
    lines.push('', textTable(['signal', 'before', 'after', 'change', 'verdict', 'test'], rows, columns), '');
    for (const signal of result.signals) lines.push(`${signalLabel(signal)}: ${signal.verdict}: ${signal.reason}`);
    const rules = [...new Set(result.signals.map((signal) => signal.rule))] as RuleName[];
    lines.push('', `Rules (a ${result.familyAlpha * 100}% chance of a false verdict over all signals, shared equally):`, ...rules.map((rule) => `  ${rule}: ${RULES[rule]}`));
  }
  if (result.missing.length > 0 || result.notes.length > 0) lines.push('');
  for (const missing of result.missing) lines.push(`${missing.signal} not measured: ${missing.reason}`);
  for (const note of result.notes) lines.push(note);
  return lines.join('\n');
}

export function renderDora(report: DoraReport, explain: boolean, columns?: number): string {
  const { deploymentFrequency: frequency, changeFailureRate: failures, timeToRestore: restore, leadTime: lead } = report;
  const rows = [
    ['Deployment frequency', `${round(frequency.perDay)} per day (${round(frequency.perWeek)} per week)`, `${frequency.deployments} deployments`],
    [
      'Change failure rate',
      failures.rate === null ? 'no deployments' : `${round(failures.rate * 100)}%`,
      `${failures.failed} of ${failures.deployments} deployments failed`,
    ],
    ['Time to restore', restore.medianMs === null ? 'no restores' : `median ${readableDuration(restore.medianMs)}`, `${restore.restored} restored, ${restore.open} not restored`],
    ['Change lead time', lead.medianMs === null ? 'not known' : `median ${readableDuration(lead.medianMs)}`, `known for ${lead.known} deployments, not known for ${lead.unknown}`],
  ];
  const lines = [
    `DORA figures for ${report.datasets.join(', ')}: ${round(report.period.days)} days from ${report.period.start} to ${report.period.end}`,
    '',
    textTable(['figure', 'value', 'from'], rows, columns),
  ];
  if (!explain) {
    lines.push('', 'Add --explain for the definitions and every span counted.');
    return lines.join('\n');
  }
  const figures: [string, Figure][] = [
    ['Deployment frequency', frequency],
    ['Change failure rate', failures],
    ['Time to restore', restore],
    ['Change lead time', lead],
  ];
  for (const [name, figure] of figures) {
    lines.push('', `${name}`, `  ${figure.definition}`, `  Measured as: ${figure.method}.`);
    if (figure.spans.length === 0) lines.push('  No spans.');
    for (const span of figure.spans) lines.push(`  ${span.counted ? 'counted' : 'skipped'}  ${describe(span)}: ${span.note}`);
  }
  return lines.join('\n');
}

function describe(span: CountedSpan): string {
  const title = span.title === undefined ? '' : ` "${span.title}"`;
  return `${span.id} ${span.type}${title} ${span.time}${span.endTime === undefined ? '' : ` to ${span.endTime}`}`;
}
