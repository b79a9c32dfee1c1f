import type { Annotation } from '../client/index.js';
import type { MainResult, PostResult } from './annotate.js';

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
