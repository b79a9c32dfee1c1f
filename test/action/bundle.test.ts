import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Annotation } from '../../src/client/index.js';
import { REPO_ROOT } from '../helpers/child-process.js';
import { NODE24_BIN } from '../helpers/node24.js';
import { TEST_ORG, TEST_PERSONAL_TOKEN, useLocalService } from '../helpers/local-service.js';
import {
  commands,
  createJobFiles,
  githubEnv,
  loadFixture,
  runnerInputs,
  runStep,
  type JobFiles,
} from './runner-simulation.js';

// The committed bundles, run as child processes the way the runner runs them, against the real service.

const RUN_PAGE = 'https://github.example.com/acme/shop/actions/runs/9876543210';

const service = useLocalService();
let job: JobFiles;

beforeEach(() => {
  job = createJobFiles();
});

afterEach(() => {
  job.cleanup();
});

function inputs(given: Record<string, string>): Record<string, string> {
  return runnerInputs({ axiomToken: service.token, axiomUrl: service.url, retries: '0', ...given });
}

async function annotationsOf(dataset: string): Promise<Annotation[]> {
  return service.annotations.list({ datasets: [dataset] });
}

describe('main step', () => {
  it('creates an annotation, sets every output and writes a summary with a table and a link', async () => {
    const step = await runStep({
      bundle: 'main',
      job,
      env: githubEnv(),
      inputs: inputs({ datasets: ' shop-prod , shop-edge\nshop-prod\n', type: 'deploy', time: '2024-05-01T14:00:00+02:00', description: 'Rolled out v1.4.2' }),
    });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    const stored = await service.annotations.get(step.outputs.id ?? '');
    expect(stored).toEqual({
      id: step.outputs.id,
      datasets: ['shop-prod', 'shop-edge'],
      type: 'deploy',
      time: '2024-05-01T12:00:00.000Z',
      title: 'Deploy · main @ 4f2a9c1',
      description: 'Rolled out v1.4.2',
      url: RUN_PAGE,
    });
    expect(JSON.parse(step.outputs.annotation ?? '')).toEqual(stored);
    expect(step.outputs.time).toBe('2024-05-01T12:00:00.000Z');
    expect(step.outputs.endTime).toBe('');
    expect(step.summary).toContain('### Timemark: Annotation created');
    expect(step.summary).toContain(`| id | <code>${stored.id}</code> |`);
    expect(step.summary).toContain(`| url | [${RUN_PAGE}](${RUN_PAGE}) |`);
    expect(step.summary).toContain(`[Deploy · main @ 4f2a9c1](${RUN_PAGE})`);
  });

  it("records the deployed commit's time, from the push that started the workflow, as data in the description", async () => {
    const step = await runStep({
      bundle: 'main',
      job,
      env: githubEnv({ GITHUB_EVENT_PATH: join(REPO_ROOT, 'test', 'fixtures', 'action', 'event-push.json') }),
      inputs: inputs({ datasets: 'commit-time', type: 'deploy', description: 'Rolled out v1.4.3' }),
    });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect((await service.annotations.get(step.outputs.id ?? '')).description).toBe('Rolled out v1.4.3\n[timemark committed=2024-05-01T11:20:00.000Z]');
  });

  it("runs the documented example of axiomhq/annotation-action unchanged", async () => {
    const example = loadFixture<{ with: Record<string, string> }>('axiom-annotation-action-example.json');
    const step = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: inputs({ ...example.with, axiomToken: service.token }) });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(await service.annotations.get(step.outputs.id ?? '')).toEqual({
      id: step.outputs.id,
      datasets: ['dataset_name'],
      type: 'production-release',
      time: '2024-01-01T00:00:00.000Z',
      endTime: '2024-01-01T01:00:00.000Z',
      title: 'Production deployment',
      description: 'Commit Fix the checkout redirect loop',
      url: 'https://example.com',
    });
    expect(step.outputs.endTime).toBe('2024-01-01T01:00:00.000Z');
  });

  it('never prints the token', async () => {
    const step = await runStep({ bundle: 'main', job, env: { ...githubEnv(), RUNNER_DEBUG: '1' }, inputs: inputs({ datasets: 'masking', type: 'deploy' }) });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(step.stdout).toContain(`::add-mask::${service.token}`);
    expect(step.stdout.replace(`::add-mask::${service.token}`, '')).not.toContain(service.token);
    expect(step.stdout.indexOf('::add-mask::')).toBeLessThan(step.stdout.indexOf('::debug::'));
  });

  it('fails before any request with a message that names the input, quotes it and says what is expected', async () => {
    const step = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: inputs({ datasets: 'invalid-type', type: 'Production Release' }) });

    expect(step.code).toBe(1);
    expect(commands(step.stdout, 'error')).toEqual([
      'Invalid type "Production Release". Expected 1 to 256 lowercase letters, digits and dashes, e.g. "production-deploy".',
    ]);
    expect(await annotationsOf('invalid-type')).toEqual([]);
  });

  it("quotes the service's status, message and trace id when the service refuses", async () => {
    const step = await runStep({
      bundle: 'main',
      job,
      env: githubEnv(),
      inputs: inputs({ axiomToken: 'xaat-not-a-known-token', datasets: 'refused', type: 'deploy' }),
    });

    expect(step.code).toBe(1);
    const [error] = commands(step.stdout, 'error');
    expect(error).toMatch(/^Timemark could not write the annotation: POST \/v2\/annotations answered 401: .+ \[trace id [^\]]+\]$/);
  });

  it('turns a failure into a warning and succeeds when failOnError is false', async () => {
    const step = await runStep({
      bundle: 'main',
      job,
      env: githubEnv(),
      // Nothing listens on port 9: the service is "down".
      inputs: inputs({ axiomUrl: 'http://127.0.0.1:9', datasets: 'outage', type: 'deploy', failOnError: 'false' }),
    });

    expect(step.code).toBe(0);
    expect(commands(step.stdout, 'error')).toEqual([]);
    expect(commands(step.stdout, 'warning').join('\n')).toMatch(/POST \/v2\/annotations failed: .*ECONNREFUSED.*failOnError is false/);
  });

  it('updates the fields given and keeps the others when an id is given', async () => {
    const created = await service.annotations.create({ datasets: ['update-by-id'], type: 'deploy', title: 'Deploy v2', description: 'keep me' });
    const step = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: inputs({ id: created.id, title: 'Deploy v2 (hotfix)' }) });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(await service.annotations.get(created.id)).toEqual({ ...created, title: 'Deploy v2 (hotfix)' });
    expect(step.outputs.id).toBe(created.id);
  });

  it('closes an existing annotation at the current time in close mode', async () => {
    const created = await service.annotations.create({ datasets: ['close-by-id'], type: 'incident', time: new Date(Date.now() - 60_000).toISOString() });
    const before = Date.now();
    const step = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: inputs({ id: created.id, mode: 'close' }) });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    const closed = await service.annotations.get(created.id);
    expect(Date.parse(closed.endTime ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(step.outputs.endTime).toBe(closed.endTime);
    // The job's status so far (the runner's default for jobStatus) is its outcome.
    expect(closed.description).toBe('[timemark outcome=success]');
  });

  it('keeps the end of an annotation that is already closed in close mode, and says so in the log and the summary', async () => {
    const closed = await service.annotations.create({ datasets: ['close-twice'], type: 'incident', time: '2024-05-01T12:00:00.000Z', endTime: '2024-05-01T12:20:00.000Z' });
    const step = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: inputs({ id: closed.id, mode: 'close' }) });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(await service.annotations.get(closed.id)).toEqual(closed);
    expect(step.outputs.endTime).toBe('2024-05-01T12:20:00.000Z');
    expect(step.stdout).toContain(`Annotation ${closed.id} was already closed at 2024-05-01T12:20:00.000Z; its endTime is kept`);
    expect(step.summary).toContain('Annotation already closed (its endTime is kept)');
  });

  it('sends nothing in a dry run, needs no token, and still sets the outputs', async () => {
    const step = await runStep({
      bundle: 'main',
      job,
      env: githubEnv(),
      inputs: inputs({ axiomToken: '', dryRun: 'true', datasets: 'dry-run', type: 'deploy', time: '1714564800' }),
    });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(step.stdout).toContain('Dry run: would send POST /v2/annotations');
    expect(step.outputs.id).toBe('');
    expect(step.outputs.time).toBe('2024-05-01T12:00:00.000Z');
    expect(JSON.parse(step.outputs.annotation ?? '')).toMatchObject({ datasets: ['dry-run'], type: 'deploy' });
    expect(step.summary).toContain('Dry run: nothing was sent');
    expect(await annotationsOf('dry-run')).toEqual([]);
  });

  it('works without a job summary file', async () => {
    const step = await runStep({ bundle: 'main', job, env: githubEnv(), withSummaryFile: false, inputs: inputs({ datasets: 'no-summary', type: 'deploy' }) });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(commands(step.stdout, 'warning')).toEqual([]);
    expect(await annotationsOf('no-summary')).toHaveLength(1);
  });

  it('runs on Node 24, the runtime action.yml names', async () => {
    expect(existsSync(NODE24_BIN), `${NODE24_BIN} is missing: "npm test" installs it in its pretest step`).toBe(true);
    const step = await runStep({ bundle: 'main', job, node: NODE24_BIN, env: githubEnv(), inputs: inputs({ datasets: 'node24', type: 'deploy' }) });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(await annotationsOf('node24')).toHaveLength(1);
  });
});

