/**
 * A deterministic generator of HTTP access-log events, shared by the query benchmark and the
 * engine's tests (golden tests compute expected results from these same rows independently).
 *
 * The same seed and options always give the same events, on any machine and Node version: the
 * only randomness is a seeded 32-bit generator and all arithmetic is on integers or on values
 * that print exactly. The rows are shaped like real access logs, with what a query engine meets
 * in practice: a nested object (`geo`, flattened to `geo.city` on ingest), a boolean, a field
 * that is sometimes an integer and sometimes a float (`req_duration_ms`), fields that are
 * sometimes missing (`user_id`, `referrer`), an array (`tags`), high-cardinality strings
 * (`trace_id`) and free text (`message`).
 */

// The generator of src/common/seeded-random.ts, from the build that npm ci makes.
import { seededRandom } from '../../build/src/common/seeded-random.js';

export const HTTP_LOGS_DEFAULTS = Object.freeze({
  seed: 1,
  count: 1000,
  /** First event time, epoch milliseconds: 2024-01-01T00:00:00Z. */
  startMs: 1_704_067_200_000,
  /** Events are spread evenly over this span, each with up to a second of jitter. */
  spanMs: 86_400_000,
});

const METHODS = weighted([
  ['GET', 70],
  ['POST', 14],
  ['PUT', 6],
  ['DELETE', 4],
  ['PATCH', 4],
  ['HEAD', 2],
]);

const STATUSES = weighted([
  ['200', 720],
  ['201', 60],
  ['204', 40],
  ['301', 10],
  ['304', 50],
  ['400', 25],
  ['401', 15],
  ['403', 10],
  ['404', 40],
  ['429', 8],
  ['500', 12],
  ['502', 5],
  ['503', 5],
]);

const ROUTES = [
  '/api/v1/users/{id}',
  '/api/v1/users/{id}/orders',
  '/api/v1/orders/{id}',
  '/api/v1/orders',
  '/api/v1/products/{id}',
  '/api/v1/products',
  '/api/v1/search',
  '/api/v1/cart',
  '/api/v1/checkout',
  '/api/v1/payments/{id}',
  '/api/v2/inventory/{id}',
  '/api/v2/recommendations',
  '/auth/login',
  '/auth/logout',
  '/auth/token/refresh',
  '/static/js/app.{id}.js',
  '/static/css/site.{id}.css',
  '/images/{id}.webp',
  '/healthz',
  '/metrics',
];

const DATACENTERS = weighted([
  ['us-east-1', 40],
  ['us-west-2', 20],
  ['eu-central-1', 25],
  ['ap-southeast-1', 15],
]);

const CITIES = weighted([
  [['New York', 'United States'], 14],
  [['San Francisco', 'United States'], 9],
  [['Chicago', 'United States'], 6],
  [['London', 'United Kingdom'], 10],
  [['Berlin', 'Germany'], 8],
  [['Frankfurt am Main', 'Germany'], 4],
  [['Paris', 'France'], 7],
  [['Amsterdam', 'Netherlands'], 5],
  [['São Paulo', 'Brazil'], 6],
  [['Tokyo', 'Japan'], 8],
  [['Singapore', 'Singapore'], 5],
  [['Sydney', 'Australia'], 4],
  [['Bengaluru', 'India'], 6],
  [['Lagos', 'Nigeria'], 3],
  [['Zürich', 'Switzerland'], 3],
]);

const CONTENT_TYPES = weighted([
  ['application/json', 60],
  ['text/html; charset=utf-8', 15],
  ['application/javascript', 8],
  ['text/css', 5],
  ['image/webp', 10],
  ['text/plain', 2],
]);

const USER_AGENTS = weighted([
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36', 30],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 15],
  ['Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 8],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148', 17],
  ['okhttp/4.12.0', 10],
  ['curl/8.8.0', 5],
  ['Go-http-client/2.0', 10],
  ['kube-probe/1.30', 5],
]);

const TAGS = ['canary', 'beta', 'internal', 'retry', 'bot'];

function weighted(entries) {
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  const values = [];
  const bounds = [];
  let running = 0;
  for (const [value, weight] of entries) {
    running += weight;
    values.push(value);
    bounds.push(running / total);
  }
  return { values, bounds };
}

function pick(table, random) {
  const r = random();
  const { values, bounds } = table;
  for (let i = 0; i < bounds.length; i++) {
    if (r < bounds[i]) return values[i];
  }
  return values[values.length - 1];
}

function hex(random, length) {
  let text = '';
  while (text.length < length) text += Math.floor(random() * 4_294_967_296).toString(16).padStart(8, '0');
  return text.slice(0, length);
}

/**
 * Yields `count` events. Options: `seed`, `count`, `startMs`, `spanMs` (see HTTP_LOGS_DEFAULTS).
 * `_time` is an RFC 3339 string with millisecond precision, in non-decreasing order apart from
 * the jitter.
 */
export function* httpLogs(options = {}) {
  const { seed, count, startMs, spanMs } = { ...HTTP_LOGS_DEFAULTS, ...options };
  const random = seededRandom(seed);
  for (let i = 0; i < count; i++) {
    const timeMs = startMs + Math.floor((i * spanMs) / count) + Math.floor(random() * 1000);
    const method = pick(METHODS, random);
    const status = pick(STATUSES, random);
    const route = ROUTES[Math.floor(random() * ROUTES.length)];
    const uri = route.replace('{id}', String(Math.floor(random() * 5000)));
    const [city, country] = pick(CITIES, random);
    // Log-normal-ish latency in milliseconds with three decimals; about one in a thousand is a
    // whole number and so arrives as a JSON integer, as real latency fields do.
    const base = 2 + 40 * (-Math.log(1 - random()));
    const slow = status >= '500' ? 400 * random() : 0;
    const req_duration_ms = Math.round((base + slow) * 1000) / 1000;
    const event = {
      _time: new Date(timeMs).toISOString(),
      method,
      uri,
      status,
      req_duration_ms,
      resp_body_size_bytes: method === 'HEAD' || status === '204' || status === '304' ? 0 : Math.floor(200 + random() * 48_000),
      resp_header_size_bytes: 180 + Math.floor(random() * 200),
      server_datacenter: pick(DATACENTERS, random),
      content_type: pick(CONTENT_TYPES, random),
      is_tls: random() < 0.93,
      geo: { city, country },
      trace_id: hex(random, 16),
      user_agent: pick(USER_AGENTS, random),
      message: `${method} ${uri} answered ${status} in ${req_duration_ms} ms`,
    };
    if (random() < 0.8) event.user_id = `u_${Math.floor(random() * 20_000)}`;
    if (random() < 0.3) event.referrer = `https://${['www.google.com', 'news.ycombinator.com', 'github.com', 't.co'][Math.floor(random() * 4)]}/`;
    if (random() < 0.05) event.tags = TAGS.filter(() => random() < 0.4);
    yield event;
  }
}

/** The events as NDJSON lines (each ending in "\n"), in batches of `batchSize` events. */
export function* httpLogsNdjsonBatches(options = {}, batchSize = 10_000) {
  let lines = [];
  for (const event of httpLogs(options)) {
    lines.push(JSON.stringify(event));
    if (lines.length === batchSize) {
      yield `${lines.join('\n')}\n`;
      lines = [];
    }
  }
  if (lines.length > 0) yield `${lines.join('\n')}\n`;
}
