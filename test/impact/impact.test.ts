import { beforeAll, describe, expect, it } from 'vitest';
import { createEventsClient, type EventsClient } from '../../src/client/index.js';
import type { Annotation } from '../../src/common/annotation-contract.js';
import { computeImpact, type ImpactResult } from '../../src/impact/impact.js';
import { httpWindowEvents, type WindowTraffic } from '../helpers/http-window-events.js';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';

/**
 * The impact of a deploy against the real local service: generated events go in over the ingest
 * API, the deploy span over the annotation API, and the verdict is computed through the public
 * API only (the dataset's fields and APL), as against the hosted service.
 */

const service = useLocalService();
const WINDOW_MS = 30 * 60_000;
const START_MS = Date.parse('2024-05-01T12:00:00.000Z');
const END_MS = START_MS + 5 * 60_000;
const NOW_MS = Date.parse('2024-06-01T00:00:00.000Z');

let client: EventsClient;

async function deployOn(dataset: string, traffic: { before: Partial<WindowTraffic>; after: Partial<WindowTraffic> }): Promise<Annotation> {
  const base = { count: 3000, errorShare: 0.02, latencyMs: 100 };
  const events = [
    ...httpWindowEvents({ ...base, ...traffic.before, startMs: START_MS - WINDOW_MS, endMs: START_MS, seed: 1 }),
    // The rollout itself: its events belong to neither window.
    ...httpWindowEvents({ ...base, count: 500, errorShare: 0.5, startMs: START_MS, endMs: END_MS, seed: 2 }),
    ...httpWindowEvents({ ...base, ...traffic.after, startMs: END_MS, endMs: END_MS + WINDOW_MS, seed: 3 }),
  ];
  const api = serviceApi(service);
  for (let index = 0; index < events.length; index += 5000) await api.ingest(dataset, events.slice(index, index + 5000));
  return service.annotations.create({ datasets: [dataset], type: 'deploy', title: `Deploy ${dataset}`, time: new Date(START_MS).toISOString(), endTime: new Date(END_MS).toISOString() });
}

function impactOf(annotation: Annotation, options: { signals?: string[]; nowMs?: number; dataset?: string } = {}): Promise<ImpactResult> {
  return computeImpact(client, { annotation, windowMs: WINDOW_MS, nowMs: options.nowMs ?? NOW_MS, ...options });
}

function signal(result: ImpactResult, name: string) {
  const found = result.signals.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`No signal ${name} in ${JSON.stringify(result)}`);
  return found;
}

const deploys: Record<string, Annotation> = {};

beforeAll(async () => {
  client = createEventsClient({ url: service.url, token: service.token, retries: 0 });
  deploys.doubled = await deployOn('doubled', { before: {}, after: { errorShare: 0.04 } });
  deploys.neutral = await deployOn('neutral', { before: {}, after: {} });
  deploys.sparse = await deployOn('sparse', { before: { count: 40 }, after: { count: 40, errorShare: 0.25 } });
  deploys.slower = await deployOn('slower', { before: {}, after: { latencyMs: 200 } });
  deploys.faster = await deployOn('faster', { before: { errorShare: 0.04 }, after: { errorShare: 0.01, latencyMs: 50 } });
  return () => client.close();
});

