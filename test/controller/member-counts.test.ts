import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memberCounts } from '../../src/controller/member-counts.ts';
import { openStore, type Store } from '../../src/controller/store/open.ts';

describe('controller: member counts for portal_controller_members', () => {
  let work: string;
  let store: Store;
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'portal-member-counts-'));
    store = await openStore(`sqlite:${join(work, 'controller.db')}`);
    await store
      .insertInto('projects')
      .values({
        id: 'p1',
        name: 'p',
        network_domain: 'p.portal',
        ca_certificate: '',
        ca_private_key: '',
        created_at: 0,
      })
      .execute();
  });
  after(async () => {
    await store.destroy();
    await rm(work, { recursive: true, force: true });
  });

  const member = (nodeId: string, kind: { admin?: boolean; relayNode?: boolean } = {}) =>
    store
      .insertInto('members')
      .values({
        node_id: nodeId,
        project_id: 'p1',
        attribute: null,
        relay: null,
        tls: 0,
        admin: kind.admin ? 1 : 0,
        relay_node: kind.relayNode ? 1 : 0,
        ticket_id: null,
        enrolled_at: 0,
      })
      .execute();

  const revoke = (nodeId: string) =>
    store
      .insertInto('revocations')
      .values({
        node_id: nodeId,
        project_id: 'p1',
        revoked_at: 1,
        revoked_by: 'a1',
        reason: 'lost',
        certificate_expires_at: 2,
      })
      .execute();

  it('counts each kind, and a revoked member of any kind as revoked only', async () => {
    assert.deepEqual(await memberCounts(store), { admin: 0, node: 0, relay: 0, revoked: 0 });
    await member('a1', { admin: true });
    await member('a2', { admin: true });
    await member('n1');
    await member('n2');
    await member('n3');
    await member('r1', { relayNode: true });
    await revoke('a2');
    await revoke('n1');
    await revoke('n2');
    assert.deepEqual(await memberCounts(store), { admin: 1, node: 1, relay: 1, revoked: 3 });
  });
});
