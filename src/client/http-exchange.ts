/**
 * One HTTP request and its whole reply, over Node's own client with keep-alive agents. Node's
 * client costs nothing to load — undici took about 100 ms on every start — so a command line that
 * makes one request starts about as fast as node itself (bench/cli). The transport classifies
 * what goes wrong; this module only reports it faithfully: whether the connection was ever made,
 * and whether the head of the reply arrived before the failure.
 */
import * as http from 'node:http';
import type * as https from 'node:https';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface ExchangeInit {
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | string | undefined;
  timeoutMs: number;
  /** Called when the status line arrives, before the body is read. */
  onStatus(status: number): void;
}

export interface HttpExchanger {
  exchange(url: URL, init: ExchangeInit): Promise<Reply>;
  close(): void;
}

/** The connection was never made within the time limit: nothing was sent. */
export const CONNECT_TIMEOUT_CODE = 'CONNECT_TIMEOUT';

export function createHttpExchanger(options: { maxSockets: number; keepAliveMs: number }): HttpExchanger {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, timeout: options.keepAliveMs };
  const httpAgent = new http.Agent(agentOptions);
  // node:https loads TLS, so it is loaded only for an https:// service.
  let httpsModule: Promise<{ agent: https.Agent; request: typeof https.request }> | undefined;
  const secure = () =>
    (httpsModule ??= import('node:https').then((module) => ({ agent: new module.Agent(agentOptions), request: module.request })));

  async function exchange(url: URL, init: ExchangeInit): Promise<Reply> {
    const client = url.protocol === 'https:' ? await secure() : { agent: httpAgent, request: http.request };
    const length = init.body === undefined ? 0 : typeof init.body === 'string' ? Buffer.byteLength(init.body) : init.body.byteLength;
    return new Promise<Reply>((resolve, reject) => {
      let connected = false;
      const signal = AbortSignal.timeout(init.timeoutMs);
      const req = client.request(url, {
        method: init.method,
        headers: { ...init.headers, 'content-length': String(length) },
        agent: client.agent,
        signal,
      });
      req.on('socket', (socket) => {
        // A kept-alive socket is connected already; a new one says so when it is.
        if (!socket.connecting) connected = true;
        else socket.once('connect', () => (connected = true)).once('secureConnect', () => (connected = true));
      });
      req.on('error', (error) => {
        if (signal.aborted && !connected) {
          reject(Object.assign(new Error(`could not connect within ${init.timeoutMs} ms`), { code: CONNECT_TIMEOUT_CODE, cause: error }));
        } else {
          reject(error);
        }
      });
      req.on('response', (res) => {
        init.onStatus(res.statusCode ?? 0);
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        // A reply cut off after its head ends without an 'end'; one our own time limit cut keeps its AbortError.
        const cutOff = (cause?: unknown): void => {
          if (res.complete) return;
          reject(signal.aborted ? (cause ?? signal.reason) : Object.assign(new Error('the connection closed before the reply was complete'), { code: 'ECONNRESET', cause }));
        };
        res.on('error', cutOff);
        res.on('close', cutOff);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.end(init.body);
    });
  }

  return {
    exchange,
    close() {
      httpAgent.destroy();
      void httpsModule?.then(({ agent }) => agent.destroy());
    },
  };
}
