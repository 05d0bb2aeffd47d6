import assert from 'node:assert/strict';
import { grantsText, membersToRevoke, ticketsToCancel } from '../../src/cli/retire-matching.ts';
import type { MemberInfo, TicketInfo } from '../../src/wire/protocol.ts';

const member = (id: string, fields: Partial<MemberInfo>): MemberInfo => ({
  id,
  kind: 'node',
  attributes: [],
  relays: [],
  tls: false,
  enrolledAt: '2026-11-28T10:00:00.000Z',
  certificateExpiresAt: null,
  lastSeen: null,
  connected: false,
  liveSessions: null,
  revoked: null,
  ...fields,
});

const ticket = (id: string, grants: Partial<TicketInfo['grants']>, usesLeft = 1): TicketInfo => ({
  id,
  grants: { attribute: '', attributes: [], relays: [], tls: false, relayNode: false, admin: false, ...grants },
  usesLeft,
  expiresAt: '2026-11-28T20:00:00.000Z',
  issuedAt: '2026-11-28T10:00:00.000Z',
  issuedBy: 'a0000000000000001',
});

describe('portal project retire: which members and tickets are a use case', () => {
  const outlet = { attributes: ['db-outlet'], relays: ['db'], tls: false };

  it('revokes the active nodes whose grants are exactly the ticket line, in any order', () => {
    const members = [
      member('n0000000000000001', { attributes: ['db-outlet'], relays: ['db'] }),
      member('n0000000000000002', { attributes: ['db-outlet'], relays: ['db', 'db'] }),
      // Another use case's, a wider ticket's, a narrower one's, a TLS one's: not this line's.
      member('n0000000000000003', { attributes: ['shop-outlet'], relays: ['shop'] }),
      member('n0000000000000004', { attributes: ['db-outlet', 'team=ops'], relays: ['db'] }),
      member('n0000000000000005', { attributes: ['db-outlet'], relays: [] }),
      member('n0000000000000006', { attributes: ['db-outlet'], relays: ['db'], tls: true }),
      // Revoked already, a relay node, an administrator: never.
      member('n0000000000000007', {
        attributes: ['db-outlet'],
        relays: ['db'],
        revoked: { at: '2026-11-28T11:00:00.000Z', by: 'a0000000000000001', reason: '' },
      }),
      member('n0000000000000008', { kind: 'relay', attributes: ['db-outlet'], relays: ['db'] }),
      member('a0000000000000001', { kind: 'administrator', attributes: ['db-outlet'], relays: ['db'] }),
    ];
    assert.deepEqual(
      membersToRevoke(members, outlet).map(({ id }) => id),
      ['n0000000000000001', 'n0000000000000002'],
    );
    const several = { attributes: ['b', 'a'], relays: ['y', 'x'], tls: true };
    assert.deepEqual(
      membersToRevoke([member('n0000000000000009', { attributes: ['a', 'b'], relays: ['x', 'y'], tls: true })], several)
        .length,
      1,
    );
  });

  it('cancels the unused node tickets with exactly those grants, never an admin or relay-node ticket', () => {
    const tickets = [
      ticket('t0000000000000001', { attributes: ['db-outlet'], relays: ['db'] }),
      ticket('t0000000000000002', { attributes: ['db-outlet'], relays: ['db'] }, 0),
      ticket('t0000000000000003', { attributes: ['db-inlet'] }),
      ticket('t0000000000000004', { attributes: ['db-outlet'], relays: ['db'], admin: true }),
      ticket('t0000000000000005', { attributes: ['db-outlet'], relays: ['db'], relayNode: true }),
      ticket('t0000000000000006', { attributes: ['db-outlet'], relays: ['db'], tls: true }),
    ];
    assert.deepEqual(
      ticketsToCancel(tickets, outlet).map(({ id }) => id),
      ['t0000000000000001'],
    );
  });

  it('says the grants as the line gave them', () => {
    assert.equal(grantsText(outlet), 'attribute db-outlet; relay db');
    assert.equal(grantsText({ attributes: ['a', 'team=ops'], relays: [], tls: true }), 'attribute a, team=ops; tls');
  });
});
