/**
 * A status server: the small HTTP server on which a node, a controller or a relay answers probes and
 * Prometheus scrapes (GET /metrics, GET /healthz, a node's GET /show). It reads nothing from a request
 * but its method, path and Host, so it accepts only what a scraper needs and bounds the rest (see
 * statusLimits): a request with a body, another method, headers past their size or their time are
 * answered with an error and closed. At the connection cap a new connection is taken and the oldest one
 * not being answered gives way (status-connections.ts), so a local process that holds connections
 * open cannot blind health probes.
 *
 * On a loopback address it answers only requests addressed to a loopback name: a web page whose name
 * was rebound to 127.0.0.1 sends its own name as Host, and is refused. On another address (the
 * operator's choice, for a scraper on another machine) any Host is answered.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { formatHostPort, isLoopbackHost } from './address.ts';
import { statusLimits } from './limits.ts';
import { listenOrExplain } from './listen.ts';
import { StatusConnections } from './status-connections.ts';

/** What a route answers. */
export interface StatusAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** A route's answer, made when asked. */
export type StatusRoute = () => StatusAnswer | Promise<StatusAnswer>;

export interface StatusServerOptions {
  /** The host to bind, as sockets take it (an IPv6 address without brackets). */
  readonly host: string;
  /** 0 lets the system choose. */
  readonly port: number;
  /**
   * The routes, keyed by method and path: "GET /metrics", "HEAD /". A GET route answers HEAD too,
   * without its body.
   */
  readonly routes: Readonly<Record<string, StatusRoute>>;
  /** What listens, as a failure to listen names it. @default "the status server" */
  readonly subject?: string;
  /** The address as the user wrote it, for a failure to listen. @default host:port */
  readonly address?: string;
  /** What to do when the port is taken. */
  readonly hint: string;
  /** @default statusLimits */
  readonly limits?: typeof statusLimits;
}

export interface RunningStatusServer {
  readonly server: Server;
  /** The connections it holds, and how many gave way to newer ones. */
  readonly connections: StatusConnections;
  /** The port it listens on (the one the system chose for port 0). */
  readonly port: number;
  /** host:port it listens on, IPv6 in brackets. */
  readonly address: string;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

export const misdirected = 'misdirected request: this status server answers only for localhost, 127.0.0.1 or [::1]\n';

export async function startStatusServer(options: StatusServerOptions): Promise<RunningStatusServer> {
  const limits = options.limits ?? statusLimits;
  const loopbackOnly = isLoopbackHost(options.host);
  let port = options.port;
  const connections = new StatusConnections(limits.connections);
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveMs,
      connectionsCheckingInterval: limits.timeoutCheckMs,
      maxHeaderSize: limits.headerBytes,
    },
    (request, response) => {
      connections.answering(request.socket);
      response.once('close', () => connections.answered(request.socket));
      answer(options, request, response, loopbackOnly ? port : undefined);
    },
  );
  // Not maxConnections: it refuses the newcomer, which is the probe when a local process holds the rest.
  server.on('connection', (socket: Socket) => connections.take(socket));
  // A client that stops reading an answer holds its connection no longer than this without a byte moving.
  server.setTimeout(limits.requestTimeoutMs);
  server.maxHeadersCount = limits.headers;
  server.maxRequestsPerSocket = limits.requestsPerConnection;
  // Bad bytes, headers too large or too slow: Node's own answer (400, 431, 408), then the connection is closed.
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  await listenOrExplain(server, {
    host: options.host,
    port: options.port,
    subject: options.subject ?? 'the status server',
    address: options.address ?? formatHostPort({ host, port: options.port }),
    inUse: 'the port is in use',
    hint: options.hint,
  });
  port = (server.address() as AddressInfo).port;
  return {
    server,
    connections,
    port,
    address: formatHostPort({ host, port }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers one request; `loopbackPort` is set when only requests addressed to loopback are answered. */
function answer(
  options: StatusServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
  loopbackPort: number | undefined,
): void {
  const plain = (status: number, text: string, headers: Record<string, string> = {}) =>
    response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(text);
  if (loopbackPort !== undefined && !hostHeaderIsLoopback(request.headers.host, loopbackPort)) {
    plain(421, misdirected, { connection: 'close' });
    return;
  }
  // Nothing here reads a body: one sent is refused, and the connection closed rather than read to its end.
  if (request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0) {
    plain(413, 'a status request carries no body\n', { connection: 'close' });
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    plain(405, `method not allowed: ${gets(options.routes)}\n`, { allow: 'GET, HEAD', connection: 'close' });
    return;
  }
  const path = (request.url ?? '/').split('?')[0];
  const route = options.routes[`${request.method} ${path}`] ?? options.routes[`GET ${path}`];
  if (!route) {
    plain(404, `not found: ${gets(options.routes)}\n`);
    return;
  }
  Promise.resolve()
    .then(route)
    .then(
      (made) => response.writeHead(made.status, { 'content-type': made.contentType }).end(made.body),
      (error: Error) => plain(500, `the status could not be made: ${error.message}\n`),
    );
}

/** "try GET /show or GET /metrics": the GET routes a client may ask for. */
function gets(routes: Readonly<Record<string, StatusRoute>>): string {
  const paths = Object.keys(routes).filter((key) => key.startsWith('GET '));
  return `try ${paths.join(' or ')}`;
}

const loopbackNames = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a Host header names this server on loopback: a loopback name, with no port or this port.
 * A request without Host (HTTP/1.0) comes from no browser, so it passes.
 */
export function hostHeaderIsLoopback(host: string | undefined, port: number): boolean {
  if (host === undefined) return true;
  const match = /^(\[[^\]]*\]|[^:]*)(?::([0-9]{1,5}))?$/.exec(host.trim().toLowerCase());
  if (!match) return false;
  const [, name = '', portText] = match;
  return loopbackNames.has(name.replace(/\.$/, '')) && (portText === undefined || Number(portText) === port);
}
