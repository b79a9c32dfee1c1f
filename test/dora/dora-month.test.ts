import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Annotation } from '../../src/common/annotation-contract.js';
import type { DoraReport } from '../../src/dora/dora.js';
import { DEFAULT_TYPES } from '../../webhook-server/src/mapping/mapping.js';
import { createJobFiles, githubEnv, runnerInputs, runStep } from '../action/runner-simulation.js';
import { REPO_ROOT, runTimemark, type RunResult } from '../helpers/child-process.js';
import { httpWindowEvents } from '../helpers/http-window-events.js';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';
import { eventually, outboxDrained, startTestBridge, TEST_SECRET, type TestBridge } from '../webhook-server/helpers/bridge.js';
import { githubDelivery } from '../webhook-server/helpers/github.js';
import { authHeaders } from '../webhook-server/helpers/signing.js';

/**
 * A month of deployments and incidents, made the way they are made in real life — GitHub
 * deliveries and Alertmanager alerts through the bridge, create and close steps of the action
 * (one with the deploy gate), a monitor of the local service — with figures known in advance,
 * checked through `timemark dora` against the real local service.
 *
 * Deployments (type deploy, dataset shop), at 10:00 UTC of day k of the month:
 *   bridge, GitHub deployments: D1 (day 1), D2 (3), D3 (5, fails), D4 (7), D5 (9), D6 (11), each 10 min;
 *     D7 (27) has started and not finished (in progress: not counted);
 *   bridge, GitHub workflow runs with their head commit's time: W1 (13, committed 07:00, ends 10:30),
 *     W2 (15, committed 09:00, ends 10:20), W3 (16, cancelled: not counted);
 *   action, create then close: A1 (17, committed 08:00, ends 10:15), A2 (19, job failed),
 *     A3 (23, committed 09:00, ends 10:10, and its gate finds the error rate doubled).
 * Incidents: I1 fires 20 min after D5 ends and lasts 45 min (D5's failure); I2 (day 20, 2 h, after
 * no deployment); I3 (day 25, still firing); M1, a monitor span on dataset shop-monitor, now.
 *
 * So: 11 deployments in 30 days; 4 failed (D3 and A2 by outcome, D5 by I1, A3 by its impact);
 * restores of 45 min, 2 h and M1's few seconds (median 45 min), I3 not restored; lead times known
 * for W1 (3 h 30 min), W2 (1 h 20 min), A1 (2 h 15 min) and A3 (1 h 10 min): median 1 h 47 min 30 s;
 * not known for D1, D2, D4, D5, D6.
 */

const service = useLocalService();
const DAY = 86_400_000;
const MINUTE = 60_000;
// The first midnight after 30 days ago: every day of the story falls inside `--since 30d`.
const MONTH = Math.ceil((Date.now() - 30 * DAY) / DAY) * DAY;
const at = (day: number, hour: number, minute = 0): number => MONTH + day * DAY + hour * 3_600_000 + minute * MINUTE;
const iso = (ms: number): string => new Date(ms).toISOString();

let bridge: TestBridge;
let workDir: string;
const ids: Record<string, string> = {};

async function sendGithub(fixture: string, change: (body: Record<string, any>) => void): Promise<void> {
  const { body, headers } = githubDelivery(fixture, { change, delivery: randomUUID() });
  const reply = await bridge.post('github', body, headers);
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
}

async function bridgeDeployment(name: string, id: number, startMs: number, finish?: { state: 'success' | 'failure'; endMs: number }): Promise<void> {
  const deployment = (body: Record<string, any>) => {
    body.deployment.id = id;
    body.deployment.created_at = iso(startMs);
    body.deployment.description = name;
  };
  await sendGithub('deployment.created', deployment);
  if (finish) {
    await sendGithub(`deployment_status.${finish.state}`, (body) => {
      deployment(body);
      body.deployment_status.id = id * 10;
      body.deployment_status.created_at = iso(finish.endMs);
      body.deployment_status.description = name;
    });
  }
}

