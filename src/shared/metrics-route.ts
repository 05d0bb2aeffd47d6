/**
 * GET /metrics on a status server: the Prometheus text of one or more registries (the controller's
 * and its embedded relay's, in one process). Scrapes that arrive while one is being made share it,
 * so a local process asking in a loop costs one rendering at a time, however many connections it opens.
 */
import { Registry } from 'prom-client';
import type { StatusRoute } from './status-server.ts';

export function metricsRoute(registries: readonly Registry[]): StatusRoute {
  const registry = registries.length === 1 ? (registries[0] as Registry) : Registry.merge([...registries]);
  let rendering: Promise<string> | undefined;
  return async () => {
    rendering ??= registry.metrics().finally(() => {
      rendering = undefined;
    });
    return { status: 200, contentType: registry.contentType, body: await rendering };
  };
}
