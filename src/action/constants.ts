/**
 * Names shared by action.yml, the main step and the post step. Default values live only in
 * action.yml: the runner applies them, so code that also wrote them could drift.
 */

export const INPUT = {
  token: 'axiomToken',
  url: 'axiomUrl',
  orgId: 'orgId',
  datasets: 'datasets',
  type: 'type',
  time: 'time',
  endTime: 'endTime',
  title: 'title',
  description: 'description',
  link: 'url',
  id: 'id',
  mode: 'mode',
  closeOn: 'closeOn',
  jobStatus: 'jobStatus',
  failOnError: 'failOnError',
  dryRun: 'dryRun',
  timeoutMs: 'timeoutMs',
  retries: 'retries',
  impactDataset: 'impact-dataset',
  impactSignals: 'impact-signals',
  impactWindow: 'impact-window',
  failOnRegression: 'fail-on-regression',
} as const;

export const OUTPUT = {
  id: 'id',
  time: 'time',
  endTime: 'endTime',
  annotation: 'annotation',
  impactVerdict: 'impact-verdict',
  impact: 'impact',
} as const;

/** What the main step of span mode leaves for the post step. */
export const STATE = {
  spanId: 'timemarkSpanId',
  spanTitle: 'timemarkSpanTitle',
} as const;

export const MODES = ['create', 'update', 'close', 'span'] as const;
export type Mode = (typeof MODES)[number];

export const CLOSE_ON = ['always', 'success', 'never'] as const;
export type CloseOn = (typeof CLOSE_ON)[number];

export const JOB_STATUSES = ['success', 'failure', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Bounds of the action's own inputs; the annotation fields' limits are in src/common/annotation-contract.ts. */
export const LIMITS = {
  timeoutMs: 600_000,
  retries: 10,
  /**
   * The impact gate waits at most this long for the window after the change to pass: runner
   * minutes cost money. A longer window is judged on the part of it that has passed.
   */
  impactWaitMs: 30 * 60_000,
} as const;

/** Marks a span's url so that a re-run of the same job can find the span again. */
export const SPAN_TAG_KEY = 'timemark-span';

export const USER_AGENT = 'timemark-action';
