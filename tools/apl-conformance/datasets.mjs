/**
 * Events shaped like the Playground datasets that the APL reference's examples query: the field
 * names and types the pages use, with values varied enough that filters and groupings find rows.
 * (`sample-http-logs` comes from bench/lib/http-logs.mjs.) Deterministic: a seeded generator.
 */

const DAY_MS = 86_400_000;

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Every dataset but sample-http-logs, by name; `otel-demo-traces` as one OTLP/JSON export request. */
export function sampleDatasets(nowMs) {
  const next = random(7);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const hex = (digits) => Array.from({ length: digits }, () => Math.floor(next() * 16).toString(16)).join('');
  const time = () => new Date(nowMs - Math.floor(next() * 7 * DAY_MS)).toISOString();
  const repos = ['axiomhq/axiom', 'kubernetes/kubernetes', 'vercel/next.js', 'grafana/grafana', 'axiomhq/docs'];
  const actors = ['alice', 'bob', 'dependabot[bot]', 'renovate-bot', 'carol'];
  const many = (count, make) => Array.from({ length: count }, (_, i) => make(i));

  return {
    'otel-demo-traces': otelTraces(nowMs, next, pick, hex),
    'otel-demo-genai': many(200, () => genaiEvent(next, pick, time)),
    'github-push-event': many(300, (i) => ({
      _time: time(),
      id: String(30_000_000_000 + i),
      push_id: 10_000_000 + i,
      repo: pick(repos),
      actor: pick(actors),
      ref: pick(['refs/heads/main', 'refs/heads/dev', 'refs/heads/feature/x']),
      size: Math.floor(next() * 20),
      distinct_size: Math.floor(next() * 10),
      // From i, not from the generator: the other fields keep their values.
      num_commits: 1 + (i % 3),
      size_large: (i % 5) * 100,
      commits: many(1 + Math.floor(next() * 3), () => ({ sha: hex(40), message: pick(['fix: typo', 'feat: add', 'chore: bump']), author: pick(actors) })),
      // From the index, not the generator: the other datasets keep their values.
      head: ((i * 2654435761) % 2 ** 32).toString(16).padStart(8, '0'),
    })),
    'github-issues-event': many(300, (i) => ({
      _time: time(),
      id: String(40_000_000_000 + i),
      repo: pick(repos),
      actor: pick(actors),
      action: pick(['opened', 'closed', 'reopened', 'labeled']),
      title: pick(['Crash on start', 'Docs typo', 'Add support for X', 'Flaky test']),
      number: 1 + Math.floor(next() * 5000),
      labels: [{ name: pick(['bug', 'docs', 'enhancement']), color: pick(['d73a4a', '0075ca', 'a2eeef']) }],
      milestone: { number: 1 + Math.floor(next() * 10), title: 'v1' },
      state: pick(['open', 'closed']),
      comments: Math.floor(next() * 30),
    })),
    'github-issue-comment-event': many(300, (i) => ({
      _time: time(),
      id: String(50_000_000_000 + i),
      repo: pick(repos),
      actor: pick(actors),
      action: 'created',
      body: pick(['LGTM', 'Can you add a test?', '/retest', 'Thanks!']),
      issue_number: 1 + Math.floor(next() * 5000),
    })),
    'github-pull-request-event': many(300, (i) => ({
      _time: time(),
      id: String(60_000_000_000 + i),
      repo: pick(repos),
      actor: pick(actors),
      action: pick(['opened', 'closed', 'synchronize']),
      merged: next() < 0.5,
      title: pick(['Fix crash', 'Bump deps', 'Add feature']),
      additions: Math.floor(next() * 500),
      deletions: Math.floor(next() * 200),
      commits: 1 + Math.floor(next() * 10),
    })),
    hn: many(300, (i) => ({
      _time: time(),
      id: 40_000_000 + i,
      by: pick(actors),
      type: pick(['story', 'comment']),
      title: pick(['Show HN: a batman clone', 'Superman and databases', 'Ask HN: APL?', '']),
      text: pick(['batman wins', 'superman flies', 'both batman and superman', 'neither']),
      score: Math.floor(next() * 500),
      url: pick(['https://example.com/a', 'https://example.org/b', '']),
    })),
  };
}

const SERVICES = ['frontend', 'cartservice', 'checkoutservice', 'productcatalogservice', 'currencyservice', 'frontend-proxy', 'recommendationservice'];
const SPAN_NAMES = ['GET /api/cart', 'POST /api/checkout', 'hipstershop.CartService/GetCart', 'oteldemo.CheckoutService/PlaceOrder', 'ingress', 'router frontend egress'];

function otelTraces(nowMs, next, pick, hex) {
  const text = (key, value) => ({ key, value: { stringValue: value } });
  const spans = new Map(SERVICES.map((service) => [service, []]));
  for (let i = 0; i < 1500; i++) {
    const startNs = BigInt(nowMs - Math.floor(next() * 7 * DAY_MS)) * 1_000_000n;
    const durationNs = BigInt(Math.floor(next() * 2e9));
    const service = pick(SERVICES);
    spans.get(service).push({
      traceId: hex(32),
      spanId: hex(16),
      parentSpanId: next() < 0.7 ? hex(16) : '',
      name: pick(SPAN_NAMES),
      kind: 1 + Math.floor(next() * 3),
      startTimeUnixNano: String(startNs),
      endTimeUnixNano: String(startNs + durationNs),
      attributes: [
        text('http.method', pick(['GET', 'POST'])),
        text('http.status_code', pick(['200', '200', '500'])),
        text('app.user_id', `u_${Math.floor(next() * 50)}`),
        // Custom attributes the reference reads from the attributes.custom map field; from i, not
        // from the generator, so the other fields keep their values.
        text('http.protocol', i % 2 === 0 ? 'HTTP/1.1' : 'HTTP/2'),
        ...(i % 5 === 0 ? [{ key: 'app.payment.amount', value: { doubleValue: (i % 97) + 0.99 } }] : []),
      ],
      status: { code: pick([0, 1, 2]) },
      events: next() < 0.2 ? [{ name: 'exception', timeUnixNano: String(startNs), attributes: [text('exception.message', 'boom')] }] : [],
    });
  }
  return {
    resourceSpans: [...spans].map(([service, list]) => ({
      resource: { attributes: [text('service.name', service), text('service.version', '1.2.3'), text('host.name', 'node-1'), text('k8s.node.name', `node-${service.length % 3}`)] },
      scopeSpans: [{ scope: { name: 'opentelemetry-demo' }, spans: list }],
    })),
  };
}

function genaiEvent(next, pick, time) {
  const model = pick(['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet']);
  const messages = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: pick(['What is APL?', 'Summarize my logs', 'Why did latency rise?']) },
    next() < 0.3
      ? { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'query_logs', arguments: '{"q":"errors"}' } }] }
      : { role: 'assistant', content: 'Here is an answer.' },
  ];
  return {
    _time: time(),
    attributes: {
      gen_ai: {
        input: { messages },
        request: { model },
        response: { model, finish_reasons: [pick(['stop', 'length'])] },
        usage: { input_tokens: Math.floor(next() * 2000), output_tokens: Math.floor(next() * 800) },
        operation: { name: 'chat' },
      },
    },
    'service.name': 'ai-gateway',
  };
}
