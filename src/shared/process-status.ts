/**
 * The status server of a controller or a relay: GET /metrics (its registries), GET /healthz and GET
 * /readyz (its health check: a controller or a relay has no parts that serve apart, so it is ready
 * exactly when it serves; a node's two differ), and HEAD / for a plain probe, on the address
 * `--status-listen` gave.
 */
import type { Registry } from 'prom-client';
import { healthRoute, type HealthCheck, type HealthOf } from './health-route.ts';
import { metricsRoute } from './metrics-route.ts';
import { startStatusServer, type RunningStatusServer } from './status-server.ts';

export interface ServeStatusOptions {
  readonly listen: { readonly host: string; readonly port: number };
  /** The flag as given, for a failure to listen. */
  readonly flag: string;
  readonly process: HealthOf;
  readonly registries: readonly Registry[];
  readonly health: HealthCheck;
}

/** Starts the status server of a controller or a relay. */
export function serveStatus(options: ServeStatusOptions): Promise<RunningStatusServer> {
  // One route for both paths, so that probes of either share one check.
  const health = healthRoute(options.process, options.health);
  return startStatusServer({
    host: options.listen.host,
    port: options.listen.port,
    routes: {
      'HEAD /': () => ({ status: 200, contentType: 'text/plain', body: '' }),
      'GET /metrics': metricsRoute(options.registries),
      'GET /healthz': health,
      'GET /readyz': health,
    },
    subject: `the ${options.process}'s status server`,
    address: options.flag,
    hint: 'give --status-listen another port, 0 for a free one, or off',
  });
}
