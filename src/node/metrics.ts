/**
 * The node's Prometheus metrics (GET /metrics on the status server): totals since the start beside
 * what is open now, by path (direct or relay).
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export interface NodeMetrics {
  readonly registry: Registry;
  readonly connections: Counter<'part' | 'path'>;
  readonly connectionsOpen: Gauge<'part' | 'path'>;
  readonly sessions: Counter<'part' | 'path'>;
  readonly sessionsOpen: Gauge<'part' | 'path'>;
  readonly bytes: Counter<'part' | 'direction'>;
  readonly refusals: Counter<'part'>;
}

export function createMetrics(): NodeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'portal_node_' });
  const labelNames = ['part', 'path'] as const;
  const registers = [registry];
  return {
    registry,
    connections: new Counter({ name: 'portal_connections_total', help: 'Client connections carried since the start, by path (direct or relay)', labelNames, registers }),
    connectionsOpen: new Gauge({ name: 'portal_connections_open', help: 'Client connections open now, by path (direct or relay)', labelNames, registers }),
    sessions: new Counter({ name: 'portal_sessions_total', help: 'End-to-end sessions opened since the start, by path (direct or relay)', labelNames, registers }),
    sessionsOpen: new Gauge({ name: 'portal_sessions_open', help: 'End-to-end sessions open now, by path (direct or relay)', labelNames, registers }),
    bytes: new Counter({ name: 'portal_bytes_total', help: 'Bytes carried, by direction', labelNames: ['part', 'direction'], registers }),
    refusals: new Counter({ name: 'portal_refused_total', help: 'Clients refused because no session could be had', labelNames: ['part'], registers }),
  };
}