async function bridgeWorkflowRun(name: string, id: number, run: { startMs: number; endMs: number; committedMs: number; conclusion: string }): Promise<void> {
  const common = (body: Record<string, any>) => {
    body.workflow_run.id = id;
    body.workflow_run.run_attempt = 1;
    body.workflow_run.display_title = name;
    body.workflow_run.run_started_at = iso(run.startMs);
    body.workflow_run.created_at = iso(run.startMs);
    body.workflow_run.head_commit.timestamp = iso(run.committedMs);
  };
  await sendGithub('workflow_run.in_progress', (body) => {
    common(body);
    body.workflow_run.updated_at = iso(run.startMs);
  });
  await sendGithub('workflow_run.completed', (body) => {
    common(body);
    body.workflow_run.updated_at = iso(run.endMs);
    body.workflow_run.conclusion = run.conclusion;
  });
}

const FIRING = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'webhooks', 'alertmanager', 'group-firing.json'), 'utf8')) as { alerts: Record<string, unknown>[] };

async function alert(name: string, fingerprint: string, startMs: number, endMs?: number): Promise<void> {
  for (const status of endMs === undefined ? ['firing'] : ['firing', 'resolved']) {
    const alert = { ...FIRING.alerts[0], fingerprint, status, startsAt: iso(startMs), endsAt: status === 'resolved' && endMs !== undefined ? iso(endMs) : '0001-01-01T00:00:00Z', annotations: { summary: name } };
    const body = JSON.stringify({ ...FIRING, status, alerts: [alert] });
    const reply = await bridge.post('alertmanager', body, authHeaders('alertmanager', body, TEST_SECRET));
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  }
}

/** A deploy made by the action: a create step (with the push that started the workflow), then a close step. */
async function actionDeploy(name: string, startMs: number, close: { endMs: number; jobStatus: string; committedMs: number; gate?: Record<string, string> }): Promise<void> {
  const job = createJobFiles();
  try {
    const event = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'action', 'event-push.json'), 'utf8')) as { head_commit: { timestamp: string } };
    event.head_commit.timestamp = iso(close.committedMs);
    const eventPath = join(workDir, `${name}-event.json`);
    writeFileSync(eventPath, JSON.stringify(event));
    const env = githubEnv({ GITHUB_EVENT_PATH: eventPath });
    const service_ = { axiomToken: service.token, axiomUrl: service.url, retries: '0' };
    const created = await runStep({ bundle: 'main', job, env, inputs: runnerInputs({ ...service_, datasets: 'shop', type: 'deploy', time: iso(startMs), title: name }) });
    expect(created.code, created.stdout).toBe(0);
    const id = created.outputs.id ?? '';
    const closed = await runStep({
      bundle: 'main',
      job,
      env,
      inputs: runnerInputs({ ...service_, mode: 'close', id, endTime: iso(close.endMs), jobStatus: close.jobStatus, ...close.gate }),
    });
    expect(closed.code, closed.stdout).toBe(0);
    ids[name] = id;
  } finally {
    job.cleanup();
  }
}

/** M1: a real monitor of the local service opens a span when errors appear, and ends it when they are gone. */
async function monitorEpisode(): Promise<void> {
  const api = serviceApi(service);
  await api.ingest('shop-monitor', Array.from({ length: 5 }, (_, index) => ({ _time: iso(Date.now() - 60_000 + index), status: 500 })));
  const monitor = await api.monitor({ name: 'Shop errors', aplQuery: "['shop-monitor'] | where status >= 500 | summarize count()", operator: 'Above', threshold: 1 });
  expect((await api.run(monitor.id as string)).body).toMatchObject({ opened: 1 });
  expect((await api.call('PUT', `/v2/monitors/${monitor.id}`, { ...monitor, threshold: 100 })).status).toBe(200);
  expect((await api.run(monitor.id as string)).body).toMatchObject({ closed: 1 });
}

async function dora(args: string[]): Promise<RunResult> {
  return runTimemark(['dora', '--datasets', 'shop,shop-monitor', '--since', '30d', ...args], service.cliEnv);
}

