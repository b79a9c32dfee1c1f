/**
 * Annotations on a uPlot chart, through its plugin hooks: spans are shaded bands drawn under the
 * series (drawClear), points and span edges are vertical lines drawn over them (draw). An open
 * span runs to the right edge of the plot. Each annotation also gets a marker button along the
 * top of the plot, so that it can be reached with the keyboard and read by screen readers.
 * Hovering a line or band, or focusing a marker, shows its details; a click or Enter pins them,
 * Escape or the close button unpins.
 */

import { annotationKind, type AnnotationKind } from '../common/annotation-kind.js';
import type { Annotation } from '../common/annotation-contract.js';
import { readFacts, withoutFacts } from '../common/annotation-facts.js';
import { el, uniqueId } from './dom.js';
import { readableDuration } from '../common/duration.js';
import { formatTime } from './format.js';
import type { ImpactDetails } from './impact-details.js';
import { parseRfc3339 } from './time-range.js';

interface Placed {
  annotation: Annotation;
  kind: AnnotationKind;
  startSec: number;
  /** Set for a closed span. */
  endSec: number | undefined;
  color: string;
  marker: HTMLButtonElement;
}

export interface AnnotationLayer {
  readonly plugin: uPlot.Plugin;
  /** Replaces the annotations; call uPlot's redraw() after. */
  setAnnotations(annotations: readonly Annotation[]): void;
  /** Shows or hides them; call uPlot's redraw() after. */
  setVisible(visible: boolean): void;
}

/** Within this many CSS pixels of a line, the pointer is on it. */
const HOVER_SLOP_PX = 6;
const BAND_ALPHA = 0.16;
const TYPE_COLORS: Record<string, string> = { monitor: '#c81e1e', incident: '#b45309' };
const DEPLOY_COLOR = '#1d4ed8';
const PALETTE = ['#7e22ce', '#0f766e', '#be185d', '#4d7c0f', '#374151'];

/** A type's color: fixed for the well-known ones, else stable per type name. */
export function annotationColor(type: string): string {
  const fixed = TYPE_COLORS[type];
  if (fixed) return fixed;
  if (type.includes('deploy')) return DEPLOY_COLOR;
  let hash = 0;
  for (const char of type) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return PALETTE[hash % PALETTE.length] ?? DEPLOY_COLOR;
}

