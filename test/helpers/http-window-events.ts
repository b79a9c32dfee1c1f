import { seededRandom } from '../../src/common/seeded-random.js';

export interface WindowTraffic {
  startMs: number;
  endMs: number;
  /** Events spread evenly over the window. */
  count: number;
  /** Exactly this share of them answer 500 (every k-th event). */
  errorShare: number;
  /** Durations are this times a seeded factor from 0.5 to 3.5. */
  latencyMs: number;
  seed?: number;
}

/**
 * HTTP-log events for one window of an impact test, the same on every run: a known number of
 * server errors and a known latency scale, so that a test knows which verdict is right.
 */
export function httpWindowEvents(traffic: WindowTraffic): Array<Record<string, unknown>> {
  const random = seededRandom(traffic.seed ?? 7);
  const step = (traffic.endMs - traffic.startMs) / traffic.count;
  const errorEvery = traffic.errorShare > 0 ? Math.round(1 / traffic.errorShare) : Number.POSITIVE_INFINITY;
  return Array.from({ length: traffic.count }, (_, index) => ({
    _time: new Date(Math.floor(traffic.startMs + index * step)).toISOString(),
    route: index % 3 === 0 ? '/checkout' : '/cart',
    status: (index + 1) % errorEvery === 0 ? 500 : 200,
    duration_ms: Math.round(traffic.latencyMs * (0.5 + random() * random() * 3)),
    level: (index + 1) % errorEvery === 0 ? 'error' : 'info',
  }));
}