let report: DoraReport;
let annotations: Annotation[];

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'timemark-dora-'));
  bridge = await startTestBridge({ serviceUrl: service.url, token: service.token, config: { mapping: { datasets: ['shop'], types: DEFAULT_TYPES, rules: [] } } });

  for (const [index, day] of [1, 3, 5, 7, 9, 11].entries()) {
    await bridgeDeployment(`D${index + 1}`, 500 + index, at(day, 10), { state: day === 5 ? 'failure' : 'success', endMs: at(day, 10, 10) });
  }
  await bridgeDeployment('D7', 507, at(27, 10));
  await bridgeWorkflowRun('W1', 9001, { startMs: at(13, 10), endMs: at(13, 10, 30), committedMs: at(13, 7), conclusion: 'success' });
  await bridgeWorkflowRun('W2', 9002, { startMs: at(15, 10), endMs: at(15, 10, 20), committedMs: at(15, 9), conclusion: 'success' });
  await bridgeWorkflowRun('W3', 9003, { startMs: at(16, 10), endMs: at(16, 10, 5), committedMs: at(16, 9), conclusion: 'cancelled' });
  await alert('I1', 'f00000000000001', at(9, 10, 30), at(9, 11, 15));
  await alert('I2', 'f00000000000002', at(20, 14), at(20, 16));
  await alert('I3', 'f00000000000003', at(25, 3));
  await outboxDrained(() => bridge.store.counts(), 30_000);

  await actionDeploy('A1', at(17, 10), { endMs: at(17, 10, 15), jobStatus: 'success', committedMs: at(17, 8) });
  await actionDeploy('A2', at(19, 10), { endMs: at(19, 10, 10), jobStatus: 'failure', committedMs: at(19, 9) });
  // A3's gate: the error rate doubles between the 10 minutes before it and the 10 minutes after.
  const api = serviceApi(service);
  await api.ingest('shop', httpWindowEvents({ startMs: at(23, 9, 50), endMs: at(23, 10), count: 3000, errorShare: 0.02, latencyMs: 100, seed: 1 }));
  await api.ingest('shop', httpWindowEvents({ startMs: at(23, 10, 10), endMs: at(23, 10, 20), count: 3000, errorShare: 0.04, latencyMs: 100, seed: 2 }));
  await actionDeploy('A3', at(23, 10), { endMs: at(23, 10, 10), jobStatus: 'success', committedMs: at(23, 9), gate: { 'impact-dataset': 'shop', 'impact-window': '10m' } });
  await monitorEpisode();

  // The bridge's spans are known by the name their description starts with; find their ids.
  annotations = await eventually(async () => {
    const listed = await service.annotations.list({ datasets: ['shop', 'shop-monitor'], start: iso(MONTH - DAY), end: iso(Date.now() + DAY) });
    return listed.length === 17 ? listed : undefined;
  }, '17 annotations');
  for (const annotation of annotations) {
    if (annotation.type === 'monitor') ids.M1 = annotation.id;
    const name = /^(I\d)$/.exec(annotation.description?.split('\n')[0] ?? '')?.[1] ?? /^([DW]\d)$/.exec(annotation.description?.split('\n')[0] ?? '')?.[1];
    if (name) ids[name] = annotation.id;
  }

  const result = await dora(['--explain', '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  report = JSON.parse(result.stdout) as DoraReport;
}, 300_000);

