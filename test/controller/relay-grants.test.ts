import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enrollWithTicket, renewCertificate } from '../../src/node/enrollment.ts';
import { loadIdentity, type StoredIdentity } from '../../src/node/identity-store.ts';
import { identityOf } from '../../src/pki/identity.ts';
import { callController } from '../../src/wire/control-channel.ts';
import type { ControllerOperations } from '../../src/wire/protocol.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { rejectsWith } from '../support/portal-errors.ts';

const as = (identity: StoredIdentity) => ({ key: identity.privateKey, certificate: identity.certificate });

describe('controller: an administrator grants an enrolled node more relay names', () => {
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

  async function member(
    flags: { attribute: string; relay?: string } = { attribute: 'db-outlet', relay: 'db' },
  ): Promise<{ directory: string; identity: StoredIdentity }> {
    const directory = join(world.dir, `member-${++seq}`);
    return { directory, identity: await enrollWithTicket(directory, await world.ticket(flags)) };
  }

  async function relayNode(): Promise<StoredIdentity> {
    const body = { expiresInMs: 3_600_000, usageCount: 1, attribute: '', relayNode: true };
    const ticket = String((await call(world.admin, 'ticket', body)).ticket);
    return enrollWithTicket(join(world.dir, `relay-${++seq}`), ticket);
  }

  it('adds the names to the old ones; the next certificate and the stored record carry them', async () => {
    const { directory, identity } = await member();
    const nodeId = identity.record.nodeId;
    const answer = ({
      member,
      added,
      relays,
    }: {
      member: string;
      added: readonly string[];
      relays: readonly string[];
    }) => ({
      member,
      added,
      relays,
    });
    const granted = answer(await call(world.admin, 'grant', { member: nodeId, relay: 'cache,queue' }));
    assert.deepEqual(granted, { member: nodeId, added: ['cache', 'queue'], relays: ['db', 'cache', 'queue'] });
    // Asked again with one held and one new: only the new one is added, the old grants stay.
    const again = answer(await call(world.admin, 'grant', { member: nodeId, relay: 'db,web' }));
    assert.deepEqual(again, { member: nodeId, added: ['web'], relays: ['db', 'cache', 'queue', 'web'] });

    assert.deepEqual(identityOf(identity.certificate)?.relays, ['db'], 'the certificate in hand is unchanged');
    const renewed = await renewCertificate(directory, identity);
    assert.deepEqual(identityOf(renewed.certificate)?.relays, ['db', 'cache', 'queue', 'web']);
    assert.deepEqual(identityOf(renewed.certificate)?.attributes, ['db-outlet']);
    assert.deepEqual(renewed.record.relays, ['db', 'cache', 'queue', 'web']);
    assert.deepEqual((await loadIdentity(directory))?.record.relays, ['db', 'cache', 'queue', 'web']);

    const { members } = await call(world.admin, 'members', {});
    assert.deepEqual(members.find((entry) => entry.id === nodeId)?.relays, ['db', 'cache', 'queue', 'web']);
    const { records } = await world.controller.service.audit.query(world.admin.record.projectId, {
      afterSeq: 0,
      limit: 200,
      since: 0,
      event: 'relay-granted',
    });
    const adminId = world.admin.record.nodeId;
    assert.deepEqual(
      records
        .filter((record) => (JSON.parse(record.members) as string[])[0] === nodeId)
        .map((record) => [record.seenBy, JSON.parse(record.members) as unknown, JSON.parse(record.details) as unknown]),
      [
        ['controller', [nodeId, adminId], { relays: 'cache,queue', by: adminId }],
        ['controller', [nodeId, adminId], { relays: 'web', by: adminId }],
      ],
      'one record per grant that added names, none for the names held already',
    );
  });

  it('is for administrators only: a node cannot grant itself or another a relay name', async () => {
    const { identity } = await member();
    const other = await member();
    await rejectsWith(call(identity, 'grant', { member: identity.record.nodeId, relay: 'everything' }), 'NOT_ADMIN');
    await rejectsWith(call(identity, 'grant', { member: other.identity.record.nodeId, relay: 'x' }), 'NOT_ADMIN');
    const { members } = await call(world.admin, 'members', {});
    assert.deepEqual(members.find((entry) => entry.id === identity.record.nodeId)?.relays, ['db']);
  });

  it('refuses an unknown member, a revoked one, a relay node, an administrator and bad names', async () => {
    await rejectsWith(
      call(world.admin, 'grant', { member: 'n0000000000000000', relay: 'db' }),
      'MEMBER_UNKNOWN',
      /^the project has no member n0000000000000000$/,
    );
    const revoked = await member();
    const revokedId = revoked.identity.record.nodeId;
    await call(world.admin, 'revoke', { member: revokedId, reason: 'gone' });
    await rejectsWith(
      call(world.admin, 'grant', { member: revokedId, relay: 'cache' }),
      'MEMBER_REVOKED',
      new RegExp(`^the member ${revokedId} was revoked from the project$`),
    );
    const relay = await relayNode();
    await rejectsWith(
      call(world.admin, 'grant', { member: relay.record.nodeId, relay: 'cache' }),
      'GRANT_REFUSED',
      /is a relay node, which registers no outlet$/,
    );
    await rejectsWith(
      call(world.admin, 'grant', { member: world.admin.record.nodeId, relay: 'cache' }),
      'GRANT_REFUSED',
      /is an administrator, which registers no outlet$/,
    );
    const { identity } = await member();
    for (const relay of ['', 'Bad Name', 'a,a'])
      await rejectsWith(call(world.admin, 'grant', { member: identity.record.nodeId, relay }), 'BAD_FLAG');
  });

  it('bounds the names a member holds at 16: the grant past it changes nothing', async () => {
    const { identity } = await member();
    const fifteen = Array.from({ length: 15 }, (_, index) => `r${index}`).join(',');
    await call(world.admin, 'grant', { member: identity.record.nodeId, relay: fifteen });
    await rejectsWith(
      call(world.admin, 'grant', { member: identity.record.nodeId, relay: 'one,two' }),
      'BAD_FLAG',
      /holds 16 relay names; 2 more would pass the bound of 16$/,
    );
    const { members } = await call(world.admin, 'members', {});
    assert.equal(members.find((entry) => entry.id === identity.record.nodeId)?.relays.length, 16);
  });
});
