/**
 * The node's Prometheus metrics (GET /metrics on the status server): totals since the start beside
 * what is open now, by path (direct or relay), and failures by reason, which is what an operator
 * alerts on.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Why something failed, the `reason` label of portal_failures_total:
 * - target_unreachable: the outlet could not connect to its target (refused, timed out, TLS did not verify);
 * - peer_refused: an allow check refused a session, on either side or at the relay on the outlet's behalf;
 * - no_outlet: the relay has no outlet registered under the inlet's via;
 * - session_failed: an end-to-end session could not be made (TLS, verdicts, versions);
 * - relay_failed: an attempt through a relay failed (stalled, busy, unreachable);
 * - relay_lost: a relay connection that was up dropped.
 */
export type FailureReason =
  'target_unreachable' | 'peer_refused' | 'no_outlet' | 'session_failed' | 'relay_failed' | 'relay_lost';

export interface NodeMetrics {
  readonly registry: Registry;
  readonly connections: Counter<'part' | 'path'>;
  readonly connectionsOpen: Gauge<'part' | 'path'>;
  readonly sessions: Counter<'part' | 'path'>;
  readonly sessionsOpen: Gauge<'part' | 'path'>;
  readonly bytes: Counter<'part' | 'direction'>;
  readonly refusals: Counter<'part'>;
  readonly failures: Counter<'reason'>;
}

export function createMetrics(): NodeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'portal_node_' });
  const labelNames = ['part', 'path'] as const;
  const registers = [registry];
  return {
    registry,
    connections: new Counter({
      name: 'portal_connections_total',
      help: 'Client connections carried since the start, by path (direct or relay)',
      labelNames,
      registers,
    }),
    connectionsOpen: new Gauge({
      name: 'portal_connections_open',
      help: 'Client connections open now, by path (direct or relay)',
      labelNames,
      registers,
    }),
    sessions: new Counter({
      name: 'portal_sessions_total',
      help: 'End-to-end sessions opened since the start, by path (direct or relay)',
      labelNames,
      registers,
    }),
    sessionsOpen: new Gauge({
      name: 'portal_sessions_open',
      help: 'End-to-end sessions open now, by path (direct or relay)',
      labelNames,
      registers,
    }),
    bytes: new Counter({
      name: 'portal_bytes_total',
      help: 'Bytes carried, by direction',
      labelNames: ['part', 'direction'],
      registers,
    }),
    refusals: new Counter({
      name: 'portal_refused_total',
      help:
        'Clients refused: no session could be had, ' +
        'or the outlet refused their connection (its target unreachable, a bound)',
      labelNames: ['part'],
      registers,
    }),
    failures: new Counter({
      name: 'portal_failures_total',
      help: 'Failures by reason: target_unreachable, peer_refused, no_outlet, session_failed, relay_failed, relay_lost',
      labelNames: ['reason'],
      registers,
    }),
  };
}
