/** A healthy outlet and inlet as `node show` reports them, for tests of what it prints and judges. */
import type { InletShow, OutletShow } from '../../src/node/show.ts';

/** The clock those tests read: every time in the fixtures is some time before it. */
export const showNow = Date.parse('2026-11-21T10:00:00Z');
export const msBeforeNow = (msAgo: number) => new Date(showNow - msAgo).toISOString();

export const outletUp: OutletShow = {
  name: 'db',
  configured_at: '/tcp-outlet',
  relay: 'db',
  registered_on: ['controller'],
  to: '127.0.0.1:28080',
  allow: 'db-inlet',
  status: 'up',
  sessions: 0,
  sessions_direct: 0,
  direct_paths: 0,
  connections_total: 0,
  connections_active: 0,
  connections_failed: 0,
  target_failures: null,
  refusals: [],
  connections_over_bound: 0,
  handshakes_pending: 0,
  dials_declined: 0,
};

export const inletUp: InletShow = {
  name: 'db',
  configured_at: '/tcp-inlet',
  from: '127.0.0.1:0',
  listening: '127.0.0.1:15432',
  via: 'db',
  allow: 'db-outlet',
  status: 'up',
  session: 'open',
  path: 'relay controller',
  direct: null,
  warm_streams: 2,
  outlets: [
    { outlet: 'node-outlet', session: 'open', path: 'relay controller', clients: 0, warm_streams: 2, penalty: 0 },
  ],
  connections_total: 0,
  connections_active: 0,
  connections_refused: 0,
  connections_direct: 0,
  connections_relayed: 0,
  session_failure: null,
  refused_by_outlet: null,
  relays_failed: [],
};
