import assert from 'node:assert/strict';
import { describeNode } from '../../src/cli/node-show.ts';
import type { NodeShowRunning } from '../../src/node/show.ts';
import { outletUp } from '../support/node-show-fixtures.ts';

const shown: NodeShowRunning = {
  status: 'up',
  problems: [],
  warnings: ['relay r2 at 127.0.0.1:4100 is unreachable (reconnecting); the others carry the node'],
  name: 'n1',
  version: '0.1.0',
  uptime_seconds: 60,
  identity: {
    node_id: 'n1',
    attributes: ['db-outlet'],
    relays: ['db'],
    valid_until: '2026-11-21T11:00:00.000Z',
    expired: false,
  },
  project: { id: 'p1', controller: '127.0.0.1:4000', network_domain: 'portal.example.net' },
  controller: 'connected',
  relays: [{ id: 'controller', address: '127.0.0.1:4000', status: 'connected' }],
  reload: { count: 0, last: null },
  portals: [{ kind: 'outlet', name: 'db', configured_at: '/tcp-outlet', state: 'up', problems: [], warnings: [] }],
  inlets: [],
  outlets: [
    {
      ...outletUp,
      to: '127.0.0.1:5432',
      sessions: 1,
      sessions_direct: 1,
      direct_paths: 1,
      connections_total: 1,
      connections_active: 1,
    },
  ],
};

describe('portal node show: the lines of a node that is up', () => {
  it('says which figures are totals and which are open now, in the right number, and its warnings', () => {
    assert.deepEqual(describeNode(shown), [
      'The node is UP',
      '  node n1 in project p1, controller 127.0.0.1:4000 (connected)',
      '  certificate valid until 2026-11-21T11:00:00.000Z',
      '  outlet: relay db -> 127.0.0.1:5432, up, registered on 1 relay, 1 session open (1 direct), ' +
        '1 connection so far, 1 open now',
      '  relay controller at 127.0.0.1:4000: connected',
      '  warning: relay r2 at 127.0.0.1:4100 is unreachable (reconnecting); the others carry the node',
    ]);
    const busy = {
      ...shown,
      warnings: [],
      outlets: shown.outlets.map((outlet) => ({
        ...outlet,
        registered_on: ['a', 'b'],
        sessions: 2,
        connections_total: 3,
        connections_active: 0,
      })),
    };
    assert.equal(
      describeNode(busy)[3],
      '  outlet: relay db -> 127.0.0.1:5432, up, registered on 2 relays, 2 sessions open (1 direct), ' +
        '3 connections so far, 0 open now',
    );
  });

  it('prints each portal given by name with it', () => {
    const outlet = shown.outlets[0] as NodeShowRunning['outlets'][number];
    const several = {
      ...shown,
      warnings: [],
      outlets: [
        { ...outlet, name: 'db', configured_at: '/tcp-outlets/db' },
        { ...outlet, name: 'cache', configured_at: '/tcp-outlets/cache', relay: 'cache', to: '127.0.0.1:6379' },
      ],
    };
    assert.deepEqual(describeNode(several).slice(3, 5), [
      '  outlet db: relay db -> 127.0.0.1:5432, up, registered on 1 relay, 1 session open (1 direct), ' +
        '1 connection so far, 1 open now',
      '  outlet cache: relay cache -> 127.0.0.1:6379, up, registered on 1 relay, 1 session open (1 direct), ' +
        '1 connection so far, 1 open now',
    ]);
  });
});
