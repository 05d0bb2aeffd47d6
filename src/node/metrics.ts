/**
 * The node's Prometheus metrics (GET /metrics on the status server): totals since the start beside
 * what is open now, by path (direct or relay), and failures by reason, which is what an operator
 * alerts on. A portal given by name (tcp-outlets, tcp-inlets) labels its series `portal="<name>"`;
 * those of the single forms keep the label sets they always had.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import { collectProcessMetrics } from '../shared/process-metrics.ts';
import { OperationsTally, registerTally } from '../shared/operations-tally.ts';

/**
 * Why something failed, the `reason` label of portal_failures_total:
 * - target_unreachable: the outlet could not connect to its target (refused, timed out, TLS did not verify);
 * - peer_refused: an allow check or the list of revoked members refused a session, on either side or at
 *   the relay on the outlet's behalf;
 * - no_outlet: the relay has no outlet registered under the inlet's via;
 * - session_failed: an end-to-end session could not be made (TLS, verdicts, versions);
 * - relay_failed: an attempt through a relay failed (stalled, busy, unreachable);
 * - relay_lost: a relay connection that was up dropped.
 */
export type FailureReason =
  'target_unreachable' | 'peer_refused' | 'no_outlet' | 'session_failed' | 'relay_failed' | 'relay_lost';

export interface NodeMetrics {
  readonly registry: Registry;
  readonly connections: Counter<'part' | 'path' | 'portal'>;
  readonly connectionsOpen: Gauge<'part' | 'path' | 'portal'>;
  readonly sessions: Counter<'part' | 'path' | 'portal'>;
  readonly sessionsOpen: Gauge<'part' | 'path' | 'portal'>;
  readonly bytes: Counter<'part' | 'direction' | 'portal'>;
  readonly refusals: Counter<'part' | 'portal'>;
  readonly failures: Counter<'reason' | 'portal'>;
  /** Audit records the node keeps until the controller takes them (portal_audit_records_pending). */
  readonly tally: OperationsTally;
}

type Labels<L extends string> = Partial<Record<L, string>>;

/** A counter as one portal's parts count on it: its labels, the portal's added. */
export interface PortalCounter<L extends string> {
  inc(labels: Labels<L>, value?: number): void;
}

export interface PortalGauge<L extends string> extends PortalCounter<L> {
  dec(labels: Labels<L>, value?: number): void;
}

/** What an outlet or an inlet counts, on the node's series. */
export interface PortalMetrics {
  readonly connections: PortalCounter<'part' | 'path'>;
  readonly connectionsOpen: PortalGauge<'part' | 'path'>;
  readonly sessions: PortalCounter<'part' | 'path'>;
  readonly sessionsOpen: PortalGauge<'part' | 'path'>;
  readonly bytes: PortalCounter<'part' | 'direction'>;
  readonly refusals: PortalCounter<'part'>;
  readonly failures: PortalCounter<'reason'>;
}

/** The node's series as one portal counts on them: labelled with `portal`, its name, when given. */
export function portalMetrics(metrics: NodeMetrics, portal: string | undefined): PortalMetrics {
  const extra = portal === undefined ? {} : { portal };
  const counter = <L extends string>(of: Counter<L | 'portal'>): PortalCounter<L> => ({
    inc: (labels, value) => of.inc({ ...labels, ...extra } as Labels<L | 'portal'>, value),
  });
  const gauge = <L extends string>(of: Gauge<L | 'portal'>): PortalGauge<L> => ({
    inc: (labels, value) => of.inc({ ...labels, ...extra } as Labels<L | 'portal'>, value),
    dec: (labels, value) => of.dec({ ...labels, ...extra } as Labels<L | 'portal'>, value),
  });
  return {
    connections: counter(metrics.connections),
    connectionsOpen: gauge(metrics.connectionsOpen),
    sessions: counter(metrics.sessions),
    sessionsOpen: gauge(metrics.sessionsOpen),
    bytes: counter(metrics.bytes),
    refusals: counter(metrics.refusals),
    failures: counter(metrics.failures),
  };
}

export function createMetrics(): NodeMetrics {
  const registry = new Registry();
  collectProcessMetrics(registry, 'portal_node_');
  const labelNames = ['part', 'path', 'portal'] as const;
  const registers = [registry];
  const tally = new OperationsTally();
  registerTally(registry, tally, ['pending']);
  return {
    registry,
    tally,
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
      labelNames: ['part', 'direction', 'portal'],
      registers,
    }),
    refusals: new Counter({
      name: 'portal_refused_total',
      help:
        'Clients refused: no session could be had, ' +
        'or the outlet refused their connection (its target unreachable, a bound)',
      labelNames: ['part', 'portal'],
      registers,
    }),
    failures: new Counter({
      name: 'portal_failures_total',
      help: 'Failures by reason: target_unreachable, peer_refused, no_outlet, session_failed, relay_failed, relay_lost',
      labelNames: ['reason', 'portal'],
      registers,
    }),
  };
}
