import { describe, expect, it } from 'vitest';
import { defaultTitle, readRunContext, runUrl } from '../../src/action/run-context.js';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/child-process.js';
import { githubEnv } from './runner-simulation.js';

const eventFile = (name: string) => join(REPO_ROOT, 'test', 'fixtures', 'action', name);

describe('run context', () => {
  it("links to the run's page on the run's own server (GitHub Enterprise Server too)", () => {
    expect(runUrl(readRunContext(githubEnv()))).toBe('https://github.example.com/acme/shop/actions/runs/9876543210');
    expect(runUrl(readRunContext(githubEnv({ GITHUB_SERVER_URL: 'https://github.com/' })))).toBe('https://github.com/acme/shop/actions/runs/9876543210');
  });

  it('has no run page outside a runner', () => {
    expect(runUrl(readRunContext({}))).toBeUndefined();
  });

  it('titles an annotation with the workflow, the ref and the short sha', () => {
    expect(defaultTitle(readRunContext(githubEnv()), 256)).toBe('Deploy · main @ 4f2a9c1');
    expect(defaultTitle(readRunContext({ GITHUB_SHA: '4f2a9c1d8e7b' }), 256)).toBe('4f2a9c1');
    expect(defaultTitle(readRunContext({}), 256)).toBeUndefined();
    expect(defaultTitle(readRunContext(githubEnv({ GITHUB_WORKFLOW: 'w'.repeat(300) })), 256)).toHaveLength(256);
  });

  it('counts attempts from 1', () => {
    expect(readRunContext(githubEnv({ GITHUB_RUN_ATTEMPT: '3' })).runAttempt).toBe(3);
    expect(readRunContext({}).runAttempt).toBe(1);
  });

  it("reads the deployed commit's time from a push event, in UTC", () => {
    expect(readRunContext(githubEnv({ GITHUB_EVENT_PATH: eventFile('event-push.json') })).committed).toBe('2024-05-01T11:20:00.000Z');
  });

  it('knows no commit time for an event that does not carry one, or without an event file', () => {
    expect(readRunContext(githubEnv({ GITHUB_EVENT_PATH: eventFile('event-workflow-dispatch.json') })).committed).toBeUndefined();
    expect(readRunContext(githubEnv({ GITHUB_EVENT_PATH: eventFile('no-such-event.json') })).committed).toBeUndefined();
    expect(readRunContext(githubEnv()).committed).toBeUndefined();
  });
});
