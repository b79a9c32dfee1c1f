import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createAnnotationsClient, type AnnotationsClient } from '../../src/client/index.js';
import { startLocalService, TEST_ORG, TEST_PERSONAL_TOKEN, type LocalService } from '../helpers/local-service.js';

describe('against the local service', () => {
  let service: LocalService;
  let client: AnnotationsClient;

  beforeAll(async () => {
    service = await startLocalService();
    client = createAnnotationsClient({ url: service.url, token: service.token });
  });
  afterAll(async () => {
    await client.close();
    await service.close();
  });

  it('creates, lists, gets, updates and deletes', async () => {
    const created = await client.create({ datasets: ['client'], type: 'deploy', time: '2024-01-01T00:00:00Z', title: 'v1' });
    expect(created).toMatchObject({ id: expect.stringMatching(/^ann_/), datasets: ['client'], title: 'v1' });
    expect(await client.list({ datasets: ['client'], start: '2023-12-31T00:00:00Z', end: '2024-01-02T00:00:00Z' })).toEqual([created]);
    expect(await client.get(created.id)).toEqual(created);
    const closed = await client.update(created.id, { endTime: '2024-01-01T00:05:00Z' });
    expect(closed).toEqual({ ...created, endTime: '2024-01-01T00:05:00.000Z' });
    await expect(client.delete(created.id)).resolves.toBeUndefined();
    expect(await client.list({ datasets: ['client'] })).toEqual([]);
  });

  it('throws one ApiError with the status, the service message and the trace id', async () => {
    const error = await client.get('ann_missing').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'http_404', serviceMessage: 'Annotation "ann_missing" not found.', traceId: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect((error as ApiError).message).toMatch(/^GET \/v2\/annotations\/ann_missing answered 404: Annotation "ann_missing" not found. \[trace id [0-9a-f]{16}\]$/);
  });

  it('does not retry a 400 and keeps the token out of the message', async () => {
    const error = (await client.create({ datasets: ['client'], type: 'Not Valid' }).catch((caught: unknown) => caught)) as ApiError;
    expect(error.status).toBe(400);
    expect(error.attempts).toBe(1);
    expect(error.message).not.toContain(service.token);
  });

  it('sends the org id with a personal token', async () => {
    const personal = createAnnotationsClient({ url: service.url, token: TEST_PERSONAL_TOKEN, orgId: TEST_ORG });
    await expect(personal.list()).resolves.toBeInstanceOf(Array);
    await personal.close();
  });

  it('rejects a URL that is not http(s) before any request', () => {
    expect(() => createAnnotationsClient({ url: 'api.axiom.co', token: 'xaat-x' })).toThrow(/Invalid service URL "api.axiom.co". Expected an http:\/\/ or https:\/\//);
  });
});

/**
 * The hosted service's failure modes (rate limits, 5xx, hangs) cannot be provoked on the local
 * one, so these tests script them with a small HTTP server that answers from a queue.
 */
describe('retries', () => {
  /** 'hang' never answers; 'drop' closes the connection unanswered; 'cut' sends the head and half the body, then closes. */
  type Reply = { status: number; headers?: Record<string, string>; body?: unknown } | 'hang' | 'drop' | 'cut';
  let server: Server;
  let url: string;
  let replies: Reply[] = [];
  let requests: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      req.resume();
      const reply = replies.shift() ?? { status: 200, body: [] };
      if (reply === 'hang') return;
      if (reply === 'drop') {
        req.socket.destroy();
        return;
      }
      if (reply === 'cut') {
        const text = JSON.stringify(annotation);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
        res.write(text.slice(0, 10), () => res.destroy());
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    replies = [];
    requests = [];
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const annotation = { id: 'ann_x', datasets: ['d'], type: 'deploy', time: '2024-01-01T00:00:00.000Z' };
  const make = (options: Partial<Parameters<typeof createAnnotationsClient>[0]> = {}) =>
    createAnnotationsClient({ url, token: 'xaat-secret-token-value', baseDelayMs: 1, retries: 3, ...options });

  it('retries a rate-limited create after the Retry-After delay and succeeds', async () => {
    replies = [{ status: 429, headers: { 'retry-after': '0' }, body: { code: 429, message: 'slow down' } }, { status: 201, body: annotation }];
    const retries: string[] = [];
    const client = make({ onRetry: (event) => retries.push(event.reason) });
    await expect(client.create({ datasets: ['d'], type: 'deploy' })).resolves.toEqual(annotation);
    expect(requests.map((request) => request.method)).toEqual(['POST', 'POST']);
    expect(retries).toEqual([expect.stringContaining('answered 429: slow down')]);
    await client.close();
  });

  it('honours X-RateLimit-Reset, and gives up at once when the reset is further away than maxDelayMs', async () => {
    replies = [{ status: 429, headers: { 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000)) } }, { status: 200, body: [] }];
    const client = make();
    await expect(client.list()).resolves.toEqual([]);
    expect(requests).toHaveLength(2);

    requests = [];
    replies = [{ status: 429, headers: { 'retry-after': '3600' }, body: { code: 429, message: 'hourly limit' } }];
    const error = (await client.list().catch((caught: unknown) => caught)) as ApiError;
    expect(error.status).toBe(429);
    expect(requests).toHaveLength(1);
    await client.close();
  });

  it('retries reads and updates on 5xx with backoff until they succeed', async () => {
    replies = [{ status: 502 }, { status: 503 }, { status: 200, body: annotation }];
    const client = make();
    await expect(client.update('ann_x', { title: 'x' })).resolves.toEqual(annotation);
    expect(requests.map((request) => request.method)).toEqual(['PUT', 'PUT', 'PUT']);
    await client.close();
  });

  it('does not retry a create after a 5xx, which may have stored it, unless asked to', async () => {
    replies = [{ status: 500, body: { code: 500, message: 'oops' } }, { status: 201, body: annotation }];
    const client = make();
    const error = (await client.create({ datasets: ['d'], type: 'deploy' }).catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(500);
    expect(requests).toHaveLength(1);

    requests = [];
    replies = [{ status: 500 }, { status: 201, body: annotation }];
    await expect(client.create({ datasets: ['d'], type: 'deploy' }, { retryAmbiguousFailures: true })).resolves.toEqual(annotation);
    expect(requests).toHaveLength(2);
    await client.close();
  });

  it('does not retry a create whose connection dropped after sending', async () => {
    replies = ['drop', { status: 201, body: annotation }];
    const client = make();
    const error = (await client.create({ datasets: ['d'], type: 'deploy' }).catch((caught: unknown) => caught)) as ApiError;
    expect(error.status).toBeUndefined();
    expect(error.code).toBe('network_error');
    expect(requests).toHaveLength(1);
    await client.close();
  });

  it('marks a create that may have reached the service as ambiguous, and a read that failed as not', async () => {
    replies = ['drop', 'drop', 'drop'];
    const client = make({ retries: 1 });
    const create = (await client.create({ datasets: ['d'], type: 'deploy' }).catch((caught: unknown) => caught)) as ApiError;
    expect([create.ambiguous, create.attempts]).toEqual([true, 1]);
    const read = (await client.get('ann_x').catch((caught: unknown) => caught)) as ApiError;
    expect([read.ambiguous, read.attempts]).toEqual([false, 2]);
    await client.close();
  });

  it('retries a read or an update whose reply is cut off mid-body, as for any other dropped connection', async () => {
    replies = ['cut', { status: 200, body: annotation }, 'cut', { status: 200, body: annotation }];
    const client = make();
    await expect(client.get('ann_x')).resolves.toEqual(annotation);
    await expect(client.update('ann_x', { title: 'x' })).resolves.toEqual(annotation);
    expect(requests.map((request) => request.method)).toEqual(['GET', 'GET', 'PUT', 'PUT']);
    await client.close();
  });

  it('ends a read cut off on every attempt with one ApiError that names the method, the path and the status', async () => {
    replies = ['cut', 'cut'];
    const client = make({ retries: 1 });
    const error = (await client.get('ann_x').catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'network_error', status: undefined, method: 'GET', path: '/v2/annotations/ann_x', attempts: 2 });
    expect(error.message).toMatch(/^GET \/v2\/annotations\/ann_x failed: the reply \(status 200\) was cut off: .+ \(after 2 attempts\)$/);
    await client.close();
  });

  it('does not retry a create whose reply was cut off, since the annotation may exist', async () => {
    replies = ['cut', { status: 201, body: annotation }];
    const client = make();
    const error = (await client.create({ datasets: ['d'], type: 'deploy' }).catch((caught: unknown) => caught)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toMatch(/^POST \/v2\/annotations failed: the reply \(status 200\) was cut off/);
    expect(error.ambiguous).toBe(true);
    expect(requests).toHaveLength(1);
    await client.close();
  });

  it('times out each attempt, retries reads, and says how long it waited', async () => {
    replies = ['hang', 'hang'];
    const client = make({ timeoutMs: 150, retries: 1 });
    const error = (await client.get('ann_x').catch((caught: unknown) => caught)) as ApiError;
    expect(error.message).toBe('GET /v2/annotations/ann_x failed: no answer within 150 ms (after 2 attempts)');
    expect(requests).toHaveLength(2);
    await client.close();
  });

  it('retries a create when the connection is refused, since nothing was sent', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const attempts: number[] = [];
    const client = createAnnotationsClient({ url: `http://127.0.0.1:${port}`, token: 'xaat-x', baseDelayMs: 1, retries: 2, onRetry: (event) => attempts.push(event.attempt) });
    const error = (await client.create({ datasets: ['d'], type: 'deploy' }).catch((caught: unknown) => caught)) as ApiError;
    expect(error.attempts).toBe(3);
    expect(attempts).toEqual([1, 2]);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect([error.networkCode, error.ambiguous]).toEqual(['ECONNREFUSED', false]);
    await client.close();
  });

  it('sends the headers the hosted service expects and never puts the token in errors', async () => {
    replies = [{ status: 401, body: { code: 401, message: 'invalid token' } }];
    const client = make({ orgId: 'my-org' });
    const error = (await client.list({ datasets: ['a', 'b'], start: '2024-01-01T00:00:00Z' }).catch((caught: unknown) => caught)) as ApiError;
    expect(requests[0]?.url).toBe('/v2/annotations?datasets=a%2Cb&start=2024-01-01T00%3A00%3A00Z');
    expect(requests[0]?.headers).toMatchObject({ authorization: 'Bearer xaat-secret-token-value', accept: 'application/json', 'x-axiom-org-id': 'my-org' });
    expect(`${error.message} ${String(error.stack)}`).not.toContain('xaat-secret-token-value');
    await client.close();
  });
});
