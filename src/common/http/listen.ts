import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PortInUseError } from '../errors.js';

export interface ListenOptions {
  port: number;
  host: string;
  /** How the user sets the port, for the "already in use" message: `--port`, `--bridge-port`. */
  portOption?: string;
  /** How long an idle keep-alive connection stays open; above a load balancer's idle timeout when behind one. */
  keepAliveTimeoutMs?: number;
  /** After close(), how long requests in flight may take before their connections are cut. */
  drainMs?: number;
  /** Releases what the requests used (stores, workers, clients) once the last connection is gone. */
  afterClose?: () => void | Promise<void>;
}

export interface HttpListener {
  /** `http://host:port`; a wildcard address is shown as 127.0.0.1, where the process can be reached. */
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting connections, closes the idle keep-alive ones at once, lets requests in flight
   * finish — their replies carry `Connection: close`, so a client that keeps its connection busy
   * cannot hold the shutdown open — and cuts whatever is left after `drainMs` (an unref'd timer).
   * Then runs `afterClose`. Every call returns the same promise.
   */
  close(): Promise<void>;
}

const DEFAULT_DRAIN_MS = 10_000;

/** Listens with `handler` and returns the one graceful close both the service and the bridge use. */
export async function listenHttp(handler: RequestListener, options: ListenOptions): Promise<HttpListener> {
  let closing: Promise<void> | undefined;
  const server = createServer((req, res) => {
    if (closing) res.setHeader('Connection', 'close');
    handler(req, res);
  });
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  await listen(server, options);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${hostForUrl(options.host)}:${port}`,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), options.drainMs ?? DEFAULT_DRAIN_MS).unref();
      }).then(options.afterClose);
      return closing;
    },
  };
}

function listen(server: Server, options: ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(
              `Port ${options.port} on ${options.host} is already in use. Pass another ${options.portOption ?? '--port'}, or ${options.portOption ?? '--port'} 0 for any free one.`,
            )
          : error,
      );
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
