/** The overview's background check of the audit chain: it follows new records, and finds a changed one. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ChainWatch } from '../../src/controller/console/chain-watch.ts';
import { problemsOf } from '../../src/controller/console/problems.ts';
import { openStore } from '../../src/controller/store/open.ts';
import { createWorld, type World } from '../support/portal-world.ts';

describe("console: the overview's check of the audit chain", () => {
  let world: World;
  const admin = () => ({
    ...world.admin.record,
    attributes: [],
    relays: [],
    admin: true,
    tls: false,
    relayNode: false,
  });

  before(async () => {
    world = await createWorld();
  });
  after(() => world.close());

  it('checks in the background, follows records written since, and finds one changed on its next pass', async () => {
    const { service } = world.controller;
    const chains = new ChainWatch((who, query) => service.audit.query(who.projectId, query), 60_000);
    for (const attribute of ['one', 'two']) await world.ticket({ attribute });
    assert.equal(chains.state(admin()).kind, 'checking', 'the first view does not wait');
    await chains.settled();
    const first = chains.state(admin());
    assert.equal(first.kind, 'whole');
    const through = first.kind === 'whole' ? first.through : 0;
    assert.ok(through >= 3, `through record ${through}`);

    await world.ticket({ attribute: 'three' });
    chains.state(admin());
    await chains.settled();
    const followed = chains.state(admin());
    assert.deepEqual([followed.kind, followed.kind === 'whole' && followed.through], ['whole', through + 1]);

    const store = await openStore(`sqlite:${join(world.dir, 'controller', 'controller.db')}`);
    try {
      await store.updateTable('audit_records').set({ details: '{"tampered":true}' }).where('seq', '=', 2).execute();
    } finally {
      await store.destroy();
    }
    // Records already checked are read again only by the next pass.
    chains.state(admin());
    await chains.settled();
    assert.equal(chains.state(admin()).kind, 'whole');
    await chains.settled();
    // A minute on, the next pass reads every record again.
    chains.state(admin(), Date.now() + 61_000);
    await chains.settled();
    const broken = chains.state(admin());
    assert.equal(broken.kind, 'broken', JSON.stringify(broken));
    assert.match(broken.kind === 'broken' ? broken.what : '', /^record 2 was changed after it was written/);
    const problems = problemsOf({ members: [], relays: [], portals: [], chain: broken }, Date.now());
    assert.match(problems[0]?.what ?? '', /^The audit trail does not verify: record 2 was changed/);
  });
});
