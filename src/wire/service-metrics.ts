/**
 * What the controller and every relay measure of the members they serve, each under its own prefix
 * (portal_controller_…, portal_relay_…), so that one process may serve both: request latency by
 * operation, requests refused by operation and error code, member connections, and what the admission
 * limits refused. Operations and codes are closed sets, so no peer can grow a family.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { readCounter, readGauge, single, type Series } from '../shared/metric-families.ts';
import type { AdmissionStats } from './admission.ts';
import type { AnsweredRequest } from './service-connection.ts';

export type ServicePrefix = 'portal_controller' | 'portal_relay';

/** What a service's port and member service count, read when scraped. */
export interface ServiceFigures {
  /** Member connections open now. */
  readonly members: number;
  /** Connections refused to members holding as many as they may. */
  readonly membersRefused: number;
  /** The admission limits' counts, where the service has a port of its own. */
  readonly admission?: AdmissionStats;
  /** Requests refused to anonymous peers past their allowance (the controller only). */
  readonly anonymousRefused?: number;
}

/** Seconds: a request answered from memory takes well under a millisecond; one that signs, a few. */
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Registers the service's families; returns what its member service is told of each answered request. */
export function registerServiceMetrics(
  registry: Registry,
  prefix: ServicePrefix,
  figures: () => ServiceFigures,
): (answered: AnsweredRequest) => void {
  const who = prefix === 'portal_controller' ? 'the controller' : 'the relay';
  const latency = new Histogram({
    name: `${prefix}_request_duration_seconds`,
    help: `Time ${who} took to answer a request, by operation`,
    labelNames: ['operation'],
    buckets: latencyBuckets,
    registers: [registry],
  });
  const refusals = new Counter({
    name: `${prefix}_refusals_total`,
    help: `Requests ${who} refused, by operation and error code (reason)`,
    labelNames: ['operation', 'reason'],
    registers: [registry],
  });
  readGauge({
    registry,
    name: `${prefix}_member_connections`,
    help: `Connections of members to ${who} open now`,
    read: () => single(figures().members),
  });
  readGauge({
    registry,
    name: `${prefix}_unauthenticated_connections`,
    help:
      `Connections to ${who}'s port that have not proved a member or a splice yet` +
      (prefix === 'portal_relay' ? ' (the relay inside a controller counts none: the controller counts its port)' : ''),
    read: () => single(figures().admission?.unauthenticated ?? 0),
  });
  readCounter({
    registry,
    name: `${prefix}_admission_refusals_total`,
    help:
      `Connections${prefix === 'portal_controller' ? ' and requests' : ''} ${who} refused at its limits, by reason: ` +
      'handshake_rate, source_connections, evicted (the oldest unproven connection, to make room), ' +
      'deadline (nothing proved in time), member_connections (a member holding as many as it may)' +
      (prefix === 'portal_controller' ? ', anonymous_requests (past what a peer without a certificate may ask)' : ''),
    labelNames: ['reason'],
    read: () => admissionSeries(figures()),
  });
  return (answered) => {
    latency.observe({ operation: answered.op }, answered.seconds);
    if (answered.code !== undefined) refusals.inc({ operation: answered.op, reason: answered.code });
  };
}

function admissionSeries(figures: ServiceFigures): Series<'reason'> {
  const admission = figures.admission;
  return [
    ...(admission
      ? ([
          [{ reason: 'handshake_rate' }, admission.refusedRate],
          [{ reason: 'source_connections' }, admission.refusedPerSource],
          [{ reason: 'evicted' }, admission.evicted],
          [{ reason: 'deadline' }, admission.expired],
        ] as const)
      : []),
    [{ reason: 'member_connections' }, figures.membersRefused],
    ...(figures.anonymousRefused !== undefined
      ? ([[{ reason: 'anonymous_requests' }, figures.anonymousRefused]] as const)
      : []),
  ];
}
