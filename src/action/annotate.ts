import type { Annotation, AnnotationPatch, AnnotationsClient, NewAnnotation } from '../client/index.js';
import { formatTime } from '../common/time.js';
import { ANNOTATION_LIMITS } from '../common/annotation-contract.js';
import { readFacts, withFacts } from '../common/annotation-facts.js';
import type { CloseOn, JobStatus, Mode } from './constants.js';
import type { ActionInputs, FieldInputs } from './inputs.js';
import { defaultTitle, runUrl, type RunContext } from './run-context.js';
import { findPreviousAttemptSpan, jobOutcome, outcomeTitle, PREVIOUS_ATTEMPT_WINDOW_MS, shouldClose, spanTagOf, tagUrl } from './span.js';

export interface Log {
  info(message: string): void;
  warning(message: string): void;
}

export interface MainDeps {
  /** Absent in a dry run, which sends nothing. */
  client: AnnotationsClient | undefined;
  context: RunContext;
  now: number;
  log: Log;
}

export interface SentRequest {
  method: 'POST' | 'PUT';
  path: string;
  body: NewAnnotation | AnnotationPatch;
}

export type MainOutcome = 'created' | 'updated' | 'closed' | 'already-closed' | 'span-opened' | 'span-reused' | 'dry-run';

export interface MainResult {
  mode: Mode;
  outcome: MainOutcome;
  /** What was sent, or in a dry run what would have been; absent when nothing needed sending. */
  request: SentRequest | undefined;
  /** The service's reply; absent in a dry run. */
  annotation: Annotation | undefined;
  /** For the post step of span mode: the span to close and the title to append the outcome to. */
  span: { id: string; title: string | undefined } | undefined;
}

/** The main step: one create, update, close or span open, after all inputs were validated. */
export async function performMain(inputs: ActionInputs, deps: MainDeps): Promise<MainResult> {
  const request = requestFor(inputs, deps);
  if (inputs.dryRun || !deps.client) {
    deps.log.info(`Dry run: would send ${request.method} ${request.path} ${JSON.stringify(request.body)}`);
    return { mode: inputs.mode, outcome: 'dry-run', request, annotation: undefined, span: undefined };
  }
  const client = deps.client;
  switch (inputs.mode) {
    case 'create':
      return { mode: 'create', outcome: 'created', request, annotation: await client.create(request.body as NewAnnotation), span: undefined };
    case 'update':
      return { mode: 'update', outcome: 'updated', request, annotation: await client.update(inputs.id ?? '', request.body), span: undefined };
    case 'close':
      return close(client, inputs, request, deps.log);
    case 'span':
      return openSpan(client, request.body as NewAnnotation, inputs, deps);
  }
}

function requestFor(inputs: ActionInputs, deps: MainDeps): SentRequest {
  const { mode, fields } = inputs;
  if (mode === 'create' || mode === 'span') {
    return { method: 'POST', path: '/v2/annotations', body: newAnnotation(mode, fields, deps) };
  }
  const patch = patchOf(fields);
  // Closing means "it ended now" unless the workflow says when.
  if (mode === 'close' && patch.endTime === undefined) patch.endTime = formatTime(deps.now);
  return { method: 'PUT', path: `/v2/annotations/${encodeURIComponent(inputs.id ?? '')}`, body: patch };
}

/**
 * Closing is idempotent: an annotation that already has an end keeps it, so a re-run of a
 * workflow, or a second close step, does not move the end of a span to the time it ran. Only an
 * explicit endTime moves an existing end. A close that ends the span records the job's status
 * so far as its outcome, in the description's facts line.
 */
async function close(client: AnnotationsClient, inputs: ActionInputs, request: SentRequest, log: Log): Promise<MainResult> {
  const id = inputs.id ?? '';
  const outcome = jobOutcome(inputs.jobStatus);
  const current = inputs.fields.endTime === undefined || outcome !== undefined ? await client.get(id) : undefined;
  if (current !== undefined && inputs.fields.endTime === undefined) {
    if (current.endTime !== undefined) {
      const { endTime: _now, ...others } = request.body;
      const changes = Object.keys(others).length > 0;
      log.info(
        `Annotation ${id} was already closed at ${current.endTime}; its endTime is kept (give endTime to move it)${changes ? ', the other fields given are updated' : ''}.`,
      );
      const kept = changes ? { ...request, body: others } : undefined;
      return { mode: 'close', outcome: 'already-closed', request: kept, annotation: kept ? await client.update(id, others) : current, span: undefined };
    }
  }
  // A description given to the close step replaces the text, never the facts already recorded.
  const sent =
    outcome === undefined
      ? request
      : { ...request, body: { ...request.body, description: withFacts(request.body.description ?? current?.description, { ...readFacts(current?.description), outcome }) } };
  return { mode: 'close', outcome: 'closed', request: sent, annotation: await client.update(id, sent.body), span: undefined };
}

