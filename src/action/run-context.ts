import { readCommitTime } from './commit-time.js';

/**
 * What the runner tells a step about the run, from its GITHUB_* environment variables (and the
 * event file one of them names). Read from an explicit environment so that tests and the post
 * step see exactly what they pass.
 */
export interface RunContext {
  serverUrl: string | undefined;
  repository: string | undefined;
  runId: string | undefined;
  /** 1 on the first attempt; a re-run of the same run counts up. */
  runAttempt: number;
  workflow: string | undefined;
  job: string | undefined;
  refName: string | undefined;
  sha: string | undefined;
  stepSummaryPath: string | undefined;
  /** When the commit being deployed was made (RFC 3339 UTC), where the triggering event says. */
  committed: string | undefined;
}

export function readRunContext(env: NodeJS.ProcessEnv): RunContext {
  const attempt = Number(env.GITHUB_RUN_ATTEMPT);
  return {
    serverUrl: nonEmpty(env.GITHUB_SERVER_URL),
    repository: nonEmpty(env.GITHUB_REPOSITORY),
    runId: nonEmpty(env.GITHUB_RUN_ID),
    runAttempt: Number.isInteger(attempt) && attempt > 0 ? attempt : 1,
    workflow: nonEmpty(env.GITHUB_WORKFLOW),
    job: nonEmpty(env.GITHUB_JOB),
    refName: nonEmpty(env.GITHUB_REF_NAME),
    sha: nonEmpty(env.GITHUB_SHA),
    stepSummaryPath: nonEmpty(env.GITHUB_STEP_SUMMARY),
    committed: readCommitTime(nonEmpty(env.GITHUB_EVENT_PATH)),
  };
}

/**
 * The run's page. Built from GITHUB_SERVER_URL rather than github.com so that it also points
 * to the right host on GitHub Enterprise Server.
 */
export function runUrl(context: RunContext): string | undefined {
  if (!context.serverUrl || !context.repository || !context.runId) return undefined;
  return `${context.serverUrl.replace(/\/+$/, '')}/${context.repository}/actions/runs/${context.runId}`;
}

/** "Deploy · main @ 1a2b3c4": which pipeline, on which branch, at which commit. */
export function defaultTitle(context: RunContext, limit: number): string | undefined {
  const parts: string[] = [];
  if (context.workflow) parts.push(context.workflow);
  if (context.refName) parts.push(context.refName);
  let title = parts.join(' · ');
  if (context.sha) title += `${title ? ' @ ' : ''}${context.sha.slice(0, 7)}`;
  return title ? truncate(title, limit) : undefined;
}

export function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
