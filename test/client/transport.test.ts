import { gzipSync, gunzipSync } from 'node:zlib';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/common/errors.js';
import { createTransport } from '../../src/client/index.js';

/** Records one request and answers it with 200 `{"ok": true}`. */
async function recordingServer(): Promise<{ url: string; received: Promise<{ req: IncomingMessage; body: Buffer }>; close(): Promise<void> }> {
  let deliver: (value: { req: IncomingMessage; body: Buffer }) => void = () => undefined;
  const received = new Promise<{ req: IncomingMessage; body: Buffer }>((resolve) => (deliver = resolve));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliver({ req, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the client transport', () => {
  it('sends encoded bytes as they are, with their content type and encoding, below the service root', async () => {
    const server = await recordingServer();
    const transport = createTransport({ url: server.url, token: 'xaat-transport-test-token', userAgent: 'timemark-test' });
    const ndjson = gzipSync('{"a":1}\n{"a":2}\n');
    await expect(
      transport.send({ method: 'POST', path: '/v1/datasets/d/ingest', body: { bytes: ndjson, contentType: 'application/x-ndjson', contentEncoding: 'gzip' }, idempotent: false }),
    ).resolves.toEqual({ ok: true });
    const { req, body } = await server.received;
    expect(req.url).toBe('/prefix/v1/datasets/d/ingest');
    expect(req.headers).toMatchObject({ 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip', authorization: 'Bearer xaat-transport-test-token', 'user-agent': 'timemark-test' });
    expect(gunzipSync(body).toString()).toBe('{"a":1}\n{"a":2}\n');
    await transport.close();
    await server.close();
  });

  it('refuses a configuration it cannot use with a ConfigError that hides the URL\'s password', () => {
    expect(() => createTransport({ url: 'ftp://user:hunter2@example.com', token: 'xaat-x' })).toThrow(ConfigError);
    expect(() => createTransport({ url: 'ftp://user:hunter2@example.com', token: 'xaat-x' })).toThrow('Invalid service URL "ftp://example.com". Expected an http:// or https:// address such as https://api.axiom.co.');
    expect(() => createTransport({ url: 'http://127.0.0.1:1', token: '' })).toThrow(/A token is required/);
  });
});
