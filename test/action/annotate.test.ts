import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performMain, performPost, type Log } from '../../src/action/annotate.js';
import type { ActionInputs } from '../../src/action/inputs.js';
import { readRunContext } from '../../src/action/run-context.js';
import { createAnnotationsClient, type AnnotationsClient } from '../../src/client/index.js';
import { startLocalService, type LocalService } from '../helpers/local-service.js';
import { githubEnv } from './runner-simulation.js';

// The logic behind both steps, called with plain arguments against the real local service.

let service: LocalService;
let client: AnnotationsClient;

beforeAll(async () => {
  service = await startLocalService();
  client = createAnnotationsClient({ url: service.url, token: service.token, retries: 0 });
});

afterAll(async () => {
  await client.close();
  await service.close();
});

function recordingLog(): Log & { warnings: string[] } {
  const warnings: string[] = [];
  return { info: () => undefined, warning: (message) => warnings.push(message), warnings };
}

function spanInputs(dataset: string, url?: string): ActionInputs {
  return {
    mode: 'span',
    id: undefined,
    service: { url: service.url, token: service.token, orgId: undefined, timeoutMs: 5000, retries: 0 },
    fields: { datasets: [dataset], type: 'deploy', time: undefined, endTime: undefined, title: 'Deploy', description: undefined, url },
    closeOn: 'always',
    jobStatus: undefined,
    failOnError: true,
    dryRun: false,
  };
}

describe('performMain', () => {
  it('opens an untagged span and warns that a re-run may duplicate it when the url has its own fragment', async () => {
    const log = recordingLog();
    const result = await performMain(spanInputs('own-fragment', 'https://example.com/changelog#v2'), {
      client,
      context: readRunContext(githubEnv()),
      now: Date.now(),
      log,
    });

    expect(result.annotation?.url).toBe('https://example.com/changelog#v2');
    expect(log.warnings).toEqual([
      'The span\'s url "https://example.com/changelog#v2" cannot carry the re-run tag (it has a fragment or there is no run id), so a re-run of this job may open a second span.',
    ]);
  });

  it('does not look for an earlier attempt on the first attempt', async () => {
    const result = await performMain(spanInputs('first-attempt'), { client, context: readRunContext(githubEnv()), now: Date.now(), log: recordingLog() });
    expect(result.outcome).toBe('span-opened');
  });
});

describe('performPost', () => {
  it('ends a span whose start is in the future at its start, never before it', async () => {
    const start = new Date(Date.now() + 3_600_000).toISOString();
    const open = await client.create({ datasets: ['future-span'], type: 'deploy', time: start, title: 'Planned maintenance' });

    const result = await performPost(client, { spanId: open.id, spanTitle: 'Planned maintenance', closeOn: 'always', jobStatus: 'success' }, Date.now(), recordingLog());

    expect(result.closed).toBe(true);
    expect(result.annotation.endTime).toBe(open.time);
  });

  it('keeps an end that a later step or a person already set', async () => {
    const open = await client.create({ datasets: ['already-closed'], type: 'deploy', time: '2024-05-01T12:00:00.000Z', endTime: '2024-05-01T12:30:00.000Z' });
    const result = await performPost(client, { spanId: open.id, spanTitle: 'Deploy', closeOn: 'always', jobStatus: 'success' }, Date.now(), recordingLog());

    expect(result.annotation).toEqual({ ...open, title: 'Deploy — succeeded' });
  });

  it('warns that no outcome can be recorded without jobStatus', async () => {
    const open = await client.create({ datasets: ['no-status'], type: 'deploy' });
    const log = recordingLog();
    const result = await performPost(client, { spanId: open.id, spanTitle: undefined, closeOn: 'success', jobStatus: undefined }, Date.now(), log);

    expect(result.closed).toBe(false);
    expect(result.annotation.title).toBe('Ended (job status not given), left open');
    expect(log.warnings).toEqual(['jobStatus is empty, so the span cannot record the job outcome (and closeOn: success never closes it). Pass jobStatus: ${{ job.status }}.']);
  });
});