function newAnnotation(mode: 'create' | 'span', fields: FieldInputs, deps: MainDeps): NewAnnotation {
  const { context, now, log } = deps;
  const runPage = runUrl(context);
  let url = fields.url ?? runPage;
  if (mode === 'span' && url !== undefined) {
    const tag = spanTagOf(context);
    const tagged = tag && tagUrl(url, tag);
    if (tagged) url = tagged;
    else log.warning(`The span's url ${JSON.stringify(url)} cannot carry the re-run tag (it has a fragment or there is no run id), so a re-run of this job may open a second span.`);
  }
  return withoutUndefined({
    datasets: fields.datasets ?? [],
    type: fields.type ?? '',
    // Sent rather than left to the service, so that a dry run and the outputs show the same time.
    time: fields.time ?? formatTime(now),
    endTime: fields.endTime,
    title: fields.title ?? defaultTitle(context, ANNOTATION_LIMITS.title),
    // The deployed commit's time, for the change lead time, where the triggering event says.
    description: context.committed === undefined ? fields.description : withFacts(fields.description, { committed: context.committed }),
    url,
  });
}

function patchOf(fields: FieldInputs): AnnotationPatch {
  return withoutUndefined({ ...fields });
}

/**
 * Opens the span, or takes over the one an earlier attempt of this job left open (a failed
 * rollout with closeOn: success, or a runner that died before its post step). Taking it over
 * keeps one span per rollout, starting when the rollout first started.
 */
async function openSpan(client: AnnotationsClient, body: NewAnnotation, inputs: ActionInputs, deps: MainDeps): Promise<MainResult> {
  const tag = spanTagOf(deps.context);
  if (tag && tag.attempt > 1) {
    const candidates = await client.list({
      datasets: body.datasets,
      start: formatTime(deps.now - PREVIOUS_ATTEMPT_WINDOW_MS),
      end: formatTime(deps.now),
    });
    const previous = findPreviousAttemptSpan(candidates, { tag, type: body.type, datasets: body.datasets });
    if (previous) {
      deps.log.info(`Attempt ${tag.attempt} takes over span ${previous.id}, which an earlier attempt of this job left open.`);
      // The description as this attempt would create it: the workflow's text and this run's facts.
      const patch = withoutUndefined({ title: body.title, description: inputs.fields.description === undefined ? undefined : body.description, url: body.url });
      const annotation = await client.update(previous.id, patch);
      return {
        mode: 'span',
        outcome: 'span-reused',
        request: { method: 'PUT', path: `/v2/annotations/${encodeURIComponent(previous.id)}`, body: patch },
        annotation,
        span: { id: annotation.id, title: body.title },
      };
    }
  }
  const annotation = await client.create(body);
  return { mode: 'span', outcome: 'span-opened', request: { method: 'POST', path: '/v2/annotations', body }, annotation, span: { id: annotation.id, title: body.title } };
}

export interface PostInputs {
  spanId: string;
  spanTitle: string | undefined;
  closeOn: CloseOn;
  jobStatus: JobStatus | undefined;
}

export interface PostResult {
  annotation: Annotation;
  closed: boolean;
}

/**
 * The post step of span mode: appends the job's outcome to the title, records it as data in the
 * description's facts line, and, unless closeOn says otherwise, sets endTime. A partial update,
 * so every other field stays as it is.
 */
export async function performPost(client: AnnotationsClient, inputs: PostInputs, now: number, log: Log): Promise<PostResult> {
  if (inputs.jobStatus === undefined) {
    log.warning(
      'jobStatus is empty, so the span cannot record the job outcome (and closeOn: success never closes it). Leave jobStatus out, so that it defaults to ${{ job.status }}, or pass ${{ job.status }}.',
    );
  }
  const close = shouldClose(inputs.closeOn, inputs.jobStatus);
  const current = await client.get(inputs.spanId);
  const patch: AnnotationPatch = { title: outcomeTitle(inputs.spanTitle, inputs.jobStatus, !close, ANNOTATION_LIMITS.title) };
  const outcome = jobOutcome(inputs.jobStatus);
  if (outcome !== undefined) patch.description = withFacts(current.description, { outcome });
  // An end someone already set (a person, a later step in close mode) is theirs to keep; and a
  // span given a start in the future must still end at or after it.
  if (close && current.endTime === undefined) patch.endTime = formatTime(Math.max(now, Date.parse(current.time)));
  const annotation = await client.update(inputs.spanId, patch);
  return { annotation, closed: close };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
