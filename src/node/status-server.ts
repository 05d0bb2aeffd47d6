/**
 * The node's local status server (spec 4.1) on 127.0.0.1: HEAD / answers 200, GET /show the node as
 * JSON, GET /healthz whether the process answers (liveness), GET /readyz whether it serves at least one
 * of its portals (readiness, by the rule of portal-health.ts), GET /metrics Prometheus text. The server
 * itself, its bounds and its loopback Host check are those of every Portal process
 * (src/shared/status-server.ts).
 */
import type { Server } from 'node:http';
import type { Registry } from 'prom-client';
import { metricsRoute } from '../shared/metrics-route.ts';
import { hostHeaderIsLoopback, startStatusServer as startServer, type StatusAnswer } from '../shared/status-server.ts';
import { isReady, type PortalState } from './portal-health.ts';
import type { NodeShow } from './show.ts';

export interface StatusServerOptions {
  readonly port: number;
  readonly show: () => NodeShow;
  readonly registry: Registry;
}

export async function startStatusServer(options: StatusServerOptions): Promise<{ server: Server; port: number }> {
  const { server, port } = await startServer({
    host: '127.0.0.1',
    port: options.port,
    routes: {
      'HEAD /': () => ({ status: 200, contentType: 'text/plain', body: '' }),
      'GET /show': () => json(200, options.show(), 2),
      'GET /healthz': () => json(200, { status: 'serving', process: 'node', state: options.show().status }),
      'GET /readyz': () => readiness(options.show()),
      'GET /metrics': metricsRoute([options.registry]),
    },
    address: `127.0.0.1:${options.port}`,
    hint:
      'another node on this machine uses it (a node with this PORTAL_HOME runs already? see portal node show): ' +
      'set http-server-port to a free port',
  });
  return { server, port };
}

/** GET /readyz: read by the compiled readiness probe (src/compile/k8s/probes.ts). */
export interface NodeReadiness {
  readonly status: 'ready' | 'unavailable';
  readonly process: 'node';
  readonly state: NodeShow['status'];
  /** Each portal's state, keyed "outlet db", "inlet web". */
  readonly portals: Readonly<Record<string, PortalState>>;
  /** Why the node is not ready, when it is not: its problems, one after the other. */
  readonly reason?: string;
}

/**
 * 200 while the node serves at least one portal, 503 otherwise; either way its state and each portal's,
 * and why the node is not ready when it is not.
 */
export function readiness(shown: NodeShow): StatusAnswer {
  const ready = isReady(shown.status);
  const portals =
    'portals' in shown ? Object.fromEntries(shown.portals.map((portal) => [portalKey(portal), portal.state])) : {};
  const body: NodeReadiness = {
    status: ready ? 'ready' : 'unavailable',
    process: 'node',
    state: shown.status,
    portals,
    ...(ready ? {} : { reason: shown.problems.join('; ') || `the node is ${shown.status}` }),
  };
  return json(ready ? 200 : 503, body);
}

/** "outlet db", "inlet web": how a portal is keyed in /readyz (an outlet and an inlet may share a name). */
const portalKey = (portal: { kind: string; name: string }) => `${portal.kind} ${portal.name}`;

function json(status: number, body: object, indent?: number): StatusAnswer {
  return { status, contentType: 'application/json', body: `${JSON.stringify(body, null, indent)}\n` };
}

/** Whether a Host header names this server on loopback (see hostHeaderIsLoopback). */
export const isLoopbackHost = hostHeaderIsLoopback;