describe('the impact of a deploy', () => {
  it('calls a deploy that doubles the error rate regressed, with the figures and the rule that decided', async () => {
    const result = await impactOf(deploys.doubled as Annotation);
    expect(result.verdict).toBe('regressed');
    expect(result.dataset).toBe('doubled');
    expect(result.before).toEqual({ start: '2024-05-01T11:30:00.000Z', end: '2024-05-01T12:00:00.000Z' });
    expect(result.after).toEqual({ start: '2024-05-01T12:05:00.000Z', end: '2024-05-01T12:35:00.000Z', complete: true });
    const errors = signal(result, 'error rate');
    expect(errors).toMatchObject({
      verdict: 'regressed',
      field: 'status',
      rule: 'rate',
      test: 'z-test',
      before: { matching: 60, events: 3000, value: 0.02 },
      after: { matching: 120, events: 3000, value: 0.04 },
      alpha: 0.005,
    });
    expect(errors.change).toBeCloseTo(1, 10);
    expect(errors.pValue).toBeLessThan(1e-4);
    expect(errors.ruleText).toMatch(/two-proportion/);
    expect(signal(result, 'p95 latency')).toMatchObject({ verdict: 'no change', field: 'duration_ms', rule: 'percentile' });
    expect(result.missing).toEqual([]);
  });

  it('calls a neutral deploy no change', async () => {
    const result = await impactOf(deploys.neutral as Annotation);
    expect(result.verdict).toBe('no change');
    expect(result.signals.map((entry) => [entry.name, entry.verdict])).toEqual([
      ['error rate', 'no change'],
      ['p95 latency', 'no change'],
    ]);
    expect(signal(result, 'error rate').pValue).toBe(1);
  });

  it('calls a sparse deploy not enough data, saying how many events each window had', async () => {
    const result = await impactOf(deploys.sparse as Annotation);
    expect(result.verdict).toBe('not enough data');
    const errors = signal(result, 'error rate');
    expect(errors.verdict).toBe('not enough data');
    expect(errors.reason).toBe('40 before and 40 after; the rule needs at least 100 events in each window.');
    expect(errors.pValue).toBeUndefined();
  });

  it('calls a deploy that doubles the latency regressed on p95, counting the values above the old p95', async () => {
    const result = await impactOf(deploys.slower as Annotation);
    expect(result.verdict).toBe('regressed');
    const latency = signal(result, 'p95 latency');
    expect(latency.verdict).toBe('regressed');
    expect(latency.before.events).toBe(3000);
    expect(latency.after.value).toBeGreaterThan((latency.before.value ?? 0) * 1.5);
    // About 5% of the values before are above their own p95, far more after.
    expect(latency.before.above).toBeLessThanOrEqual(150);
    expect(latency.after.above).toBeGreaterThan(600);
    expect(signal(result, 'error rate').verdict).toBe('no change');
  });

  it('calls a deploy that lowers the error rate and the latency improved', async () => {
    const result = await impactOf(deploys.faster as Annotation);
    expect(result.verdict).toBe('improved');
    expect(result.signals.map((entry) => entry.verdict)).toEqual(['improved', 'improved']);
  });

  it('takes any APL aggregation as a signal, each judged by the rule its form calls for', async () => {
    const result = await impactOf(deploys.doubled as Annotation, { signals: ['countif(level == "error")', 'count()', 'percentile(duration_ms, 99)'] });
    expect(result.signals.map((entry) => [entry.name, entry.rule, entry.verdict])).toEqual([
      ['countif(level == "error")', 'rate', 'regressed'],
      ['count()', 'buckets', 'no change'],
      ['percentile(duration_ms, 99)', 'percentile', 'no change'],
    ]);
    const rate = signal(result, 'countif(level == "error")');
    expect(rate.before).toMatchObject({ matching: 60, events: 3000 });
    expect(signal(result, 'count()').before).toEqual({ value: 3000, buckets: 10 });
    // Three signals share the verdict's 1%.
    expect(rate.alpha).toBeCloseTo(0.01 / 3, 12);
  });

  it('reports a default signal whose field the dataset lacks, and never guesses one', async () => {
    await serviceApi(service).ingest('odd-fields', [{ _time: new Date(START_MS - 60_000).toISOString(), code: 500, elapsed: 'slow' }]);
    const annotation = await service.annotations.create({ datasets: ['odd-fields'], type: 'deploy', time: new Date(START_MS).toISOString() });
    const result = await impactOf(annotation);
    expect(result.verdict).toBe('not enough data');
    expect(result.signals).toEqual([]);
    expect(result.missing.map((entry) => entry.signal)).toEqual(['error rate', 'p95 latency']);
    expect(result.missing[0]?.reason).toMatch(/^the dataset has no field named status, status_code, .*; give the signal with --signal/);
    expect(result.notes).toEqual(['No signal to compare: the default signals need fields the dataset does not have.']);
  });

  it('judges a point annotation from its time, and a window that is not over on what there is so far', async () => {
    const point = await service.annotations.create({ datasets: ['doubled'], type: 'deploy', time: new Date(END_MS).toISOString() });
    const early = await impactOf(point, { nowMs: END_MS + 10 * 60_000 });
    expect(early.after).toEqual({ start: '2024-05-01T12:05:00.000Z', end: '2024-05-01T12:15:00.000Z', complete: false });
    expect(early.notes).toEqual(['The window after the change is not over: it covers 10m of 30m so far.']);
    expect(signal(early, 'error rate').after.events).toBe(1000);
    const tooEarly = await impactOf(point, { nowMs: END_MS });
    expect(tooEarly.verdict).toBe('not enough data');
    expect(tooEarly.notes[0]).toMatch(/^The window after the change starts at 2024-05-01T12:05:00.000Z/);
  });

  it('waits for an open span to end', async () => {
    const open = await service.annotations.create({ datasets: ['doubled'], type: 'monitor', time: new Date(START_MS).toISOString() });
    const result = await impactOf(open);
    expect(result).toMatchObject({ verdict: 'not enough data', notes: ['The span has not ended yet: its impact is measured after its end.'], signals: [] });
  });

  it('refuses a signal that is not one aggregation before sending anything', async () => {
    await expect(impactOf(deploys.doubled as Annotation, { signals: ['count() by route'] })).rejects.toThrow(
      'Invalid signal 1 "count() by route": "by" outside parentheses. Expected one APL aggregation',
    );
  });

  it('passes the service\'s own error on for an aggregation it rejects', async () => {
    await expect(impactOf(deploys.doubled as Annotation, { signals: ['avg(no_such_field)'] })).rejects.toThrow(/no_such_field/);
  });
});
