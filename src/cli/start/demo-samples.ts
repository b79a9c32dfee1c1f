/**
 * The sample files `timemark start` writes for its "Try it" commands, dated from the moment it
 * starts so that everything they send lands in the dashboard's default range, the last hour:
 *
 *   events.ndjson                   57 minutes of HTTP logs of a checkout service, ending now
 *   github-deployment.json          a GitHub deployment that started 20 minutes ago…
 *   github-deployment-success.json  …and its success status 8 minutes later
 *
 * The rollout shows in the events: more requests (retries) and more errors while it runs. The
 * deliveries are the shipped templates (webhook-server/samples/) with their times and deployment
 * id replaced; a new id per start makes each start's rollout its own span.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../common/package-root.js';
import { seededRandom } from '../../common/seeded-random.js';

export interface DemoSamples {
  readonly events: string;
  readonly deployment: string;
  readonly deploymentSuccess: string;
  /** How many events `events` holds. */
  readonly eventCount: number;
}

const MINUTE = 60_000;
/** The events cover this long before the start; the dashboard's default range is the last hour. */
const HISTORY_MINUTES = 57;
const ROLLOUT = { startsMinutesAgo: 20, minutes: 8 };
const TEMPLATES = 'webhook-server/samples';

export function writeDemoSamples(dir: string, nowMs: number): DemoSamples {
  mkdirSync(dir, { recursive: true });
  const rolloutStart = nowMs - ROLLOUT.startsMinutesAgo * MINUTE;
  const rolloutEnd = rolloutStart + ROLLOUT.minutes * MINUTE;
  const events = [...demoEvents(nowMs, rolloutStart, rolloutEnd)];
  const paths = {
    events: join(dir, 'events.ndjson'),
    deployment: join(dir, 'github-deployment.json'),
    deploymentSuccess: join(dir, 'github-deployment-success.json'),
  };
  writeFileSync(paths.events, events.map((event) => JSON.stringify(event)).join('\n') + '\n');
  const id = Math.floor(nowMs / 1000);
  const started = new Date(rolloutStart).toISOString();
  const finished = new Date(rolloutEnd).toISOString();
  writeFileSync(
    paths.deployment,
    delivery('github-deployment.json', (body) => {
      body.deployment = { ...body.deployment, id, created_at: started, updated_at: started };
    }),
  );
  writeFileSync(
    paths.deploymentSuccess,
    delivery('github-deployment-success.json', (body) => {
      body.deployment = { ...body.deployment, id, created_at: started, updated_at: started };
      body.deployment_status = { ...body.deployment_status, id: id + 1, created_at: finished, updated_at: finished };
    }),
  );
  return { ...paths, eventCount: events.length };
}

type Delivery = Record<string, Record<string, unknown>>;

function delivery(template: string, edit: (body: Delivery) => void): string {
  const body = JSON.parse(readFileSync(join(packageRoot(), TEMPLATES, template), 'utf8')) as Delivery;
  edit(body);
  return `${JSON.stringify(body, null, 2)}\n`;
}

const ROUTES = [
  { method: 'GET', route: '/api/cart', share: 0.4, ms: 35, ok: 200 },
  { method: 'GET', route: '/api/products', share: 0.3, ms: 60, ok: 200 },
  { method: 'POST', route: '/api/checkout', share: 0.15, ms: 180, ok: 201 },
  { method: 'GET', route: '/healthz', share: 0.15, ms: 2, ok: 200 },
] as const;

/** The same shape at every start: a fixed seed, times relative to `endMs`, oldest first. */
function* demoEvents(endMs: number, rolloutStart: number, rolloutEnd: number): Generator<Record<string, unknown>> {
  const random = seededRandom(20_240_101);
  for (let minute = HISTORY_MINUTES; minute > 0; minute--) {
    const minuteStart = endMs - minute * MINUTE;
    const rollingOut = minuteStart >= rolloutStart && minuteStart < rolloutEnd;
    // About 25 requests a minute with a slow swell, half as many again while retries pile up.
    const perMinute = Math.round(25 * (1 + 0.3 * Math.sin(minute / 7)) * (rollingOut ? 1.5 : 1) * (0.85 + 0.3 * random()));
    const offsets = Array.from({ length: perMinute }, () => Math.floor(random() * MINUTE)).sort((a, b) => a - b);
    for (const offset of offsets) {
      let pick = random();
      const route = ROUTES.find((candidate) => (pick -= candidate.share) < 0) ?? ROUTES[0];
      const failed = random() < (rollingOut ? 0.12 : 0.01);
      yield {
        _time: new Date(minuteStart + offset).toISOString(),
        service: 'checkout',
        method: route.method,
        route: route.route,
        status: failed ? (random() < 0.5 ? 502 : 503) : route.ok,
        duration_ms: Math.round(route.ms * (rollingOut ? 2 : 1) * (0.5 + random() * random() * 3)),
      };
    }
  }
}
