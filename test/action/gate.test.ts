import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readFacts } from '../../src/common/annotation-facts.js';
import { httpWindowEvents } from '../helpers/http-window-events.js';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';
import { commands, createJobFiles, githubEnv, runnerInputs, runStep, type JobFiles } from './runner-simulation.js';

/**
 * The deploy gate, run as the runner runs the committed bundles, against the real local service
 * with generated events: the verdict reaches the summary, the outputs and the annotation, and
 * fails the job only when fail-on-regression asks for it.
 */

const service = useLocalService();
const WINDOW_MS = 10 * 60_000;
const START_MS = Date.parse('2024-05-01T12:00:00.000Z');
const END_MS = START_MS + 5 * 60_000;
let job: JobFiles;

beforeEach(() => {
  job = createJobFiles();
});

afterEach(() => {
  job.cleanup();
});

async function ingest(dataset: string, events: Array<Record<string, unknown>>): Promise<void> {
  const api = serviceApi(service);
  for (let index = 0; index < events.length; index += 5000) await api.ingest(dataset, events.slice(index, index + 5000));
}

/** A past deploy on `dataset` whose error share goes from 2% to `afterShare`. */
async function pastDeploy(dataset: string, afterShare: number): Promise<string> {
  await ingest(dataset, [
    ...httpWindowEvents({ startMs: START_MS - WINDOW_MS, endMs: START_MS, count: 3000, errorShare: 0.02, latencyMs: 100, seed: 1 }),
    ...httpWindowEvents({ startMs: END_MS, endMs: END_MS + WINDOW_MS, count: 3000, errorShare: afterShare, latencyMs: 100, seed: 3 }),
  ]);
  const annotation = await service.annotations.create({ datasets: [dataset], type: 'deploy', title: `Deploy ${dataset}`, time: new Date(START_MS).toISOString() });
  return annotation.id;
}

function closeStep(id: string, given: Record<string, string>) {
  return runStep({
    bundle: 'main',
    job,
    env: githubEnv(),
    inputs: runnerInputs({ axiomToken: service.token, axiomUrl: service.url, retries: '0', mode: 'close', id, endTime: new Date(END_MS).toISOString(), ...given }),
  });
}

const deploys: Record<string, string> = {};

beforeAll(async () => {
  deploys.regressed = await pastDeploy('gate-regressed', 0.04);
  deploys.neutral = await pastDeploy('gate-neutral', 0.02);
});

describe('the deploy gate in close mode', () => {
  it('writes a regression into the summary, the outputs and the annotation, and only warns without fail-on-regression', async () => {
    const step = await closeStep(deploys.regressed as string, { 'impact-dataset': 'gate-regressed', 'impact-window': '10m' });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(step.outputs['impact-verdict']).toBe('regressed');
    const impact = JSON.parse(step.outputs.impact ?? '{}');
    expect(impact).toMatchObject({ verdict: 'regressed', dataset: 'gate-regressed', window: '10m' });
    expect(impact.signals[0]).toMatchObject({ name: 'error rate', verdict: 'regressed', before: { matching: 60, events: 3000 }, after: { matching: 120, events: 3000 } });
    expect(step.summary).toContain('### Timemark: impact on <code>gate-regressed</code>: **regressed**');
    expect(step.summary).toContain('| error rate (status) | 2.00% (60 of 3,000) | 4.00% (120 of 3,000) | +100% | **regressed** | z-test, p = ');
    expect(commands(step.stdout, 'warning')).toEqual(['The change regressed on gate-regressed: error rate (status). The job goes on because fail-on-regression is false.']);
    expect(commands(step.stdout, 'error')).toEqual([]);
    const annotation = await service.annotations.get(deploys.regressed as string);
    expect(readFacts(annotation.description)).toEqual({ outcome: 'success', impact: 'regressed' });
  });

  it('fails the job on a regression with fail-on-regression: true', async () => {
    const step = await closeStep(deploys.regressed as string, { 'impact-dataset': 'gate-regressed', 'fail-on-regression': 'true' });

    expect(step.code).toBe(1);
    expect(commands(step.stdout, 'error')).toEqual(['The change regressed on gate-regressed: error rate (status). The job fails because fail-on-regression is true.']);
    expect(step.summary).toContain('**regressed**');
  });

  it('lets a neutral deploy pass with fail-on-regression: true', async () => {
    const step = await closeStep(deploys.neutral as string, { 'impact-dataset': 'gate-neutral', 'fail-on-regression': 'true' });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(step.outputs['impact-verdict']).toBe('no change');
    expect(step.summary).toContain('impact on <code>gate-neutral</code>: **no change**');
    expect(readFacts((await service.annotations.get(deploys.neutral as string)).description).impact).toBe('no-change');
  });

  it('only warns when the impact cannot be measured, even with fail-on-regression: true', async () => {
    const id = (await service.annotations.create({ datasets: ['gate-missing'], type: 'deploy', time: new Date(START_MS).toISOString() })).id;
    const step = await closeStep(id, { 'impact-dataset': 'no-such-dataset', 'fail-on-regression': 'true' });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(commands(step.stdout, 'error')).toEqual([]);
    expect(commands(step.stdout, 'warning')).toEqual([expect.stringMatching(new RegExp(`^Timemark could not measure the impact of ${id} on no-such-dataset: GET /v2/datasets/no-such-dataset/fields answered 404`))]);
    expect(step.outputs['impact-verdict']).toBeUndefined();
    expect((await service.annotations.get(id)).endTime).toBe(new Date(END_MS).toISOString());
  });

  it('refuses an impact signal that is not one aggregation before closing anything', async () => {
    const id = (await service.annotations.create({ datasets: ['gate-bad-signal'], type: 'deploy', time: new Date(START_MS).toISOString() })).id;
    const step = await closeStep(id, { 'impact-dataset': 'gate-bad-signal', 'impact-signals': 'count()\ncount() | take 1' });

    expect(step.code).toBe(1);
    expect(commands(step.stdout, 'error')).toEqual([expect.stringMatching(/^Invalid impact-signals line 2 "count\(\) \| take 1": "\|" outside parentheses\./)]);
    expect((await service.annotations.get(id)).endTime).toBeUndefined();
  });
});

