import { describe, expect, it } from 'vitest';
import { defaultTitle, readRunContext, runUrl } from '../../src/action/run-context.js';
import { githubEnv } from './runner-simulation.js';

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
});
