/**
 * "What did this deploy do?" in an annotation's details: the impact of a deploy (a closed span
 * or a point) on the chart's dataset, computed on demand — when its details are pinned — by
 * src/impact/ through the page's own API calls, and kept for the rest of the visit.
 */

import type { Annotation } from '../common/annotation-contract.js';
import { annotationKind } from '../common/annotation-kind.js';
import { readableDuration } from '../common/duration.js';
import { formatChange, formatSide, signalLabel } from '../impact/format.js';
import { computeImpact, DEFAULT_WINDOW_MS, type ImpactResult, type ImpactSource } from '../impact/impact.js';
import type { Api } from './api.js';
import { el } from './dom.js';

/** The details section of an annotation, or undefined when it gets none. */
export type ImpactDetails = (annotation: Annotation, pinned: boolean) => HTMLElement | undefined;

interface Entry {
  element: HTMLElement;
  started: boolean;
}

/** Deploys are what the page colors as deploys: any type that says so. */
export function isDeploy(annotation: Annotation): boolean {
  return annotation.type.includes('deploy') && annotationKind(annotation) !== 'open-span';
}

export function createImpactDetails(api: Api, dataset: () => string | undefined): ImpactDetails {
  const source: ImpactSource = {
    fields: (name) => api.fields(name),
    apl: ({ apl, startTime, endTime }) => api.query(apl, Date.parse(startTime), Date.parse(endTime)),
  };
  const entries = new Map<string, Entry>();

  return (annotation, pinned) => {
    const name = dataset();
    if (!isDeploy(annotation) || name === undefined) return undefined;
    const key = `${annotation.id}\u0000${annotation.endTime ?? ''}\u0000${name}`;
    let entry = entries.get(key);
    if (!entry) {
      entry = { element: el('section', { class: 'annotation-impact', 'aria-live': 'polite', 'aria-label': `Impact on ${name}` }), started: false };
      entry.element.replaceChildren(el('p', { class: 'impact-status' }, [`Click to measure its impact on ${name}.`]));
      entries.set(key, entry);
    }
    if (pinned && !entry.started) {
      entry.started = true;
      const target = entry.element;
      target.setAttribute('aria-busy', 'true');
      target.replaceChildren(el('p', { class: 'impact-status' }, [`Measuring its impact on ${name}…`]));
      computeImpact(source, { annotation, dataset: name, windowMs: DEFAULT_WINDOW_MS, nowMs: Date.now() })
        .then((result) => target.replaceChildren(...renderResult(result)))
        .catch((error: unknown) => {
          target.replaceChildren(el('p', { class: 'impact-status error-text' }, [`The impact could not be measured: ${error instanceof Error ? error.message : String(error)}`]));
          // Another pin tries again.
          if (entry) entry.started = false;
        })
        .finally(() => target.removeAttribute('aria-busy'));
    }
    return entry.element;
  };
}

function renderResult(result: ImpactResult): Node[] {
  const window = readableDuration(result.windowMs);
  const nodes: Node[] = [
    el('p', { class: 'impact-heading' }, [
      `Impact on ${result.dataset}: `,
      el('strong', { class: `impact-verdict ${result.verdict.replace(/ /g, '-')}`, 'data-verdict': result.verdict }, [result.verdict]),
    ]),
    el('p', { class: 'impact-window' }, [`${window} before against ${window} after${result.after.complete ? '' : ' (not over yet)'}`]),
  ];
  if (result.signals.length > 0) {
    nodes.push(
      el('table', { class: 'impact-table' }, [
        el('thead', {}, [el('tr', {}, ['Signal', 'Before', 'After', 'Change', 'Verdict'].map((header) => el('th', { scope: 'col' }, [header])))]),
        el(
          'tbody',
          {},
          result.signals.map((signal) =>
            el('tr', { 'data-signal': signal.name, title: `${signal.reason} Rule: ${signal.ruleText}` }, [
              el('th', { scope: 'row' }, [signalLabel(signal)]),
              el('td', {}, [formatSide(signal, signal.before)]),
              el('td', {}, [formatSide(signal, signal.after)]),
              el('td', {}, [formatChange(signal.change)]),
              el('td', {}, [signal.verdict]),
            ]),
          ),
        ),
      ]),
    );
  }
  for (const missing of result.missing) nodes.push(el('p', { class: 'impact-note' }, [`${missing.signal} not measured: ${missing.reason}`]));
  for (const note of result.notes) nodes.push(el('p', { class: 'impact-note' }, [note]));
  return nodes;
}
