import assert from 'node:assert/strict';
import { problemsOf } from '../../src/controller/console/problems.ts';
import type { MemberInfo, PortalReport } from '../../src/wire/protocol.ts';

const now = Date.parse('2026-11-29T12:00:00Z');
const at = (minutes: number) => new Date(now + minutes * 60_000).toISOString();
const member = (id: string, changes: Partial<MemberInfo> = {}): MemberInfo => ({
  id,
  kind: 'node',
  attributes: ['db-inlet'],
  relays: [],
  tls: false,
  enrolledAt: at(-120),
  certificateExpiresAt: at(50),
  lastSeen: at(0),
  connected: true,
  liveSessions: 0,
  revoked: null,
  ...changes,
});
const relay = { id: 'controller', address: '127.0.0.1:4000', fingerprint: 'f' };
const portal = (changes: Partial<PortalReport>): PortalReport => ({
  part: 'inlet',
  name: 'db',
  relay: 'db',
  status: 'up',
  since: now,
  open: 0,
  total: 0,
  up: 0,
  down: 0,
  peers: [{ node: 'n2', path: 'direct', open: 0 }],
  ...changes,
});
/** An inlet carried by its outlet, and that outlet registered. */
const portals = [
  { node: 'n1', at: now, portals: [portal({})] },
  { node: 'n2', at: now, portals: [portal({ part: 'outlet', peers: [] })] },
];

describe('console: the problems the overview lists', () => {
  it('lists none for connected members with current certificates and a relay', () => {
    assert.deepEqual(
      problemsOf(
        {
          members: [member('n1'), member('a1', { kind: 'administrator', connected: false })],
          relays: [relay],
          portals,
        },
        now,
      ),
      [],
    );
  });

  it('lists a node away, one whose certificate ends soon while away, one expired, and no relay, with the fix', () => {
    const problems = problemsOf(
      {
        members: [
          member('n1', { connected: false, lastSeen: at(-30) }),
          member('n2', { connected: false, lastSeen: at(-55), certificateExpiresAt: at(5) }),
          member('n3', { connected: false, certificateExpiresAt: at(-1) }),
          member('n4', { connected: false, revoked: { at: at(-1), by: 'a1', reason: '' } }),
        ],
        relays: [],
        portals: [],
      },
      now,
    );
    assert.deepEqual(
      problems.map((problem) => [problem.member ?? '', problem.what]),
      [
        ['', 'No relay serves the project: portals that cannot connect directly carry nothing.'],
        ['n1', `Node n1 is not connected to the controller (last seen ${at(-30)}).`],
        [
          'n2',
          `Node n2 is not connected to the controller (last seen ${at(-55)}); its certificate expires at ${at(5)}.`,
        ],
        ['n3', `Node n3's certificate expired at ${at(-1)}.`],
      ],
    );
    assert.ok(problems.every((problem) => problem.fix.length > 0));
  });

  it('lists an outlet no relay registered and an inlet with no session to an outlet', () => {
    const problems = problemsOf(
      {
        members: [member('n1'), member('n2')],
        relays: [relay],
        portals: [
          { node: 'n1', at: now, portals: [portal({ peers: [{ node: 'n2', path: '', open: 0 }] })] },
          { node: 'n2', at: now, portals: [portal({ part: 'outlet', status: 'waiting', relay: 'pg', peers: [] })] },
        ],
      },
      now,
    );
    assert.deepEqual(
      problems.map((problem) => [problem.member, problem.what]),
      [
        ['n1', 'Inlet db of node n1 has no session to an outlet of db: its clients are refused.'],
        ['n2', 'Outlet db of node n2 is not registered on any relay (waiting).'],
      ],
    );
    assert.match(problems[1]!.fix, /grant pg/);
  });
});
