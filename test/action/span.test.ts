import { describe, expect, it } from 'vitest';
import type { Annotation } from '../../src/client/index.js';
import { findPreviousAttemptSpan, outcomeTitle, readSpanTag, shouldClose, tagUrl } from '../../src/action/span.js';

const RUN_PAGE = 'https://github.com/acme/shop/actions/runs/42';
const tag = { runId: '42', job: 'deploy eu', attempt: 3 };

function span(overrides: Partial<Annotation>): Annotation {
  return { id: 'ann_a', datasets: ['prod'], type: 'deploy', time: '2024-05-01T12:00:00.000Z', url: `${RUN_PAGE}#timemark-span=42.1.deploy%20eu`, ...overrides };
}

describe('span tags', () => {
  it('round-trip through the url fragment, job names with spaces and dots included', () => {
    const url = tagUrl(RUN_PAGE, { runId: '42', job: 'deploy.eu west', attempt: 2 });
    expect(url).toBe(`${RUN_PAGE}#timemark-span=42.2.deploy.eu%20west`);
    expect(readSpanTag(url)).toEqual({ runId: '42', job: 'deploy.eu west', attempt: 2 });
  });

  it('leave a url that has its own fragment alone', () => {
    expect(tagUrl('https://example.com/releases#v1', tag)).toBeUndefined();
    expect(readSpanTag('https://example.com/releases#v1')).toBeUndefined();
    expect(readSpanTag(undefined)).toBeUndefined();
  });
});

describe('findPreviousAttemptSpan', () => {
  const want = { tag, type: 'deploy', datasets: ['prod'] };

  it('finds the open span of the latest earlier attempt of the same job', () => {
    const first = span({ id: 'ann_1' });
    const second = span({ id: 'ann_2', url: `${RUN_PAGE}#timemark-span=42.2.deploy%20eu` });
    expect(findPreviousAttemptSpan([second, first], want)?.id).toBe('ann_2');
  });

  it.each<[string, Partial<Annotation>]>([
    ['a closed span', { endTime: '2024-05-01T12:05:00.000Z' }],
    ['another type', { type: 'incident' }],
    ['other datasets', { datasets: ['prod', 'edge'] }],
    ['another job', { url: `${RUN_PAGE}#timemark-span=42.1.deploy-us` }],
    ['another run', { url: 'https://github.com/acme/shop/actions/runs/43#timemark-span=43.1.deploy%20eu' }],
    ['the same attempt (a matrix sibling)', { url: `${RUN_PAGE}#timemark-span=42.3.deploy%20eu` }],
    ['an untagged annotation', { url: RUN_PAGE }],
  ])('ignores %s', (_, overrides) => {
    expect(findPreviousAttemptSpan([span(overrides)], want)).toBeUndefined();
  });

  it('matches datasets in any order', () => {
    expect(findPreviousAttemptSpan([span({ datasets: ['b', 'a'] })], { ...want, datasets: ['a', 'b'] })).toBeDefined();
  });
});

describe('closing', () => {
  it.each([
    ['always', 'failure', true],
    ['always', undefined, true],
    ['success', 'success', true],
    ['success', 'failure', false],
    ['success', 'cancelled', false],
    ['success', undefined, false],
    ['never', 'success', false],
  ] as const)('closeOn %s with job status %s closes: %s', (closeOn, status, expected) => {
    expect(shouldClose(closeOn, status)).toBe(expected);
  });

  it('appends the outcome to the title, shortening only the original title to fit', () => {
    expect(outcomeTitle('Deploy v2', 'success', false, 256)).toBe('Deploy v2 — succeeded');
    expect(outcomeTitle('Deploy v2', 'failure', true, 256)).toBe('Deploy v2 — failed, left open');
    expect(outcomeTitle(undefined, 'cancelled', false, 256)).toBe('Cancelled');
    expect(outcomeTitle('Deploy', undefined, false, 256)).toBe('Deploy — ended (job status not given)');
    const long = outcomeTitle('x'.repeat(256), 'success', false, 256);
    expect(long).toHaveLength(256);
    expect(long.endsWith('x… — succeeded')).toBe(true);
  });
});