describe('talking to the service', () => {
  /** A front for the real service that answers the first `refusals` requests itself. */
  async function startFront(refusals: number, answer: 'rate-limit' | 'hang'): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
    let requests = 0;
    const server: Server = createServer((req, res) => {
      requests++;
      if (requests <= refusals) {
        if (answer === 'hang') return;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end(JSON.stringify({ code: 429, message: 'rate limited' }));
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<string, string>;
        void fetch(service.url + (req.url ?? ''), { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined }).then(async (reply) => {
          res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
          res.end(await reply.text());
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      requests: () => requests,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  it('retries a rate-limited create and succeeds', async () => {
    const front = await startFront(2, 'rate-limit');
    try {
      const step = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: inputs({ axiomUrl: front.url, retries: '3', datasets: 'rate-limited', type: 'deploy' }) });

      expect(step.code, step.stdout + step.stderr).toBe(0);
      expect(front.requests()).toBe(3);
      expect(step.stdout).toMatch(/Retrying POST \/v2\/annotations in \d+ ms: .*429/);
      expect(await annotationsOf('rate-limited')).toHaveLength(1);
    } finally {
      await front.close();
    }
  });

  it('gives up after timeoutMs without retrying a create that may have been stored', async () => {
    const front = await startFront(Number.POSITIVE_INFINITY, 'hang');
    try {
      const step = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: inputs({ axiomUrl: front.url, timeoutMs: '300', retries: '3', datasets: 'hangs', type: 'deploy' }) });

      expect(step.code).toBe(1);
      expect(commands(step.stdout, 'error')[0]).toBe('Timemark could not write the annotation: POST /v2/annotations failed: no answer within 300 ms');
      expect(front.requests()).toBe(1);
    } finally {
      await front.close();
    }
  });

  it('sends orgId with a personal token', async () => {
    const step = await runStep({
      bundle: 'main',
      job,
      env: githubEnv(),
      inputs: inputs({ axiomToken: TEST_PERSONAL_TOKEN, orgId: TEST_ORG, datasets: 'personal-token', type: 'deploy' }),
    });

    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(await annotationsOf('personal-token')).toHaveLength(1);
  });
});

describe('span mode', () => {
  async function openSpan(dataset: string, given: Record<string, string> = {}, env: Record<string, string> = {}) {
    const step = await runStep({
      bundle: 'main',
      job,
      env: githubEnv(env),
      inputs: inputs({ mode: 'span', datasets: dataset, type: 'deploy', description: 'Rolling out v1.5.0', ...given }),
    });
    expect(step.code, step.stdout + step.stderr).toBe(0);
    return step;
  }

  async function endJob(state: Record<string, string>, jobStatus: string, given: Record<string, string> = {}, env: Record<string, string> = {}) {
    return runStep({
      bundle: 'post',
      job,
      env: githubEnv(env),
      state,
      inputs: inputs({ mode: 'span', datasets: 'ignored-by-post', type: 'deploy', jobStatus, ...given }),
    });
  }

  it('opens a span when the job starts and closes it with the outcome when the job ends', async () => {
    const opened = await openSpan('span-success');
    const id = opened.outputs.id ?? '';
    const open = await service.annotations.get(id);
    expect(open.endTime).toBeUndefined();
    expect(open.url).toBe(`${RUN_PAGE}#timemark-span=9876543210.1.deploy`);
    expect(opened.summary).toContain('Span opened');

    const before = Date.now();
    const post = await endJob(opened.state, 'success');

    expect(post.code, post.stdout + post.stderr).toBe(0);
    const closed = await service.annotations.get(id);
    expect(closed).toEqual({
      ...open,
      endTime: closed.endTime,
      title: 'Deploy · main @ 4f2a9c1 — succeeded',
      // The outcome as data, under what the workflow wrote.
      description: 'Rolling out v1.5.0\n[timemark outcome=success]',
    });
    expect(Date.parse(closed.endTime ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(post.summary).toContain('### Timemark: Span closed');
  });

  it("records the job's outcome with no jobStatus input, from the default the runner evaluates for the post step", async () => {
    const opened = await openSpan('span-default-status', { closeOn: 'success' });
    const post = await runStep({
      bundle: 'post',
      job,
      env: githubEnv(),
      state: opened.state,
      inputs: runnerInputs({ axiomToken: service.token, axiomUrl: service.url, retries: '0', mode: 'span', datasets: 'span-default-status', type: 'deploy', closeOn: 'success' }, { status: 'failure' }),
    });

    expect(post.code, post.stdout + post.stderr).toBe(0);
    expect(commands(post.stdout, 'warning')).toEqual([]);
    const span = await service.annotations.get(opened.outputs.id ?? '');
    expect(span.title).toMatch(/— failed, left open$/);
    expect(span.endTime).toBeUndefined();
  });

  it('records a failure and leaves the span open for a person when closeOn is success', async () => {
    const opened = await openSpan('span-failure', { closeOn: 'success', title: 'Deploy shop v1.5.0' });
    const post = await endJob(opened.state, 'failure', { closeOn: 'success' });

    expect(post.code, post.stdout + post.stderr).toBe(0);
    const span = await service.annotations.get(opened.outputs.id ?? '');
    expect(span.endTime).toBeUndefined();
    expect(span.title).toBe('Deploy shop v1.5.0 — failed, left open');
    expect(span.description).toBe('Rolling out v1.5.0\n[timemark outcome=failure]');
  });

  it('closes a cancelled job with closeOn always and says it was cancelled', async () => {
    const opened = await openSpan('span-cancelled');
    await endJob(opened.state, 'cancelled');

    const span = await service.annotations.get(opened.outputs.id ?? '');
    expect(span.endTime).toBeDefined();
    expect(span.title).toMatch(/— cancelled$/);
  });

  it('lets a re-run of the job take over the span its failed attempt left open instead of opening a second one', async () => {
    const first = await openSpan('span-rerun', { closeOn: 'success' });
    await endJob(first.state, 'failure', { closeOn: 'success' });

    const second = await openSpan('span-rerun', { closeOn: 'success' }, { GITHUB_RUN_ATTEMPT: '2' });
    expect(second.outputs.id).toBe(first.outputs.id);
    expect(second.summary).toContain('taken over');
    const post = await endJob(second.state, 'success', { closeOn: 'success' }, { GITHUB_RUN_ATTEMPT: '2' });

    expect(post.code, post.stdout + post.stderr).toBe(0);
    const spans = await annotationsOf('span-rerun');
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({
      id: first.outputs.id,
      time: first.outputs.time,
      title: 'Deploy · main @ 4f2a9c1 — succeeded',
      url: `${RUN_PAGE}#timemark-span=9876543210.2.deploy`,
    });
    expect(spans[0]?.endTime).toBeDefined();
  });

  it('does not take over a span of another job of the same run', async () => {
    const other = await openSpan('span-other-job', {}, { GITHUB_JOB: 'deploy-eu' });
    const rerun = await openSpan('span-other-job', {}, { GITHUB_RUN_ATTEMPT: '2' });

    expect(rerun.outputs.id).not.toBe(other.outputs.id);
    expect(await annotationsOf('span-other-job')).toHaveLength(2);
  });

  it('rejects endTime in span mode before any request', async () => {
    const step = await runStep({ bundle: 'main', job, env: githubEnv(), inputs: inputs({ mode: 'span', datasets: 'span-end', type: 'deploy', endTime: 'now' }) });

    expect(step.code).toBe(1);
    expect(commands(step.stdout, 'error')[0]).toMatch(/^Invalid endTime ".+" with mode span\. Expected no endTime/);
    expect(await annotationsOf('span-end')).toEqual([]);
  });
});

describe('post step', () => {
  it('does nothing after a mode that opened no span', async () => {
    const post = await runStep({ bundle: 'post', job, env: githubEnv(), inputs: inputs({ datasets: 'x', type: 'deploy', jobStatus: 'success' }) });

    expect(post.code).toBe(0);
    expect(post.stdout).not.toContain('::warning::');
  });

  it('only warns, never fails, when the service is down at the end of the job', async () => {
    const post = await runStep({
      bundle: 'post',
      job,
      env: githubEnv(),
      state: { timemarkSpanId: 'ann_gone', timemarkSpanTitle: 'Deploy' },
      inputs: inputs({ axiomUrl: 'http://127.0.0.1:9', mode: 'span', datasets: 'x', type: 'deploy', jobStatus: 'success' }),
    });

    expect(post.code).toBe(0);
    expect(commands(post.stdout, 'warning')[0]).toMatch(/^Timemark could not close span ann_gone: .*ECONNREFUSED/);
  });
});