describe('the deploy gate in span mode', () => {
  it('waits out the window after the job ends, then fails the job on a regression when asked', async () => {
    const dataset = 'gate-span';
    const windowMs = 2000;
    const given = { mode: 'span', datasets: dataset, type: 'deploy', 'impact-dataset': dataset, 'impact-window': '2s', 'fail-on-regression': 'true' };
    const opened = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: runnerInputs({ axiomToken: service.token, axiomUrl: service.url, retries: '0', ...given }) });
    expect(opened.code, opened.stdout + opened.stderr).toBe(0);
    const startMs = Date.parse(opened.outputs.time ?? '');
    // Healthy before the span; errors from its start on, whenever the job ends.
    await ingest(dataset, [
      ...httpWindowEvents({ startMs: startMs - windowMs, endMs: startMs, count: 2000, errorShare: 0.02, latencyMs: 100, seed: 1 }),
      ...httpWindowEvents({ startMs, endMs: startMs + 60_000, count: 60_000, errorShare: 0.1, latencyMs: 100, seed: 2 }),
    ]);

    const post = await runStep({
      bundle: 'post',
      job,
      env: githubEnv(),
      state: opened.state,
      inputs: runnerInputs({ axiomToken: service.token, axiomUrl: service.url, retries: '0', ...given }),
    });

    expect(post.code).toBe(1);
    const span = await service.annotations.get(opened.outputs.id ?? '');
    expect(post.stdout).toMatch(/Waiting \d+ s for the window after the span to pass, then measuring its impact on gate-span\./);
    expect(commands(post.stdout, 'error')).toEqual(['The change regressed on gate-span: error rate (status). The job fails because fail-on-regression is true.']);
    expect(post.summary).toContain('### Timemark: Span closed');
    expect(post.summary).toContain('impact on <code>gate-span</code>: **regressed**');
    expect(readFacts(span.description)).toEqual({ outcome: 'success', impact: 'regressed' });
  });

  it('says why it measured nothing when the span was left open', async () => {
    const given = { mode: 'span', datasets: 'gate-left-open', type: 'deploy', closeOn: 'success', 'impact-dataset': 'gate-left-open' };
    const opened = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: runnerInputs({ axiomToken: service.token, axiomUrl: service.url, retries: '0', ...given }) });
    const post = await runStep({
      bundle: 'post',
      job,
      env: githubEnv(),
      state: opened.state,
      inputs: runnerInputs({ axiomToken: service.token, axiomUrl: service.url, retries: '0', ...given }, { status: 'failure' }),
    });

    expect(post.code, post.stdout + post.stderr).toBe(0);
    expect(post.summary).toContain('### Timemark: impact on <code>gate-left-open</code> not measured');
    expect(post.stdout).toContain(`Impact not measured: the span ${opened.outputs.id} is still open`);
  });
});