/** Only http(s) addresses and paths on this site become links: a `javascript:` url stays text. */
export function safeHref(url: string): string | undefined {
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** What the details and the marker's label say about an annotation's extent. */
export function describeExtent(annotation: Annotation, nowMs: number): string {
  const startMs = parseRfc3339(annotation.time) ?? nowMs;
  switch (annotationKind(annotation)) {
    case 'point':
      return 'Point in time';
    case 'open-span':
      return `Ongoing, no end yet (${readableDuration(Math.max(0, nowMs - startMs))} so far)`;
    case 'span': {
      const endMs = parseRfc3339(annotation.endTime ?? '') ?? startMs;
      return `Lasted ${readableDuration(endMs - startMs)}, until ${formatTime(endMs)}`;
    }
  }
}

/**
 * `host` is a positioned element around the chart: the details card goes in it, outside uPlot's
 * elements, so that the plot area does not clip it. `details` adds a section to the card of the
 * annotations it has one for (a deploy's impact).
 */
export function createAnnotationLayer(host: HTMLElement, details?: ImpactDetails): AnnotationLayer {
  let placed: Placed[] = [];
  let visible = true;
  let chart: uPlot | undefined;
  let hovered: Placed | undefined;
  let pinned: Placed | undefined;
  const markers = el('div', { class: 'annotation-markers', role: 'group', 'aria-label': 'Annotations on this chart' });
  const cardId = uniqueId('annotation-card');
  const card = el('div', { id: cardId, class: 'annotation-card', role: 'region', 'aria-label': 'Annotation details', hidden: true });
  host.append(card);

  function place(annotation: Annotation): Placed | undefined {
    const startMs = parseRfc3339(annotation.time);
    if (startMs === undefined) return undefined;
    const kind = annotationKind(annotation);
    const endMs = kind === 'span' ? parseRfc3339(annotation.endTime ?? '') : undefined;
    const color = annotationColor(annotation.type);
    const marker = el('button', {
      type: 'button',
      class: `annotation-marker ${kind}`,
      'aria-label': `${annotation.type}: ${annotation.title ?? '(no title)'}, ${formatTime(startMs)}. ${describeExtent(annotation, Date.now())}`,
      'aria-controls': cardId,
      'aria-expanded': 'false',
      'data-annotation-id': annotation.id,
    });
    marker.style.setProperty('--annotation-color', color);
    const entry: Placed = { annotation, kind, startSec: startMs / 1000, endSec: endMs === undefined ? undefined : endMs / 1000, color, marker };
    marker.addEventListener('focus', () => hover(entry));
    marker.addEventListener('mouseenter', () => hover(entry));
    marker.addEventListener('blur', () => unhover(entry));
    marker.addEventListener('mouseleave', () => {
      if (document.activeElement !== marker) unhover(entry);
    });
    marker.addEventListener('click', () => (pinned === entry ? unpin(true) : pin(entry)));
    return entry;
  }

  function hover(entry: Placed): void {
    hovered = entry;
    if (!pinned) render(entry);
  }

  function unhover(entry: Placed): void {
    if (hovered !== entry) return;
    hovered = undefined;
    if (!pinned) card.hidden = true;
  }

  function pin(entry: Placed): void {
    pinned = entry;
    render(entry);
  }

  function unpin(refocus: boolean): void {
    const was = pinned;
    pinned = undefined;
    card.hidden = true;
    card.classList.remove('pinned');
    syncExpanded();
    if (was && refocus) was.marker.focus();
  }

  function syncExpanded(): void {
    for (const entry of placed) entry.marker.setAttribute('aria-expanded', String(entry === pinned));
  }

  function render(entry: Placed): void {
    const { annotation } = entry;
    const children: Node[] = [];
    if (pinned === entry) {
      const close = el('button', { type: 'button', class: 'annotation-card-close', 'aria-label': 'Close annotation details' }, ['×']);
      close.addEventListener('click', () => unpin(true));
      children.push(close);
    }
    children.push(
      el('p', { class: 'annotation-card-title' }, [
        el('span', { class: 'annotation-type' }, [annotation.type]),
        ' ',
        el('strong', {}, [annotation.title ?? '(no title)']),
      ]),
      el('p', {}, [el('time', { datetime: annotation.time }, [formatTime(entry.startSec * 1000)])]),
      el('p', { class: 'annotation-extent' }, [describeExtent(annotation, Date.now())]),
    );
    // The facts line is data: shown as facts, not as text.
    const text = withoutFacts(annotation.description).trim();
    if (text) children.push(el('p', { class: 'annotation-description' }, [text]));
    const facts = describeFacts(annotation);
    if (facts) children.push(el('p', { class: 'annotation-facts' }, [facts]));
    children.push(el('p', { class: 'annotation-datasets' }, [`Datasets: ${annotation.datasets.join(', ')}`]));
    if (annotation.url) children.push(el('p', {}, [linkTo(annotation.url)]));
    const section = details?.(annotation, pinned === entry);
    if (section) children.push(section);
    card.replaceChildren(...children);
    card.dataset.annotationId = annotation.id;
    card.classList.toggle('pinned', pinned === entry);
    card.hidden = false;
    syncExpanded();
    position(entry);
  }

  function position(entry: Placed): void {
    if (!chart) return;
    const hostRect = host.getBoundingClientRect();
    const overRect = chart.over.getBoundingClientRect();
    const x = overRect.left - hostRect.left + clamp(chart.valToPos(entry.startSec, 'x'), 0, chart.over.clientWidth);
    const left = clamp(x + 10, 0, Math.max(0, hostRect.width - card.offsetWidth));
    card.style.left = `${left}px`;
    card.style.top = `${overRect.top - hostRect.top + 30}px`;
  }

  /** CSS-pixel extent of a band, clamped to the plot; undefined for a point. */
  function bandPx(u: uPlot, entry: Placed): { x0: number; x1: number } | undefined {
    if (entry.kind === 'point') return undefined;
    const width = u.over.clientWidth;
    const x0 = clamp(u.valToPos(entry.startSec, 'x'), 0, width);
    const x1 = entry.endSec === undefined ? width : clamp(u.valToPos(entry.endSec, 'x'), 0, width);
    return { x0, x1 };
  }

  /** The annotation under the pointer: the nearest line within reach, else the narrowest band. */
  function atPointer(u: uPlot, left: number): Placed | undefined {
    let best: Placed | undefined;
    let bestScore = Infinity;
    for (const entry of placed) {
      const distance = Math.abs(left - u.valToPos(entry.startSec, 'x'));
      const band = bandPx(u, entry);
      const score = distance <= HOVER_SLOP_PX ? distance : band && left >= band.x0 && left <= band.x1 ? HOVER_SLOP_PX + band.x1 - band.x0 : Infinity;
      if (score < bestScore) {
        best = entry;
        bestScore = score;
      }
    }
    return best;
  }

  function clipToPlot(u: uPlot): void {
    const { left, top, width, height } = u.bbox;
    u.ctx.beginPath();
    u.ctx.rect(left, top, width, height);
    u.ctx.clip();
  }

  const plugin: uPlot.Plugin = {
    hooks: {
      ready: (u) => {
        chart = u;
        u.over.append(markers);
        u.over.addEventListener('click', (event) => {
          if (event.target !== u.over || !visible) return;
          const entry = u.cursor.left === undefined || u.cursor.left < 0 ? undefined : atPointer(u, u.cursor.left);
          if (entry) pin(entry);
          else if (pinned) unpin(false);
        });
        u.over.addEventListener('mouseleave', () => {
          u.over.classList.remove('on-annotation');
          if (hovered) unhover(hovered);
        });
      },
      drawClear: (u) => {
        if (!visible) return;
        const { ctx } = u;
        const { left, top, width, height } = u.bbox;
        ctx.save();
        clipToPlot(u);
        ctx.globalAlpha = BAND_ALPHA;
        for (const entry of placed) {
          if (entry.kind === 'point') continue;
          const x0 = Math.max(left, u.valToPos(entry.startSec, 'x', true));
          const x1 = entry.endSec === undefined ? left + width : Math.min(left + width, u.valToPos(entry.endSec, 'x', true));
          if (x1 <= x0) continue;
          ctx.fillStyle = entry.color;
          ctx.fillRect(x0, top, x1 - x0, height);
        }
        ctx.restore();
      },
      draw: (u) => {
        const width = u.over.clientWidth;
        for (const entry of placed) entry.marker.style.left = `${clamp(u.valToPos(entry.startSec, 'x'), 0, width)}px`;
        if (!visible) return;
        const { ctx } = u;
        const { left, top, width: canvasWidth, height } = u.bbox;
        const lineWidth = Math.max(1, Math.round(2 * (window.devicePixelRatio || 1)));
        ctx.save();
        clipToPlot(u);
        ctx.lineWidth = lineWidth;
        for (const entry of placed) {
          ctx.strokeStyle = entry.color;
          const edges: [number, boolean][] = [[u.valToPos(entry.startSec, 'x', true), false]];
          if (entry.endSec !== undefined) edges.push([u.valToPos(entry.endSec, 'x', true), true]);
          for (const [x, dashed] of edges) {
            if (x < left - lineWidth || x > left + canvasWidth + lineWidth) continue;
            ctx.setLineDash(dashed ? [4 * lineWidth, 3 * lineWidth] : []);
            ctx.beginPath();
            ctx.moveTo(x, top);
            ctx.lineTo(x, top + height);
            ctx.stroke();
          }
        }
        ctx.restore();
        const shown = pinned ?? hovered;
        if (shown && !card.hidden) position(shown);
      },
      setCursor: (u) => {
        if (!visible) return;
        const left = u.cursor.left;
        if (left === undefined || left < 0) return;
        const entry = atPointer(u, left);
        u.over.classList.toggle('on-annotation', entry !== undefined);
        if (entry) hover(entry);
        else if (hovered && document.activeElement !== hovered.marker) unhover(hovered);
      },
      destroy: () => {
        chart = undefined;
        card.remove();
      },
    },
  };

  host.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && pinned) {
      event.preventDefault();
      unpin(true);
    }
  });

  return {
    plugin,
    setAnnotations: (annotations) => {
      const pinnedId = pinned?.annotation.id;
      placed = annotations.map(place).filter((entry): entry is Placed => entry !== undefined);
      markers.replaceChildren(...placed.map((entry) => entry.marker));
      hovered = undefined;
      pinned = placed.find((entry) => entry.annotation.id === pinnedId);
      if (pinned) render(pinned);
      else card.hidden = true;
    },
    setVisible: (value) => {
      visible = value;
      markers.hidden = !value;
      if (!value) {
        pinned = undefined;
        hovered = undefined;
        card.hidden = true;
      }
    },
  };
}

function describeFacts(annotation: Annotation): string {
  const facts = readFacts(annotation.description);
  const parts: string[] = [];
  if (facts.outcome) parts.push(`Outcome: ${facts.outcome}`);
  if (facts.committed) parts.push(`committed ${formatTime(Date.parse(facts.committed))}`);
  if (facts.impact) parts.push(`impact: ${facts.impact.replace(/-/g, ' ')}`);
  return parts.join(' · ');
}

function linkTo(url: string): Node {
  const href = safeHref(url);
  const text = url.length > 60 ? `${url.slice(0, 57)}…` : url;
  if (!href) return el('span', { class: 'annotation-url' }, [`Link: ${text}`]);
  const external = !href.startsWith('/') && new URL(href).origin !== location.origin;
  return el('a', { href, ...(external ? { target: '_blank', rel: 'noopener noreferrer' } : {}) }, [text]);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
