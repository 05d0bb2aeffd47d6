/** The node's Prometheus metrics (GET /metrics on the status server). */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export interface NodeMetrics {
  readonly registry: Registry;
  readonly connections: Counter<'part' | 'path'>;
  readonly sessions: Gauge<'part' | 'path'>;
  readonly bytes: Counter<'part' | 'direction'>;
  readonly refusals: Counter<'part'>;
}

export function createMetrics(): NodeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'portal_node_' });
  return {
    registry,
    connections: new Counter({ name: 'portal_connections_total', help: 'Client connections carried, by path (direct or relay)', labelNames: ['part', 'path'], registers: [registry] }),
    sessions: new Gauge({ name: 'portal_sessions', help: 'End-to-end sessions open, by path (direct or relay)', labelNames: ['part', 'path'], registers: [registry] }),
    bytes: new Counter({ name: 'portal_bytes_total', help: 'Bytes carried, by direction', labelNames: ['part', 'direction'], registers: [registry] }),
    refusals: new Counter({ name: 'portal_refused_total', help: 'Clients refused because no session could be had', labelNames: ['part'], registers: [registry] }),
  };
}
