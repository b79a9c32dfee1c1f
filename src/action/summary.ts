import type { Annotation } from '../client/index.js';
import { readableDuration } from '../common/duration.js';
import { formatChange, formatSide, formatTest, signalLabel } from '../impact/format.js';
import { RULES, type RuleName } from '../impact/rules.js';
import type { MainResult, PostResult } from './annotate.js';
import type { GateResult } from './gate.js';

const HEADINGS: Record<MainResult['outcome'], string> = {
  created: 'Annotation created',
  updated: 'Annotation updated',
  closed: 'Annotation closed',
  'already-closed': 'Annotation already closed (its endTime is kept)',
  'span-opened': 'Span opened (it closes when the job ends)',
  'span-reused': 'Span of an earlier attempt taken over (it closes when the job ends)',
  'dry-run': 'Dry run: nothing was sent',
};

/** The job summary of the main step: a table of the annotation and a link to what it points at. */
export function renderMainSummary(result: MainResult): string {
  const shown: Partial<Annotation> = result.annotation ?? (result.request?.body as Partial<Annotation> | undefined) ?? {};
  return renderTable(`Timemark: ${HEADINGS[result.outcome]}`, shown);
}

export function renderPostSummary(result: PostResult): string {
  const heading = result.closed ? 'Span closed' : 'Span left open';
  return renderTable(`Timemark: ${heading}`, result.annotation);
}

/** The gate's verdict: each signal before and after, the rule that decided, and what could not be measured. */
export function renderGateSummary(result: GateResult, dataset: string): string {
  if (result.kind === 'skipped') return [`### Timemark: impact on ${code(dataset)} not measured`, '', cell(`The ${result.reason}`), ''].join('\n');
  const { impact } = result;
  const window = readableDuration(impact.windowMs);
  const lines = [
    `### Timemark: impact on ${code(impact.dataset)}: **${impact.verdict}**`,
    '',
    `${window} before the span (${impact.before.start} to ${impact.before.end}) against ${window} after it (${impact.after.start} to ${impact.after.end}${impact.after.complete ? '' : ', not over yet'}).`,
    '',
  ];
  if (impact.signals.length > 0) {
    lines.push('| signal | before | after | change | verdict | test | why |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const signal of impact.signals) {
      const row = [cell(signalLabel(signal)), formatSide(signal, signal.before), formatSide(signal, signal.after), formatChange(signal.change), `**${signal.verdict}**`, formatTest(signal), cell(signal.reason)];
      lines.push(`| ${row.join(' | ')} |`);
    }
    lines.push('');
    const rules = [...new Set(impact.signals.map((signal) => signal.rule))] as RuleName[];
    lines.push(`Rules (${impact.familyAlpha * 100}% chance of a false verdict over all signals): ${rules.map((rule) => `${rule}: ${cell(RULES[rule])}`).join('; ')}.`, '');
  }
  for (const missing of impact.missing) lines.push(`- ${cell(missing.signal)} not measured: ${cell(missing.reason)}`);
  for (const note of impact.notes) lines.push(`- ${cell(note)}`);
  if (impact.missing.length > 0 || impact.notes.length > 0) lines.push('');
  return lines.join('\n');
}

function renderTable(heading: string, annotation: Partial<Annotation>): string {
  const rows: [string, string][] = [
    ['id', annotation.id ? code(annotation.id) : '—'],
    ['datasets', annotation.datasets ? annotation.datasets.map(code).join(', ') : '—'],
    ['type', annotation.type ? code(annotation.type) : '—'],
    ['time', annotation.time ?? '—'],
    ['endTime', annotation.endTime ?? '—'],
    ['title', annotation.title ? cell(annotation.title) : '—'],
    ['description', annotation.description ? cell(annotation.description) : '—'],
    ['url', annotation.url ? link(annotation.url, annotation.url) : '—'],
  ];
  const lines = [`### ${heading}`, '', '| field | value |', '| --- | --- |', ...rows.map(([name, value]) => `| ${name} | ${value} |`), ''];
  if (annotation.url) lines.push(`${link(annotation.title ?? 'Open the linked page', annotation.url)}`, '');
  return lines.join('\n');
}

/** Text from a workflow must not break the table or inject markup into the summary. */
function cell(text: string): string {
  return html(text)
    .replace(/[[\]*_`\\]/g, (char) => `\\${char}`)
    .replace(/\r?\n/g, '<br>');
}

/** Ids and names, which are never markdown: shown verbatim. */
function code(text: string): string {
  return `<code>${html(text)}</code>`;
}

function html(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '&#124;');
}

function link(text: string, url: string): string {
  const safeUrl = /^https?:\/\//i.test(url) ? url.replace(/[()\s|<>]/g, (char) => encodeURIComponent(char)) : undefined;
  return safeUrl ? `[${cell(text)}](${safeUrl})` : cell(url);
}
