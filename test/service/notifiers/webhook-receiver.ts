import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /** Answers with these statuses, one per request, then 200 for the rest. */
  answerWith(statuses: number[], headers?: Record<string, string>): void;
  /** Records requests but leaves them unanswered (a receiver that hangs) until called with false. */
  hold(holding: boolean): void;
  /** Resolves once `count` requests have arrived (answered or not). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP listener on 127.0.0.1, port 0, that records what notifiers send it. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let script: number[] = [];
  let scriptHeaders: Record<string, string> = {};
  let waiters: Array<() => void> = [];
  let holding = false;
  let held: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = (): void => {
        const status = script.shift() ?? 200;
        res.writeHead(status, status === 200 ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', ...scriptHeaders });
        res.end(JSON.stringify({ status }));
      };
      if (holding) held.push(answer);
      else answer();
      for (const waiter of waiters) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answerWith(statuses, headers = {}) {
      script = [...statuses];
      scriptHeaders = headers;
    },
    hold(value) {
      holding = value;
      if (!value) {
        for (const answer of held) answer();
        held = [];
      }
    },
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (received.length >= count) {
            clearTimeout(timer);
            waiters = waiters.filter((waiter) => waiter !== check);
            resolve(received.slice(0, count));
          }
        };
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter !== check);
          reject(new Error(`Timed out waiting for ${count} webhook requests; got ${received.length}.`));
        }, timeoutMs);
        waiters.push(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
