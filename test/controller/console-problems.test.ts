import assert from 'node:assert/strict';
import { problemsOf } from '../../src/controller/console/problems.ts';
import type { MemberInfo } from '../../src/wire/protocol.ts';

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

describe('console: the problems the overview lists', () => {
  it('lists none for connected members with current certificates and a relay', () => {
    assert.deepEqual(
      problemsOf([member('n1'), member('a1', { kind: 'administrator', connected: false })], [relay], now),
      [],
    );
  });

  it('lists a node away, one whose certificate ends soon while away, one expired, and no relay, with the fix', () => {
    const problems = problemsOf(
      [
        member('n1', { connected: false, lastSeen: at(-30) }),
        member('n2', { connected: false, lastSeen: at(-55), certificateExpiresAt: at(5) }),
        member('n3', { connected: false, certificateExpiresAt: at(-1) }),
        member('n4', { connected: false, revoked: { at: at(-1), by: 'a1', reason: '' } }),
      ],
      [],
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
});
