import { describe, expect, it } from 'vitest';
import type { Annotation } from '../../src/common/annotation-contract.js';
import { computeDora, median } from '../../src/dora/dora.js';

const T = Date.parse('2024-05-10T10:00:00.000Z');
const MIN = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString();

function annotation(id: string, type: string, startMs: number, endMs: number | undefined, datasets = ['shop'], description?: string): Annotation {
  return { id, type, datasets, time: iso(startMs), ...(endMs === undefined ? {} : { endTime: iso(endMs) }), ...(description === undefined ? {} : { description }) };
}

function failuresOf(annotations: Annotation[]): Record<string, string> {
  const report = computeDora({ annotations, datasets: ['shop', 'edge'], startMs: T - 86_400_000, endMs: T + 86_400_000 });
  return Object.fromEntries(report.changeFailureRate.spans.map((span) => [span.id, span.note]));
}

describe('the change failure rate', () => {
  it('counts an incident against the latest deployment before it only', () => {
    const notes = failuresOf([
      annotation('first', 'deploy', T, T + 5 * MIN),
      annotation('second', 'deploy', T + 10 * MIN, T + 15 * MIN),
      annotation('incident', 'incident', T + 20 * MIN, T + 40 * MIN),
    ]);
    expect(notes).toEqual({ first: 'no failure', second: `failed: followed by incident incident at ${iso(T + 20 * MIN)}` });
  });

  it('counts an incident that starts during the rollout, and none that starts after the window or elsewhere', () => {
    expect(failuresOf([annotation('d', 'deploy', T, T + 30 * MIN), annotation('i', 'monitor', T + 10 * MIN, T + 20 * MIN)]).d).toMatch(/^failed: followed by monitor i/);
    expect(failuresOf([annotation('d', 'deploy', T, T + 5 * MIN), annotation('i', 'incident', T + 66 * MIN, undefined)]).d).toBe('no failure');
    expect(failuresOf([annotation('d', 'deploy', T, T + 5 * MIN), annotation('i', 'incident', T + 10 * MIN, undefined, ['edge'])]).d).toBe('no failure');
  });

  it('counts a failed outcome and a regressed impact from the facts line', () => {
    const notes = failuresOf([
      annotation('failed', 'deploy', T, T + 5 * MIN, ['shop'], 'v2\n[timemark outcome=error]'),
      annotation('regressed', 'deploy', T + 60 * MIN, T + 65 * MIN, ['shop'], '[timemark outcome=success impact=regressed]'),
    ]);
    expect(notes).toEqual({ failed: 'failed: outcome error', regressed: 'failed: impact verdict regressed' });
  });
});

describe('median', () => {
  it('is the middle value, or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});
