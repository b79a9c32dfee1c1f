/**
 * The boundary with the runner: the only module that talks to @actions/core. Everything it
 * calls takes plain arguments, so the logic is tested against the real service without a runner.
 */
import * as core from '@actions/core';
import { createAnnotationsClient, createEventsClient, type Annotation, type AnnotationsClient, type RetryEvent, type TransportOptions } from '../client/index.js';
import { InputError } from '../common/errors.js';
import { signalLabel } from '../impact/format.js';
import { performMain, performPost, type Log, type MainResult } from './annotate.js';
import { INPUT, OUTPUT, STATE, USER_AGENT } from './constants.js';
import { runGate } from './gate.js';
import { getFailOnError, getInputs, type GateInputs, type InputSource, type ServiceInputs } from './inputs.js';
import { readRunContext, type RunContext } from './run-context.js';
import { renderGateSummary, renderMainSummary, renderPostSummary } from './summary.js';

const source: InputSource = {
  getInput: (name) => core.getInput(name),
  setSecret: (value) => core.setSecret(value),
  debug: (message) => core.debug(message),
};

const log: Log = {
  info: (message) => core.info(message),
  warning: (message) => core.warning(message),
};

export async function runMain(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const now = Date.now();
  let client: AnnotationsClient | undefined;
  try {
    const inputs = getInputs(source, now);
    const context = readRunContext(env);
    client = inputs.dryRun ? undefined : createClient(inputs.service);
    const result = await performMain(inputs, { client, context, now, log });
    setOutputs(result);
    if (result.span) {
      core.saveState(STATE.spanId, result.span.id);
      core.saveState(STATE.spanTitle, result.span.title ?? '');
    }
    if (result.annotation) core.info(`Annotation ${result.annotation.id} ${result.outcome}: ${JSON.stringify(result.annotation)}`);
    await writeSummary(context, renderMainSummary(result));
    if (inputs.gate && inputs.mode === 'close' && client && result.annotation) await gateStep(inputs.gate, result.annotation, inputs.service, client, context);
    else if (inputs.gate && inputs.dryRun) core.info(`Dry run: the impact on ${inputs.gate.dataset} would be measured after the span ends.`);
  } catch (error) {
    reportFailure(error, failOnErrorDespite(error));
  } finally {
    await client?.close();
  }
}

/**
 * Runs when the job ends, whatever its outcome. Its own failures only warn: the job's result is
 * already decided, and an annotation outage must not turn a good deploy red. The deploy gate's
 * regression, with fail-on-regression, is the one verdict it may fail the job for.
 */
export async function runPost(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const spanId = core.getState(STATE.spanId);
  if (!spanId) {
    core.debug('No span was opened by the main step, so there is nothing to close.');
    return;
  }
  let client: AnnotationsClient | undefined;
  try {
    const inputs = getInputs(source);
    client = createClient(inputs.service);
    const result = await performPost(
      client,
      { spanId, spanTitle: core.getState(STATE.spanTitle) || undefined, closeOn: inputs.closeOn, jobStatus: inputs.jobStatus },
      Date.now(),
      log,
    );
    core.info(
      `Span ${spanId} ${result.closed ? `closed at ${result.annotation.endTime}` : `left open (closeOn: ${inputs.closeOn})`}: ${JSON.stringify(result.annotation)}`,
    );
    const context = readRunContext(env);
    await writeSummary(context, renderPostSummary(result));
    if (inputs.gate) await gateStep(inputs.gate, result.annotation, inputs.service, client, context);
  } catch (error) {
    core.warning(`Timemark could not close span ${spanId}: ${messageOf(error)}`);
  } finally {
    await client?.close();
  }
}

/**
 * The deploy gate after the span ended. A regression fails the job only with
 * fail-on-regression; anything that goes wrong while measuring only warns, as an annotation
 * outage must never fail a deploy. This is the one way the post step can fail the job: on
 * purpose, because the workflow asked for it.
 */
async function gateStep(gate: GateInputs, annotation: Annotation, service: ServiceInputs, client: AnnotationsClient, context: RunContext): Promise<void> {
  const events = createEventsClient(transportOptions(service));
  try {
    const result = await runGate(annotation, gate, {
      client,
      events,
      clock: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      log,
    });
    await writeSummary(context, renderGateSummary(result, gate.dataset));
    if (result.kind === 'skipped') {
      core.info(`Impact not measured: the ${result.reason}`);
      return;
    }
    const { impact } = result;
    core.setOutput(OUTPUT.impactVerdict, impact.verdict);
    core.setOutput(OUTPUT.impact, JSON.stringify(impact));
    core.info(`Impact on ${impact.dataset}: ${impact.verdict}.`);
    for (const signal of impact.signals) core.info(`  ${signalLabel(signal)}: ${signal.verdict}: ${signal.reason}`);
    for (const missing of impact.missing) core.info(`  ${missing.signal} not measured: ${missing.reason}`);
    for (const note of impact.notes) core.info(`  ${note}`);
    if (impact.verdict !== 'regressed') return;
    const regressed = impact.signals.filter((signal) => signal.verdict === 'regressed').map(signalLabel).join(', ');
    const message = `The change regressed on ${impact.dataset}: ${regressed}.`;
    if (gate.failOnRegression) core.setFailed(`${message} The job fails because ${INPUT.failOnRegression} is true.`);
    else core.warning(`${message} The job goes on because ${INPUT.failOnRegression} is false.`);
  } catch (error) {
    core.warning(`Timemark could not measure the impact of ${annotation.id} on ${gate.dataset}: ${messageOf(error)}`);
  } finally {
    await events.close();
  }
}

function createClient(service: ServiceInputs): AnnotationsClient {
  return createAnnotationsClient(transportOptions(service));
}

function transportOptions(service: ServiceInputs): TransportOptions {
  return {
    url: service.url,
    token: service.token ?? '',
    orgId: service.orgId,
    timeoutMs: service.timeoutMs,
    retries: service.retries,
    userAgent: USER_AGENT,
    onRetry: (event: RetryEvent) => core.info(`Retrying ${event.method} ${event.path} in ${event.delayMs} ms: ${event.reason}`),
  };
}

function setOutputs(result: MainResult): void {
  const shown = result.annotation ?? result.request?.body ?? {};
  core.setOutput(OUTPUT.id, result.annotation?.id ?? '');
  core.setOutput(OUTPUT.time, shown.time ?? '');
  core.setOutput(OUTPUT.endTime, shown.endTime ?? '');
  core.setOutput(OUTPUT.annotation, JSON.stringify(shown));
}

/** A summary is a nicety: outside a runner (or on an old one) there is no file to write to. */
async function writeSummary(context: RunContext, markdown: string): Promise<void> {
  if (!context.stepSummaryPath) return;
  try {
    await core.summary.addRaw(markdown, true).write();
  } catch (error) {
    core.warning(`Could not write the job summary: ${messageOf(error)}`);
  }
}

/** failOnError itself may be the invalid input; then the safe reading is to fail. */
function failOnErrorDespite(error: unknown): boolean {
  try {
    return getFailOnError(source);
  } catch (failOnErrorError) {
    if (failOnErrorError !== error) core.warning(messageOf(failOnErrorError));
    return true;
  }
}

function reportFailure(error: unknown, failOnError: boolean): void {
  const message = error instanceof InputError ? messageOf(error) : `Timemark could not write the annotation: ${messageOf(error)}`;
  if (failOnError) core.setFailed(message);
  else core.warning(`${message} The step does not fail because failOnError is false.`);
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
