import { describe, expect, it } from 'vitest';
import { readFacts } from '../../../src/common/annotation-facts.js';
import {
  autoClose,
  mergeEvent,
  newEpisode,
  placeEvent,
  renderAnnotation,
  type EpisodeState,
} from '../../../webhook-server/src/correlation/episode.js';
import type { MappedTarget } from '../../../webhook-server/src/mapping/mapping.js';
import type { BridgeEvent } from '../../../webhook-server/src/sources/types.js';

const T0 = Date.parse('2024-06-28T14:55:57Z');
const target: MappedTarget = { datasets: ['prod'], type: 'deploy', title: 'Deploy shop' };

function event(phase: 'start' | 'finish', occurredAt: number, extra: Partial<BridgeEvent> = {}): BridgeEvent {
  return {
    source: 'github',
    dedupeKey: `${phase}-${occurredAt}`,
    correlationKey: 'github:acme/shop:deployment:1',
    phase,
    occurredAt,
    category: 'deploy',
    title: 'Deploy shop',
    context: {},
    ...(phase === 'finish' ? { outcome: 'success' as const } : {}),
    ...extra,
  };
}

/** Folds events in the given order the way the store does. */
function fold(events: BridgeEvent[]): EpisodeState[] {
  const episodes: EpisodeState[] = [];
  for (const item of events) {
    const place = placeEvent(episodes, item);
    if (place === 'new') episodes.push(newEpisode(item, target));
    else episodes[place] = mergeEvent(episodes[place]!, item, target);
  }
  return episodes;
}

describe('episode state', () => {
  it('opens a span on start and closes it with the outcome on finish', () => {
    const [episode] = fold([event('start', T0), event('finish', T0 + 60_000, { outcome: 'failure' })]);
    expect(episode).toMatchObject({ startedAt: T0, endedAt: T0 + 60_000, outcome: 'failure' });
  });

  it('gives the same span whatever order start and finish arrive in', () => {
    const inOrder = fold([event('start', T0), event('finish', T0 + 60_000)]);
    const reversed = fold([event('finish', T0 + 60_000), event('start', T0)]);
    expect(reversed).toHaveLength(1);
    expect(renderAnnotation(reversed[0]!, 'm')).toEqual(renderAnnotation(inOrder[0]!, 'm'));
  });

  it('never lets a late start clear the end, but lets it move the start earlier', () => {
    const [episode] = fold([event('start', T0 + 5_000), event('finish', T0 + 60_000), event('start', T0)]);
    expect(episode).toMatchObject({ startedAt: T0, endedAt: T0 + 60_000, outcome: 'success' });
  });

  it('creates a finish without a start already closed, from the start the finish reports', () => {
    const [withHint] = fold([event('finish', T0 + 60_000, { startedAt: T0 })]);
    expect(renderAnnotation(withHint!, 'm')).toMatchObject({ time: new Date(T0).toISOString(), endTime: new Date(T0 + 60_000).toISOString() });
    const [bare] = fold([event('finish', T0 + 60_000)]);
    expect(renderAnnotation(bare!, 'm')).toMatchObject({ time: new Date(T0 + 60_000).toISOString(), endTime: new Date(T0 + 60_000).toISOString() });
  });

  it('keeps the latest terminal state by the sender clock when finishes disagree', () => {
    const [episode] = fold([event('finish', T0 + 90_000, { outcome: 'success' }), event('finish', T0 + 30_000, { outcome: 'failure' })]);
    expect(episode).toMatchObject({ endedAt: T0 + 90_000, outcome: 'success' });
  });

  it('starts a new episode when a recurring key opens again after its last episode ended', () => {
    const episodes = fold([event('start', T0), event('finish', T0 + 60_000), event('start', T0 + 120_000), event('finish', T0 + 180_000)]);
    expect(episodes.map((e) => [e.startedAt, e.endedAt])).toEqual([
      [T0, T0 + 60_000],
      [T0 + 120_000, T0 + 180_000],
    ]);
  });

  it('tells the episodes of a monitor apart by time whatever order their deliveries arrive in', () => {
    const monitor = (phase: 'start' | 'finish', at: number) => event(phase, T0 + at * 60_000, { source: 'monitor', correlationKey: 'monitor:m1', category: 'incident' });
    const spans = (episodes: EpisodeState[]) =>
      episodes.map((e) => [e.startedAt, e.endedAt]).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
    const expected = [
      [T0 + 60_000, T0 + 120_000],
      [T0 + 180_000, T0 + 240_000],
    ];
    const deliveries = [monitor('start', 1), monitor('finish', 2), monitor('start', 3), monitor('finish', 4)];
    for (const order of [
      [0, 1, 2, 3],
      [3, 2, 1, 0],
      [1, 3, 0, 2],
      [2, 3, 0, 1],
      [1, 0, 3, 2],
      [0, 2, 1, 3],
    ]) {
      expect([order, spans(fold(order.map((index) => deliveries[index]!)))]).toEqual([order, expected]);
    }
  });

  it('closes a span open longer than the maximum and says so, yet a real finish still wins', () => {
    const closed = autoClose(fold([event('start', T0)])[0]!, 3_600_000);
    const rendered = renderAnnotation(closed, '[timemark:x]');
    expect(rendered.endTime).toBe(new Date(T0 + 3_600_000).toISOString());
    expect(rendered.description).toContain('no finish event within 1h');
    expect(readFacts(rendered.description).outcome).toBe('timed-out');
    expect(placeEvent([closed], event('finish', T0 + 7_200_000))).toBe(0);
    const finished = mergeEvent(closed, event('finish', T0 + 7_200_000), target);
    expect(renderAnnotation(finished, 'm')).toMatchObject({ endTime: new Date(T0 + 7_200_000).toISOString() });
    expect(renderAnnotation(finished, 'm').description).not.toContain('no finish event');
  });

  it('takes each link and text from the most recent event that has one', () => {
    const [episode] = fold([
      event('finish', T0 + 60_000, { url: 'https://ci.example/log', description: 'Finished.' }),
      event('start', T0, { url: 'https://github.com/acme/shop', description: 'Release v2' }),
    ]);
    expect(renderAnnotation(episode!, '[timemark:x]')).toMatchObject({ url: 'https://ci.example/log', description: 'Finished.\n[timemark outcome=success]\n[timemark:x]' });
  });

  it('writes the commit time beside the outcome, from whichever event carried it', () => {
    const committedAt = Date.parse('2024-06-28T14:41:09Z');
    const [episode] = fold([event('start', T0, { committedAt }), event('finish', T0 + 60_000, { outcome: 'failure' })]);
    expect(renderAnnotation(episode!, '[timemark:x]').description).toBe('[timemark outcome=failure committed=2024-06-28T14:41:09.000Z]\n[timemark:x]');
  });

  it('keeps the marker inside the description limit however long the text is', () => {
    const [episode] = fold([event('start', T0, { description: 'x'.repeat(2000) })]);
    const rendered = renderAnnotation(episode!, '[timemark:0123456789abcdef0123]');
    expect(rendered.description.length).toBeLessThanOrEqual(512);
    expect(rendered.description.endsWith('[timemark:0123456789abcdef0123]')).toBe(true);
  });
});
