/**
 * The boundary with the runner: the only module that talks to @actions/core. Everything it
 * calls takes plain arguments, so the logic is tested against the real service without a runner.
 */
import * as core from '@actions/core';
import { createAnnotationsClient, type AnnotationsClient } from '../client/index.js';
import { InputError } from '../common/errors.js';
import { performMain, performPost, type Log, type MainResult } from './annotate.js';
import { OUTPUT, STATE, USER_AGENT } from './constants.js';
import { getFailOnError, getInputs, type InputSource, type ServiceInputs } from './inputs.js';
import { readRunContext, type RunContext } from './run-context.js';
import { renderMainSummary, renderPostSummary } from './summary.js';

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
  } catch (error) {
    reportFailure(error, failOnErrorDespite(error));
  } finally {
    await client?.close();
  }
}

/**
 * Runs when the job ends, whatever its outcome. It only ever warns: the job's result is already
 * decided, and an annotation outage must not turn a good deploy red.
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
    await writeSummary(readRunContext(env), renderPostSummary(result));
  } catch (error) {
    core.warning(`Timemark could not close span ${spanId}: ${messageOf(error)}`);
  } finally {
    await client?.close();
  }
}

function createClient(service: ServiceInputs): AnnotationsClient {
  return createAnnotationsClient({
    url: service.url,
    token: service.token ?? '',
    orgId: service.orgId,
    timeoutMs: service.timeoutMs,
    retries: service.retries,
    userAgent: USER_AGENT,
    onRetry: (event) => core.info(`Retrying ${event.method} ${event.path} in ${event.delayMs} ms: ${event.reason}`),
  });
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
