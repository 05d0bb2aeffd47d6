/**
 * The web console's listener: HTTP on loopback, HTTPS with the controller's certificate anywhere else.
 * What a client that never signs in can cost is bounded like every listener of Portal's: a cap of
 * connections where the oldest idle one gives way to a newcomer (status-connections.ts), headers and
 * whole requests within a time, a small body, and on loopback only requests addressed to loopback (a
 * page of another site that rebinds its name to 127.0.0.1 is refused).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { formatHostPort, isLoopbackHost } from '../../shared/address.ts';
import { listenOrExplain } from '../../shared/listen.ts';
import { StatusConnections } from '../../shared/status-connections.ts';
import { hostHeaderIsLoopback } from '../../shared/status-server.ts';
import { consoleLimits } from './limits.ts';

export interface ConsoleListenOptions {
  /** The host to bind, as sockets take it (an IPv6 address without brackets). */
  readonly host: string;
  readonly port: number;
  /** The controller's certificate and key: used whenever the host is not loopback. */
  readonly tls: { readonly key: string; readonly certificate: string };
  /** @default consoleLimits */
  readonly limits?: ConsoleListenerLimits;
  /** The routes; `tls` says whether its cookies are Secure. */
  readonly app: (tls: boolean) => { fetch: (request: Request) => Response | Promise<Response> };
}

export type ConsoleListenerLimits = {
  readonly [
    K in 'connections' | 'handshakes' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveMs' | 'timeoutCheckMs'
  ]: number;
};

export interface RunningConsole {
  /** Where a browser opens it: http://127.0.0.1:PORT or https://HOST:PORT. */
  readonly url: string;
  readonly connections: StatusConnections;
  close(): Promise<void>;
}

export async function serveConsole(options: ConsoleListenOptions): Promise<RunningConsole> {
  const tls = !isLoopbackHost(options.host);
  const limits = options.limits ?? consoleLimits;
  const listener = getRequestListener(options.app(tls).fetch);
  let port = options.port;
  const connections = new StatusConnections(limits.connections);
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    connections.answering(request.socket);
    response.once('close', () => connections.answered(request.socket));
    if (!tls && !hostHeaderIsLoopback(request.headers.host, port)) {
      response.writeHead(421, { 'content-type': 'text/plain', connection: 'close' });
      response.end('misdirected request: this console answers only for localhost, 127.0.0.1 or [::1]\n');
      return;
    }
    void listener(request, response);
  };
  const bounds = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveMs,
    connectionsCheckingInterval: limits.timeoutCheckMs,
    maxHeaderSize: 16 * 1024,
  };
  const server = tls
    ? createHttpsServer(
        {
          ...bounds,
          handshakeTimeout: limits.headersTimeoutMs,
          key: options.tls.key,
          cert: options.tls.certificate,
        },
        handle,
      )
    : createHttpServer(bounds, handle);
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => connections.take(socket));
  if (tls) boundHandshakes(server, limits.handshakes);
  // A client that stops reading holds its connection no longer than this without a byte moving.
  server.setTimeout(limits.requestTimeoutMs);
  server.maxHeadersCount = 64;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  await listenOrExplain(server, {
    host: options.host,
    port: options.port,
    subject: 'the console',
    address: formatHostPort({ host, port: options.port }),
    inUse: 'the port is in use',
    hint: 'give --console another address, such as 127.0.0.1:0 for any free port',
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host;
  return {
    url: `${tls ? 'https' : 'http'}://${formatHostPort({ host: shownHost, port })}`,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * TLS handshakes under way at once, each until it completes or its time runs out: a client that opens
 * connections and never finishes a handshake holds none of the connections' cap, so it is bounded here.
 * Past the bound the oldest handshake gives way, so that a newcomer's succeeds while a flood lasts.
 */
function boundHandshakes(server: Server, most: number): void {
  const pending = new Map<string, Socket>();
  const keyOf = (socket: Socket) => `${socket.remoteAddress} ${socket.remotePort}`;
  server.on('connection', (raw: Socket) => {
    const key = keyOf(raw);
    if (pending.size >= most) {
      const [oldestKey, oldest] = pending.entries().next().value as [string, Socket];
      pending.delete(oldestKey);
      oldest.destroy();
    }
    pending.set(key, raw);
    raw.once('close', () => {
      if (pending.get(key) === raw) pending.delete(key);
    });
  });
  server.on('secureConnection', (socket: Socket) => pending.delete(keyOf(socket)));
}
