/**
 * The dashboard's DORA panel: the four delivery figures of some datasets over a period, from
 * their annotations (src/dora/), computed on demand — when the panel is opened or asked again —
 * with each figure's definition and the spans it counted one click away.
 */

import { readableDuration } from '../common/duration.js';
import { computeDora, roundFigure as round, type DoraReport, type Figure } from '../dora/dora.js';
import type { Api } from './api.js';
import { el, uniqueId } from './dom.js';

export interface DoraPanelContext {
  /** The signed-in session's API; none while signed out. */
  api(): Api | undefined;
  /** The datasets to start with: those the first chart draws annotations from. */
  defaultDatasets(): string[];
}

const PERIODS = [
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
] as const;
const DAY_MS = 86_400_000;

export function createDoraPanel(host: HTMLDetailsElement, context: DoraPanelContext): { reset(): void } {
  const ids = { datasets: uniqueId('dora-datasets'), period: uniqueId('dora-period') };
  const datasetsInput = el('input', { id: ids.datasets, type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'production, web' });
  const periodSelect = el(
    'select',
    { id: ids.period },
    PERIODS.map((period) => el('option', { value: period.days, selected: period.days === 30 }, [period.label])),
  );
  const computeButton = el('button', { type: 'button', class: 'secondary' }, ['Compute']);
  const output = el('div', { class: 'dora-output', 'aria-live': 'polite' });
  host.append(
    el('div', { class: 'dora-controls' }, [
      el('div', { class: 'field grow' }, [el('label', { for: ids.datasets }, ['Datasets']), datasetsInput]),
      el('div', { class: 'field' }, [el('label', { for: ids.period }, ['Period']), periodSelect]),
      computeButton,
    ]),
    output,
  );
  let computed = false;

  async function compute(): Promise<void> {
    const datasets = datasetsInput.value
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    if (datasets.length === 0) {
      output.replaceChildren(el('p', { class: 'error-text' }, ['Name the datasets whose deployments and incidents to count, e.g. production.']));
      return;
    }
    const api = context.api();
    if (!api) return;
    computed = true;
    const endMs = Date.now();
    const startMs = endMs - Number(periodSelect.value) * DAY_MS;
    output.setAttribute('aria-busy', 'true');
    output.replaceChildren(el('p', {}, ['Reading the annotations…']));
    try {
      const annotations = await api.annotations(datasets, startMs, endMs);
      output.replaceChildren(...render(computeDora({ annotations, datasets, startMs, endMs })));
    } catch (error) {
      output.replaceChildren(el('p', { class: 'error-text' }, [`The figures could not be computed: ${error instanceof Error ? error.message : String(error)}`]));
    } finally {
      output.removeAttribute('aria-busy');
    }
  }

  host.addEventListener('toggle', () => {
    if (!host.open || computed) return;
    if (datasetsInput.value.trim() === '') datasetsInput.value = context.defaultDatasets().join(', ');
    void compute();
  });
  computeButton.addEventListener('click', () => void compute());
  datasetsInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      void compute();
    }
  });

  return {
    reset: () => {
      computed = false;
      datasetsInput.value = '';
      output.replaceChildren();
      if (host.open) host.open = false;
    },
  };
}

function render(report: DoraReport): Node[] {
  const { deploymentFrequency: frequency, changeFailureRate: failures, timeToRestore: restore, leadTime: lead } = report;
  const cards: [string, string, string, Figure][] = [
    ['Deployment frequency', `${round(frequency.perDay)} per day`, `${frequency.deployments} deployments, ${round(frequency.perWeek)} per week`, frequency],
    ['Change failure rate', failures.rate === null ? '—' : `${round(failures.rate * 100)}%`, `${failures.failed} of ${failures.deployments} deployments failed`, failures],
    ['Time to restore', restore.medianMs === null ? '—' : readableDuration(restore.medianMs), `median of ${restore.restored} restored, ${restore.open} not restored`, restore],
    ['Change lead time', lead.medianMs === null ? 'not known' : readableDuration(lead.medianMs), `median, known for ${lead.known} deployments, not known for ${lead.unknown}`, lead],
  ];
  return [
    el(
      'div',
      { class: 'dora-figures' },
      cards.map(([name, value, detail, figure]) =>
        el('section', { class: 'dora-figure', 'aria-label': name }, [
          el('h3', {}, [name]),
          el('p', { class: 'dora-value' }, [value]),
          el('p', { class: 'dora-detail' }, [detail]),
          el('details', { class: 'dora-explain' }, [
            el('summary', {}, ['How it is measured']),
            el('p', {}, [figure.definition]),
            el('p', {}, [`Measured as ${figure.method}.`]),
            el(
              'ul',
              {},
              figure.spans.map((span) =>
                el('li', { class: span.counted ? 'counted' : 'skipped', 'data-annotation-id': span.id }, [`${span.counted ? 'Counted' : 'Skipped'}: ${span.title ?? span.type} (${span.time}): ${span.note}`]),
              ),
            ),
          ]),
        ]),
      ),
    ),
  ];
}
