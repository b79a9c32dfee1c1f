/**
 * When the commit being deployed was made, from the event that started the workflow (the JSON
 * file at GITHUB_EVENT_PATH), for the change lead time. Only some events carry it: a push's
 * head commit, a workflow run's, a merge queue group's, a check suite's. Others (a deployment,
 * a manual dispatch, a schedule, a release) do not: then it is not known, and nothing is guessed.
 */
import { readFileSync } from 'node:fs';
import { formatTime, parseIsoTimestamp } from '../common/time.js';

const HEAD_COMMIT_PATHS = [[], ['workflow_run'], ['merge_group'], ['check_suite']] as const;

export function readCommitTime(eventPath: string | undefined): string | undefined {
  if (!eventPath) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(readFileSync(eventPath, 'utf8'));
  } catch {
    // An unreadable event file only means the commit time is not known.
    return undefined;
  }
  for (const path of HEAD_COMMIT_PATHS) {
    const timestamp = member(member([...path].reduce<unknown>((value, key) => member(value, key), payload), 'head_commit'), 'timestamp');
    const ms = typeof timestamp === 'string' ? parseIsoTimestamp(timestamp) : undefined;
    if (ms !== undefined && Number.isFinite(ms)) return formatTime(ms);
  }
  return undefined;
}

function member(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}
