/**
 * A relay's Prometheus metrics (GET /metrics on its status server, or the controller's for the relay
 * inside it): outlet registrations, splices waiting, open and made, bytes spliced each way, and the
 * families every member service has (src/wire/service-metrics.ts). All are read when scraped from
 * what the relay counts anyway, so a splice pays nothing for them.
 */
import type { Registry } from 'prom-client';
import { readCounter, readGauge, single } from '../shared/metric-families.ts';
import type { SpliceRole } from '../wire/protocol.ts';
import { registerServiceMetrics, type ServiceFigures } from '../wire/service-metrics.ts';
import type { AnsweredRequest } from '../wire/service-connection.ts';
import type { RelayStats } from './relay.ts';

export interface RelayFigures extends ServiceFigures {
  readonly relay: RelayStats;
  /** Bytes read from each role's halves. */
  readonly bytes: Readonly<Record<SpliceRole, number>>;
  /** Splice halves refused: an unknown splice, a wrong secret, a half that came twice. */
  readonly halvesRefused: number;
}

/** Registers the relay's families; returns what its member service is told of each answered request. */
export function registerRelayMetrics(
  registry: Registry,
  figures: () => RelayFigures,
): (answered: AnsweredRequest) => void {
  readGauge({
    registry,
    name: 'portal_relay_registrations',
    help: 'Outlet registrations the relay holds now (an outlet registers each of its relay names)',
    read: () => single(figures().relay.registrations),
  });
  readGauge({
    registry,
    name: 'portal_relay_splices_pending',
    help: 'Splices granted whose two halves have not both arrived yet',
    read: () => single(figures().relay.splicesPending),
  });
  readGauge({
    registry,
    name: 'portal_relay_splices_open',
    help: 'Splices carrying bytes now',
    read: () => single(figures().relay.splicesActive),
  });
  readCounter({
    registry,
    name: 'portal_relay_splices_total',
    help: 'Splices made since the start (both halves arrived and joined)',
    read: () => single(figures().relay.splicesTotal),
  });
  readCounter({
    registry,
    name: 'portal_relay_spliced_bytes_total',
    help: 'Bytes the relay carried, by direction: inlet_to_outlet, outlet_to_inlet (end-to-end TLS, unread)',
    labelNames: ['direction'],
    read: () => {
      const { inlet, outlet } = figures().bytes;
      return [
        [{ direction: 'inlet_to_outlet' }, inlet],
        [{ direction: 'outlet_to_inlet' }, outlet],
      ];
    },
  });
  readCounter({
    registry,
    name: 'portal_relay_splice_halves_refused_total',
    help: 'Connections that named a splice the relay refused: unknown, expired, a wrong secret, or a half twice',
    read: () => single(figures().halvesRefused),
  });
  return registerServiceMetrics(registry, 'portal_relay', figures);
}