afterAll(async () => {
  await bridge?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function spansOf(figure: { spans: { id: string; counted: boolean; note: string }[] }): Record<string, string> {
  const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return Object.fromEntries(figure.spans.map((span) => [byId.get(span.id) ?? span.id, `${span.counted ? 'counted' : 'skipped'}: ${span.note}`]));
}

describe('timemark dora over a month made through the bridge, the action and a monitor', () => {
  it('found every span the story made', () => {
    expect(Object.keys(ids).sort()).toEqual(['A1', 'A2', 'A3', 'D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'I1', 'I2', 'I3', 'M1', 'W1', 'W2', 'W3']);
  });

  it('counts 11 deployments in 30 days: not the one still rolling out, not the cancelled run', () => {
    expect(report.period.days).toBe(30);
    expect(report.deploymentFrequency).toMatchObject({ deployments: 11, perDay: 11 / 30, perWeek: (11 / 30) * 7 });
    expect(report.deploymentFrequency.definition).toMatch(/^Deployment frequency \(DORA\): how often changes are deployed to production\./);
    const spans = spansOf(report.deploymentFrequency);
    expect(Object.keys(spans)).toEqual(['D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'W1', 'W2', 'W3', 'A1', 'A2', 'A3', 'D7']);
    expect(spans.D7).toBe('skipped: in progress: not ended, no outcome yet');
    expect(spans.W3).toBe('skipped: canceled: no change reached production');
    expect(spans.D1).toBe('counted: deployed, outcome success');
  });

  it('finds 4 of 11 changes failed: by outcome, by the incident that followed, by the impact verdict', () => {
    expect(report.changeFailureRate).toMatchObject({ deployments: 11, failed: 4, rate: 4 / 11 });
    const spans = spansOf(report.changeFailureRate);
    expect(spans.D3).toBe('counted: failed: outcome failure');
    expect(spans.A2).toBe('counted: failed: outcome failure');
    expect(spans.D5).toBe(`counted: failed: followed by incident ${ids.I1} at ${iso(at(9, 10, 30))}`);
    expect(spans.A3).toBe('counted: failed: impact verdict regressed');
    expect(Object.entries(spans).filter(([, note]) => note === 'skipped: no failure').map(([name]) => name)).toEqual(['D1', 'D2', 'D4', 'D6', 'W1', 'W2', 'A1']);
  });

  it('takes the median time to restore of the incident and monitor spans that ended', () => {
    expect(report.timeToRestore).toMatchObject({ restored: 3, open: 1, medianMs: 45 * MINUTE });
    const spans = spansOf(report.timeToRestore);
    expect(spans.I1).toBe('counted: restored in 45 min');
    expect(spans.I2).toBe('counted: restored in 2 h');
    expect(spans.I3).toBe('skipped: not restored yet');
    expect(spans.M1).toMatch(/^counted: restored in \d+ (ms|s)$/);
  });

  it('takes the median lead time where the commit time is known, and says where it is not', () => {
    expect(report.leadTime).toMatchObject({ known: 4, unknown: 5, medianMs: (80 * MINUTE + 135 * MINUTE) / 2 });
    const spans = spansOf(report.leadTime);
    expect(spans.W1).toBe(`counted: lead time 3 h 30 min (committed ${iso(at(13, 7))})`);
    expect(spans.W2).toBe(`counted: lead time 1 h 20 min (committed ${iso(at(15, 9))})`);
    expect(spans.A1).toBe(`counted: lead time 2 h 15 min (committed ${iso(at(17, 8))})`);
    expect(spans.A3).toBe(`counted: lead time 1 h 10 min (committed ${iso(at(23, 9))})`);
    for (const name of ['D1', 'D2', 'D4', 'D5', 'D6']) expect(spans[name]).toBe('skipped: commit time not known');
    // Failed by their outcome: no change reached production to measure.
    expect(spans.D3).toBeUndefined();
    expect(spans.A2).toBeUndefined();
  });

  it('prints the figures for people, and with --explain the definitions and every span', async () => {
    const plain = await dora(['--format', 'table']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('DORA figures for shop, shop-monitor: 30 days from ');
    expect(plain.stdout).toMatch(/Deployment frequency +0\.37 per day \(2\.57 per week\) +11 deployments/);
    expect(plain.stdout).toMatch(/Change failure rate +36\.36% +4 of 11 deployments failed/);
    expect(plain.stdout).toMatch(/Time to restore +median 45 min +3 restored, 1 not restored/);
    expect(plain.stdout).toMatch(/Change lead time +median 1 h 47 min +known for 4 deployments, not known for 5/);
    expect(plain.stdout).not.toContain(ids.D1);

    const explained = await dora(['--format', 'table', '--explain']);
    expect(explained.stdout).toContain('Change failure rate (DORA): the share of deployments that cause a failure in production');
    expect(explained.stdout).toContain(`counted  ${ids.D5} deploy "Deploy acme/shop to production (`);
    expect(explained.stdout).toContain(`${iso(at(9, 10))} to ${iso(at(9, 10, 10))}: failed: followed by incident ${ids.I1}`);
    expect(explained.stdout).toContain(`skipped  ${ids.I3} incident "Alert HighErrorRate firing" ${iso(at(25, 3))}: not restored yet`);
  });

  it('leaves the span lists out of the JSON without --explain', async () => {
    const result = await dora([]);
    const brief = JSON.parse(result.stdout) as Record<string, Record<string, unknown>>;
    expect(brief.changeFailureRate).toMatchObject({ failed: 4, deployments: 11 });
    expect(brief.changeFailureRate?.spans).toBeUndefined();
  });
});
