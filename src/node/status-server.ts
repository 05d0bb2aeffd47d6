/**
 * The node's local status server (spec 4.1) on 127.0.0.1: HEAD / answers 200, GET /show the node as
 * JSON, GET /metrics Prometheus text. The server itself, its bounds and its loopback Host check are
 * those of every Portal process (src/shared/status-server.ts).
 */
import type { Server } from 'node:http';
import type { Registry } from 'prom-client';
import { metricsRoute } from '../shared/metrics-route.ts';
import { hostHeaderIsLoopback, startStatusServer as startServer } from '../shared/status-server.ts';

export interface StatusServerOptions {
  readonly port: number;
  readonly show: () => object;
  readonly registry: Registry;
}

export async function startStatusServer(options: StatusServerOptions): Promise<{ server: Server; port: number }> {
  const { server, port } = await startServer({
    host: '127.0.0.1',
    port: options.port,
    routes: {
      'HEAD /': () => ({ status: 200, contentType: 'text/plain', body: '' }),
      'GET /show': () => ({
        status: 200,
        contentType: 'application/json',
        body: `${JSON.stringify(options.show(), null, 2)}\n`,
      }),
      'GET /metrics': metricsRoute([options.registry]),
    },
    address: `127.0.0.1:${options.port}`,
    hint:
      'another node on this machine uses it (a node with this PORTAL_HOME runs already? see portal node show): ' +
      'set http-server-port to a free port',
  });
  return { server, port };
}

/** Whether a Host header names this server on loopback (see hostHeaderIsLoopback). */
export const isLoopbackHost = hostHeaderIsLoopback;
