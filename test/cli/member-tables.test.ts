import assert from 'node:assert/strict';
import {
  jsonLines,
  membersAdmitted,
  membersTable,
  poolLines,
  table,
  ticketsTable,
} from '../../src/cli/member-tables.ts';
import { requirePolicy } from '../../src/shared/policy.ts';
import type { MemberInfo, TicketInfo } from '../../src/wire/protocol.ts';

const member: MemberInfo = {
  id: 'n0123456789abcdef',
  kind: 'node',
  attributes: ['db-inlet'],
  relays: [],
  tls: false,
  enrolledAt: '2026-11-25T09:15:31.123Z',
  certificateExpiresAt: '2026-11-25T12:09:55.000Z',
  lastSeen: '2026-11-25T10:00:00.000Z',
  connected: false,
  liveSessions: null,
  revoked: { at: '2026-11-25T10:00:01.000Z', by: 'a0123456789abcdef', reason: 'laptop lost' },
};

describe('cli: the tables of project members and tickets', () => {
  it('keeps the members an allow admits, never a revoked one', () => {
    const active = { ...member, revoked: null };
    const members: MemberInfo[] = [
      { ...active, id: 'n1', attributes: ['team=ops', 'env=prod'] },
      { ...active, id: 'n2', attributes: ['team=ops', 'env=dev'] },
      { ...member, id: 'n3', attributes: ['team=ops', 'env=prod'] },
      { ...active, id: 'n4', attributes: ['db-inlet'] },
    ];
    const ids = (allow: string) => membersAdmitted(members, requirePolicy(allow, '--admitted-by')).map((m) => m.id);
    assert.deepEqual(ids('team = "ops" and env = "prod"'), ['n1']);
    assert.deepEqual(ids('team = "ops" and not env = "prod"'), ['n2']);
    assert.deepEqual(ids('db-inlet or env in ["dev"]'), ['n2', 'n4']);
    assert.throws(
      () => requirePolicy('team = ops', '--admitted-by'),
      (error: Error & { code?: string }) =>
        error.code === 'POLICY_INVALID' && /^--admitted-by is not an allow expression: column 8: /.test(error.message),
    );
  });

  it('aligns the columns and leaves the last one unpadded', () => {
    assert.equal(table(['A', 'BB'], [['long', 'x']]), 'A     BB\nlong  x\n');
  });

  it('shows a revoked member with when, by whom and why, and a connected one with its sessions', () => {
    const text = membersTable([
      member,
      { ...member, id: 'n1111111111111111', connected: true, liveSessions: 3, revoked: null },
    ]);
    const [header, revoked, active] = text.split('\n');
    assert.match(
      header ?? '',
      /^ID +KIND +ATTRIBUTES +RELAYS +ENROLLED +CERTIFICATE EXPIRES +LAST SEEN +SESSIONS +STATUS$/,
    );
    assert.match(
      revoked ?? '',
      /db-inlet .*2026-11-25T09:15:31Z .*revoked 2026-11-25T10:00:01Z by a0123456789abcdef: laptop lost$/,
    );
    assert.match(active ?? '', / connected +3 +active$/);
  });

  it('names each pool: a relay name several active nodes hold, with who is connected', () => {
    const outlet = { ...member, revoked: null, attributes: ['db-outlet'] };
    const text = poolLines([
      { ...outlet, id: 'n-a', relays: ['db'], connected: true },
      { ...outlet, id: 'n-b', relays: ['db', 'cache'] },
      { ...outlet, id: 'n-c', relays: ['cache'], revoked: member.revoked },
      { ...outlet, id: 'n-d', relays: ['web'] },
      { ...outlet, id: 'r-1', kind: 'relay', relays: ['db'] },
    ]);
    assert.equal(
      text,
      '\nPools (relay names several members hold; each that runs an outlet of the name serves it):\n' +
        '  relay name db: 2 members, 1 connected (n-a connected, n-b not connected)\n',
    );
    assert.equal(poolLines([{ ...outlet, relays: ['db'] }]), '', 'no pool, no lines');
  });

  it('never lets a value from the controller move the terminal', () => {
    const text = membersTable([{ ...member, revoked: { ...member.revoked!, reason: 'x\u001b[2Jy\nz' } }]);
    assert.ok(!text.includes('\u001b'));
    assert.equal(text.trimEnd().split('\n').length, 2);
  });

  it('names what each ticket grants, and prints JSON lines for scripts', () => {
    const ticket: TicketInfo = {
      id: 't0123456789abcdef',
      grants: {
        attribute: 'db-outlet',
        attributes: ['db-outlet'],
        relays: ['db', 'cache'],
        tls: false,
        relayNode: false,
        admin: false,
      },
      usesLeft: 2,
      expiresAt: '2026-11-25T19:00:00.000Z',
      issuedAt: '2026-11-25T09:00:00.000Z',
      issuedBy: 'a0123456789abcdef',
    };
    const admin = { ...ticket, id: 't1', grants: { ...ticket.grants, attribute: '', relays: [], admin: true } };
    const several = {
      ...ticket,
      id: 't2',
      grants: { ...ticket.grants, attributes: ['team=ops', 'env=prod'], relays: ['db'] },
    };
    const text = ticketsTable([ticket, admin, several]);
    assert.match(text, /attribute db-outlet, relay db, relay cache +2 /);
    assert.match(text, /^t2 +attribute team=ops,env=prod, relay db +2 /m);
    assert.match(text, /^t1 +administrator /m);
    assert.deepEqual(
      jsonLines([ticket])
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown),
      [ticket],
    );
  });
});
