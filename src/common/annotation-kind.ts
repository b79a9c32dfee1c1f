/**
 * Point, span or open span. The wire has no field for it: an annotation without `endTime` is
 * a point, or a span whose end is not known yet. Timemark's own span producers mark theirs, so
 * the dashboard and the impact of a change tell them apart by those marks; anything else
 * without an end is a point.
 *
 * - the bridge ends every description with `[timemark:<episode hash>]`;
 * - the action's span mode tags the url's fragment with `#timemark-span=<run>.<attempt>.<job>`;
 * - a monitor's annotation (type `monitor`) is open while the monitor triggers.
 */

import type { Annotation } from './annotation-contract.js';

export type AnnotationKind = 'point' | 'span' | 'open-span';

const BRIDGE_MARK = /\[timemark:[^\]\s]+\]\s*$/;
const ACTION_SPAN_TAG = /#timemark-span=/;
const MONITOR_TYPE = 'monitor';

export function annotationKind(annotation: Annotation): AnnotationKind {
  if (annotation.endTime !== undefined) return 'span';
  const openSpan =
    annotation.type === MONITOR_TYPE || BRIDGE_MARK.test(annotation.description ?? '') || ACTION_SPAN_TAG.test(annotation.url ?? '');
  return openSpan ? 'open-span' : 'point';
}
