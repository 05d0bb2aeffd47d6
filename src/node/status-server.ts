/**
 * The node's local status server (spec 4.1) on 127.0.0.1: HEAD / answers 200, GET /show the node as
 * JSON, GET /metrics Prometheus text. It reads nothing from requests but the path and the Host, so bad
 * bytes only earn a 400 or a closed connection. Only requests addressed to a loopback name are
 * answered: a web page whose name was rebound to 127.0.0.1 sends its own name as Host, and is refused.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { listenOrExplain } from '../shared/listen.ts';
import { statusHeadersTimeoutMs, statusRequestTimeoutMs } from './limits.ts';

export interface StatusServerOptions {
  readonly port: number;
  readonly show: () => object;
  readonly registry: Registry;
}

export async function startStatusServer(options: StatusServerOptions): Promise<{ server: Server; port: number }> {
  let port = options.port;
  const timeouts = { requestTimeout: statusRequestTimeoutMs, headersTimeout: statusHeadersTimeoutMs };
  const server = createServer(timeouts, (request, response) => {
    if (!isLoopbackHost(request.headers.host, port)) {
      response
        .writeHead(421, { 'content-type': 'text/plain', connection: 'close' })
        .end('misdirected request: this status server answers only for localhost, 127.0.0.1 or [::1]\n');
      return;
    }
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'HEAD' && path === '/') {
      response.writeHead(200).end();
    } else if (request.method === 'GET' && path === '/show') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`${JSON.stringify(options.show(), null, 2)}\n`);
    } else if (request.method === 'GET' && path === '/metrics') {
      void options.registry
        .metrics()
        .then((text) => response.writeHead(200, { 'content-type': options.registry.contentType }).end(text));
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try GET /show or GET /metrics\n');
    }
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await listenOrExplain(server, {
    host: '127.0.0.1',
    port: options.port,
    subject: 'the status server',
    address: `127.0.0.1:${options.port}`,
    inUse: 'the port is in use',
    hint:
      'another node on this machine uses it (a node with this PORTAL_HOME runs already? see portal node show): ' +
      'set http-server-port to a free port',
  });
  port = (server.address() as AddressInfo).port;
  return { server, port };
}

const loopbackNames = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a Host header names this server on loopback: a loopback name, with no port or this port.
 * A request without Host (HTTP/1.0) comes from no browser, so it passes.
 */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return true;
  const match = /^(\[[^\]]*\]|[^:]*)(?::([0-9]{1,5}))?$/.exec(host.trim().toLowerCase());
  if (!match) return false;
  const [, name = '', portText] = match;
  return loopbackNames.has(name.replace(/\.$/, '')) && (portText === undefined || Number(portText) === port);
}
