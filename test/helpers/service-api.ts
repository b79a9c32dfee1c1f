import type { LocalService } from './local-service.js';

export interface Reply<T = any> {
  status: number;
  contentType: string | null;
  body: T;
}

/** Plain HTTP calls to the real service, for the wire-level assertions the official client hides. */
export function serviceApi(service: Pick<LocalService, 'url' | 'token'>) {
  async function call<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${service.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, contentType: response.headers.get('content-type'), body: (text === '' ? undefined : JSON.parse(text)) as T };
  }
  return {
    call,
    /** Ingests events (a JSON array) and checks that every one was taken. */
    async ingest(dataset: string, events: Array<Record<string, unknown>>): Promise<void> {
      const reply = await call('POST', `/v1/datasets/${encodeURIComponent(dataset)}/ingest`, events);
      if (reply.status !== 200 || reply.body.ingested !== events.length) throw new Error(`Ingest failed: ${JSON.stringify(reply)}`);
    },
    annotations: async (dataset?: string) => (await call('GET', `/v2/annotations${dataset ? `?datasets=${encodeURIComponent(dataset)}` : ''}`)).body as Array<Record<string, any>>,
    run: async (monitorId: string) => call('POST', `/v2/monitors/${monitorId}/run`),
    /** Creates a custom webhook notifier and returns its id. */
    async notifier(url: string, headers: Record<string, string> = {}): Promise<string> {
      const reply = await call('POST', '/v2/notifiers', { name: `webhook ${url}`, properties: { customWebhook: { url, headers } } });
      if (reply.status !== 200) throw new Error(`Notifier not created: ${JSON.stringify(reply)}`);
      return reply.body.id as string;
    },
    /** Creates a monitor (a threshold monitor run every minute over 5 minutes, unless `body` says otherwise). */
    async monitor(body: Record<string, unknown>): Promise<Record<string, any>> {
      const reply = await call('POST', '/v2/monitors', { name: 'Checkout errors', type: 'Threshold', intervalMinutes: 1, rangeMinutes: 5, ...body });
      if (reply.status !== 200) throw new Error(`Monitor not created: ${JSON.stringify(reply)}`);
      return reply.body as Record<string, any>;
    },
  };
}

/** `count` HTTP-log events a few seconds old, so that they fall in any monitor window ending now. */
export function httpEvents(count: number, fields: Record<string, unknown> = {}): Array<Record<string, unknown>> {
  const now = Date.now();
  return Array.from({ length: count }, (_, index) => ({
    _time: new Date(now - 5_000 - index * 10).toISOString(),
    status: 500,
    service: 'checkout',
    latency_ms: 120 + index,
    ...fields,
  }));
}
