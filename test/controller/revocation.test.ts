import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { enrollWithTicket, reissueCertificate, renewCertificate } from '../../src/node/enrollment.ts';
import { loadIdentity, saveCertificate, type StoredIdentity } from '../../src/node/identity-store.ts';
import { createCertificateRequest } from '../../src/pki/authority.ts';
import { identityOf } from '../../src/pki/identity.ts';
import { publicKeyOf } from '../../src/pki/keys.ts';
import { KeptSqlite } from '../../src/controller/store/sqlite.ts';
import { ServiceChannel, callController } from '../../src/wire/control-channel.ts';
import type { ControllerEvent, ControllerOperations, TicketBody } from '../../src/wire/protocol.ts';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { rejectsWith } from '../support/portal-errors.ts';

const as = (identity: StoredIdentity) => ({ key: identity.privateKey, certificate: identity.certificate });

describe('controller: members, revocation, administrators and tickets', () => {
  let world: World;
  let seq = 0;

  before(async () => {
    world = await createWorld();
  });

  after(async () => {
    await world.close();
  });

  const call = <K extends keyof ControllerOperations>(
    identity: StoredIdentity,
    op: K,
    body: Parameters<typeof callController<K>>[2],
  ) => callController(identity.record, op, body, as(identity));

  async function member(attribute = 'db-inlet'): Promise<{ directory: string; identity: StoredIdentity }> {
    const directory = join(world.dir, `member-${++seq}`);
    return { directory, identity: await enrollWithTicket(directory, await world.ticket({ attribute })) };
  }

  async function adminTicket(by: StoredIdentity): Promise<string> {
    const body: TicketBody = { expiresInMs: 3_600_000, usageCount: 1, attribute: '', admin: true };
    return String((await call(by, 'ticket', body)).ticket);
  }

  it('revokes a member: no renewal, no re-issue, no connection, and every member hears of it at once', async () => {
    const { directory, identity } = await member();
    const nodeId = identity.record.nodeId;
    // An expired certificate for the re-issue path, signed before the revocation.
    const request = createCertificateRequest(identity.privateKey, publicKeyOf(identity.privateKey), 'portal-node');
    const subject = identityOf(identity.certificate);
    assert.ok(subject);
    const old = await world.controller.service.renew(subject, request, Date.now() - 3_600_000);
    // A bystander connected before the revocation, listening for pushed events.
    const bystander = (await member('db-outlet')).identity;
    const listening = await ServiceChannel.open<ControllerOperations>(
      { service: 'control', address: bystander.record.controller, fingerprint: bystander.record.fingerprint },
      as(bystander),
    );
    const heard = new Promise<ControllerEvent>((resolve) => listening.once('event', resolve));
    // The member itself, connected: its connection is closed by the revocation.
    const own = await ServiceChannel.open<ControllerOperations>(
      { service: 'control', address: identity.record.controller, fingerprint: identity.record.fingerprint },
      as(identity),
    );
    const ownClosed = new Promise<void>((resolve) => own.once('close', () => resolve()));
    try {
      const { revoked } = await call(world.admin, 'revoke', { member: nodeId, reason: 'laptop lost' });
      assert.equal(revoked.nodeId, nodeId);
      assert.ok(revoked.until >= Date.parse(new X509Certificate(identity.certificate).validTo));
      assert.deepEqual(await heard, { event: 'revoked', revoked: [revoked] });
      await ownClosed;
      assert.deepEqual((await call(bystander, 'revocations', {})).revoked, [revoked]);
    } finally {
      listening.close();
      own.destroy();
    }
    await rejectsWith(renewCertificate(directory, identity), 'NOT_AUTHENTICATED');
    await rejectsWith(world.controller.service.renew(subject, request), 'MEMBER_REVOKED');
    await saveCertificate(directory, old.certificate);
    await rejectsWith(reissueCertificate(directory, { ...identity, certificate: old.certificate }), 'MEMBER_REVOKED');
    assert.equal((await loadIdentity(directory))?.certificate, old.certificate, 'nothing new stored');
    await rejectsWith(call(identity, 'relays', {}), 'NOT_AUTHENTICATED');
    await rejectsWith(call(world.admin, 'revoke', { member: nodeId, reason: '' }), 'MEMBER_REVOKED');
    await rejectsWith(call(world.admin, 'revoke', { member: 'n0000000000000000', reason: '' }), 'MEMBER_UNKNOWN');
    await rejectsWith(call(bystander, 'revoke', { member: bystander.record.nodeId, reason: '' }), 'NOT_ADMIN');

    const listed = (await call(world.admin, 'members', {})).members;
    const shown = listed.find((entry) => entry.id === nodeId);
    assert.equal(shown?.revoked?.reason, 'laptop lost');
    assert.equal(shown?.revoked?.by, world.admin.record.nodeId);
    assert.deepEqual(shown?.attributes, ['db-inlet']);
    const several = await member('team=ops,env=prod');
    const again = (await call(world.admin, 'members', {})).members;
    assert.deepEqual(again.find((entry) => entry.id === several.identity.record.nodeId)?.attributes, [
      'team=ops',
      'env=prod',
    ]);
    assert.equal(listed.find((entry) => entry.id === world.admin.record.nodeId)?.kind, 'administrator');
    assert.equal(listed.find((entry) => entry.id === bystander.record.nodeId)?.revoked, null);
  });

  it('lists the tickets that can still be used, never their secrets, and cancels one before use', async () => {
    const admin = world.admin;
    const text = await world.ticket({ attribute: 'cancelled-inlet,env=dev', usageCount: 3 });
    const { ticketId, secret } = decodeTicket(text);
    const { tickets } = await call(admin, 'tickets', {});
    const listed = tickets.find((ticket) => ticket.id === ticketId);
    assert.deepEqual(listed?.grants, {
      attribute: 'cancelled-inlet',
      attributes: ['cancelled-inlet', 'env=dev'],
      relays: [],
      tls: false,
      relayNode: false,
      admin: false,
    });
    assert.equal(listed?.usesLeft, 3);
    assert.equal(listed?.issuedBy, admin.record.nodeId);
    assert.ok(!JSON.stringify(tickets).includes(secret), 'no secret in the listing');
    const membersBefore = (await call(admin, 'members', {})).members.length;
    await call(admin, 'ticket-cancel', { ticket: ticketId });
    await rejectsWith(enrollWithTicket(join(world.dir, 'too-late'), text), 'TICKET_CANCELLED');
    assert.equal((await call(admin, 'members', {})).members.length, membersBefore, 'nobody enrolled');
    assert.equal(
      (await call(admin, 'tickets', {})).tickets.find((ticket) => ticket.id === ticketId),
      undefined,
    );
    await rejectsWith(call(admin, 'ticket-cancel', { ticket: ticketId }), 'TICKET_UNKNOWN');
    const database = await KeptSqlite.open(join(world.dir, 'controller', 'controller.db'));
    try {
      const [row] = database.all<{ uses_left: number; cancelled_at: number | null }>(
        'SELECT uses_left, cancelled_at FROM tickets WHERE id = ?',
        ticketId,
      );
      assert.equal(row?.uses_left, 0);
      assert.ok(row?.cancelled_at !== null && row?.cancelled_at !== undefined);
    } finally {
      database.close();
    }
  });

  it('enrolls more administrators with an admin ticket, and never revokes the last one', async () => {
    const second = await enrollWithTicket(join(world.dir, 'admin-2'), await adminTicket(world.admin));
    assert.equal(second.record.nodeId.startsWith('a'), true);
    assert.equal(identityOf(second.certificate)?.admin, true);
    // The second administrator may do what the first does.
    await call(second, 'project', {});
    const third = await enrollWithTicket(join(world.dir, 'admin-3'), await adminTicket(second));
    await call(third, 'revoke', { member: second.record.nodeId, reason: 'left the team' });
    await rejectsWith(call(second, 'project', {}), 'NOT_AUTHENTICATED');
    // The first and the third remain: the third may go, then the first is the last.
    await call(world.admin, 'revoke', { member: third.record.nodeId, reason: '' });
    await rejectsWith(
      call(world.admin, 'revoke', { member: world.admin.record.nodeId, reason: '' }),
      'SELF_REVOCATION',
    );
    // Two administrators revoke each other: the first to commit wins, the other is refused.
    const fourth = await enrollWithTicket(join(world.dir, 'admin-4'), await adminTicket(world.admin));
    const both = await Promise.allSettled([
      call(world.admin, 'revoke', { member: fourth.record.nodeId, reason: '' }),
      call(fourth, 'revoke', { member: world.admin.record.nodeId, reason: '' }),
    ]);
    assert.equal(both.filter((result) => result.status === 'fulfilled').length, 1, JSON.stringify(both));
    const left = (await call(world.admin, 'members', {}).catch(() => call(fourth, 'members', {}))).members;
    assert.equal(left.filter((entry) => entry.kind === 'administrator' && entry.revoked === null).length, 1);
  });

  it('takes back no revocation a member forges: only entries with its own proof, at most 1,000 a request', async () => {
    const reporter = (await member()).identity;
    const victim = (await member()).identity;
    const revokedOne = (await member()).identity;
    const { revoked } = await call(world.admin, 'revoke', { member: revokedOne.record.nodeId, reason: 'test' });
    assert.match(revoked.proof ?? '', /^[A-Za-z0-9_-]{43}$/, 'the controller proves what it revoked');
    const victimId = victim.record.nodeId;
    const until = Date.now() + 3_600_000;
    const forged = [
      { nodeId: victimId, until },
      { nodeId: victimId, until, proof: 'A'.repeat(43) },
      // A genuine proof moved onto another member, or onto another date.
      { nodeId: victimId, until: revoked.until, proof: revoked.proof! },
      { nodeId: revokedOne.record.nodeId, until: revoked.until + 1, proof: revoked.proof! },
      ...Array.from({ length: 1500 }, (_, index) => ({
        nodeId: victimId,
        until: until + index,
        proof: revoked.proof!,
      })),
    ];
    const before = (await call(reporter, 'revocations', {})).revoked;
    const started = Date.now();
    assert.equal((await call(reporter, 'revocations-return', { revoked: forged })).taken, 0);
    assert.ok(Date.now() - started < 5000, 'a bounded request');
    // The genuine entry the controller knows already changes nothing either.
    assert.equal((await call(reporter, 'revocations-return', { revoked: [revoked] })).taken, 0);
    const listed = (await call(reporter, 'revocations', {})).revoked;
    assert.deepEqual(listed, before, 'the list is as it was');
    assert.equal(
      listed.some((entry) => entry.nodeId === victimId),
      false,
    );
    assert.ok((await call(victim, 'relays', {})).relays, 'the victim is served as before');
  });
});
