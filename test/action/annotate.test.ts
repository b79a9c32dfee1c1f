import { describe, expect, it } from 'vitest';
import { performMain, performPost, type Log } from '../../src/action/annotate.js';
import type { ActionInputs } from '../../src/action/inputs.js';
import { readRunContext } from '../../src/action/run-context.js';
import { useLocalService } from '../helpers/local-service.js';
import { githubEnv } from './runner-simulation.js';

// The logic behind both steps, called with plain arguments against the real local service.

const service = useLocalService();

function recordingLog(): Log & { warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { info: (message) => infos.push(message), warning: (message) => warnings.push(message), warnings, infos };
}

function closeInputs(id: string, fields: Partial<ActionInputs['fields']> = {}): ActionInputs {
  return {
    ...spanInputs('unused'),
    mode: 'close',
    id,
    fields: { datasets: undefined, type: undefined, time: undefined, endTime: undefined, title: undefined, description: undefined, url: undefined, ...fields },
  };
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
    gate: undefined,
  };
}

describe('performMain', () => {
  it('opens an untagged span and warns that a re-run may duplicate it when the url has its own fragment', async () => {
    const log = recordingLog();
    const result = await performMain(spanInputs('own-fragment', 'https://example.com/changelog#v2'), {
      client: service.annotations,
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
    const result = await performMain(spanInputs('first-attempt'), { client: service.annotations, context: readRunContext(githubEnv()), now: Date.now(), log: recordingLog() });
    expect(result.outcome).toBe('span-opened');
  });
});

describe('performMain in close mode', () => {
  const deps = (log: Log) => ({ client: service.annotations, context: readRunContext(githubEnv()), now: Date.parse('2024-05-01T13:00:00.000Z'), log });

  it('closes an open annotation now', async () => {
    const open = await service.annotations.create({ datasets: ['close-open'], type: 'incident', time: '2024-05-01T12:00:00.000Z' });
    const result = await performMain(closeInputs(open.id), deps(recordingLog()));
    expect(result).toMatchObject({ outcome: 'closed', annotation: { endTime: '2024-05-01T13:00:00.000Z' } });
  });

  it('keeps the end of an annotation that is already closed, sends nothing, and says so', async () => {
    const closed = await service.annotations.create({ datasets: ['close-closed'], type: 'incident', time: '2024-05-01T12:00:00.000Z', endTime: '2024-05-01T12:20:00.000Z' });
    const log = recordingLog();
    const result = await performMain(closeInputs(closed.id), deps(log));
    expect(result).toMatchObject({ outcome: 'already-closed', request: undefined, annotation: closed });
    expect(await service.annotations.get(closed.id)).toEqual(closed);
    expect(log.infos).toEqual([`Annotation ${closed.id} was already closed at 2024-05-01T12:20:00.000Z; its endTime is kept (give endTime to move it).`]);
  });

  it('updates the other fields given to a closed annotation and still keeps its end', async () => {
    const closed = await service.annotations.create({ datasets: ['close-closed-title'], type: 'incident', time: '2024-05-01T12:00:00.000Z', endTime: '2024-05-01T12:20:00.000Z' });
    const result = await performMain(closeInputs(closed.id, { title: 'Resolved: cache stampede' }), deps(recordingLog()));
    expect(result.outcome).toBe('already-closed');
    expect(result.request).toMatchObject({ method: 'PUT', body: { title: 'Resolved: cache stampede' } });
    expect(await service.annotations.get(closed.id)).toEqual({ ...closed, title: 'Resolved: cache stampede' });
  });

  it('records the outcome and keeps the facts already recorded when the close step gives a new description', async () => {
    const open = await service.annotations.create({
      datasets: ['close-facts'],
      type: 'deploy',
      time: '2024-05-01T12:00:00.000Z',
      description: 'Rolling out\n[timemark committed=2024-05-01T11:00:00.000Z]',
    });
    const result = await performMain({ ...closeInputs(open.id, { description: 'Rolled back' }), jobStatus: 'failure' }, deps(recordingLog()));
    expect(result.annotation?.description).toBe('Rolled back\n[timemark outcome=failure committed=2024-05-01T11:00:00.000Z]');
  });

  it('moves the end of a closed annotation when endTime is given', async () => {
    const closed = await service.annotations.create({ datasets: ['close-moved'], type: 'incident', time: '2024-05-01T12:00:00.000Z', endTime: '2024-05-01T12:20:00.000Z' });
    const result = await performMain(closeInputs(closed.id, { endTime: '2024-05-01T12:45:00.000Z' }), deps(recordingLog()));
    expect(result).toMatchObject({ outcome: 'closed', annotation: { endTime: '2024-05-01T12:45:00.000Z' } });
  });
});

describe('performPost', () => {
  it('ends a span whose start is in the future at its start, never before it', async () => {
    const start = new Date(Date.now() + 3_600_000).toISOString();
    const open = await service.annotations.create({ datasets: ['future-span'], type: 'deploy', time: start, title: 'Planned maintenance' });

    const result = await performPost(service.annotations, { spanId: open.id, spanTitle: 'Planned maintenance', closeOn: 'always', jobStatus: 'success' }, Date.now(), recordingLog());

    expect(result.closed).toBe(true);
    expect(result.annotation.endTime).toBe(open.time);
  });

  it('keeps an end that a later step or a person already set', async () => {
    const open = await service.annotations.create({ datasets: ['already-closed'], type: 'deploy', time: '2024-05-01T12:00:00.000Z', endTime: '2024-05-01T12:30:00.000Z' });
    const result = await performPost(service.annotations, { spanId: open.id, spanTitle: 'Deploy', closeOn: 'always', jobStatus: 'success' }, Date.now(), recordingLog());

    expect(result.annotation).toEqual({ ...open, title: 'Deploy — succeeded', description: '[timemark outcome=success]' });
  });

  it('warns that no outcome can be recorded without jobStatus', async () => {
    const open = await service.annotations.create({ datasets: ['no-status'], type: 'deploy' });
    const log = recordingLog();
    const result = await performPost(service.annotations, { spanId: open.id, spanTitle: undefined, closeOn: 'success', jobStatus: undefined }, Date.now(), log);

    expect(result.closed).toBe(false);
    expect(result.annotation.title).toBe('Ended (job status not given), left open');
    expect(log.warnings).toEqual([
      'jobStatus is empty, so the span cannot record the job outcome (and closeOn: success never closes it). Leave jobStatus out, so that it defaults to ${{ job.status }}, or pass ${{ job.status }}.',
    ]);
  });
});
