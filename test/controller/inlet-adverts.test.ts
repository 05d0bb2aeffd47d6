import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import type { ControllerEvent, InletAdvert } from '../../src/wire/protocol.ts';
import { createWorld, type World } from '../support/portal-world.ts';

/** A member's control channel and the direct-path events pushed on it. */
interface Listener {
  readonly identity: StoredIdentity;
  readonly channel: ControlChannel;
  readonly events: ControllerEvent[];
}

describe("controller: an inlet's direct path reaches only the outlets it would accept", () => {
  let world: World;
  let seq = 0;
  const channels: ControlChannel[] = [];

  before(async () => {
    world = await createWorld();
  });

  afterEach(() => channels.splice(0).forEach((channel) => channel.destroy()));

  after(async () => world?.close());

  async function enrolled(attribute: string, relay?: string): Promise<StoredIdentity> {
    return enrollWithTicket(
      join(world.dir, `member-${++seq}`),
      await world.ticket({ attribute, ...(relay ? { relay } : {}) }),
    );
  }

  async function listen(identity: StoredIdentity): Promise<Listener> {
    const channel = await openControlChannel(identity.record, {
      key: identity.privateKey,
      certificate: identity.certificate,
    });
    channels.push(channel);
    const events: ControllerEvent[] = [];
    channel.on('event', (event: ControllerEvent) => {
      if (event.event === 'inlet' || event.event === 'inlet-gone') events.push(event);
    });
    return { identity, channel, events };
  }

  async function until(check: () => boolean, what: string): Promise<void> {
    for (const deadline = Date.now() + 5000; !check(); await new Promise((resolve) => setTimeout(resolve, 10))) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    }
  }

  /** Every event the controller pushed before now has arrived: an answer follows them on the same connection. */
  const settled = (listeners: readonly Listener[]) =>
    Promise.all(listeners.map((listener) => listener.channel.request('ping', {})));

  const inlets = async (listener: Listener) => (await listener.channel.request('inlets', {})).inlets;

  it(
    'hands the advert, as events and as the inlets answer, ' +
      'to a member granted the relay name with the attribute the inlet allows, and to no other',
    async () => {
      const app = await listen(await enrolled('app-outlet', 'app'));
      const rogue = await listen(await enrolled('rogue', 'app'));
      const elsewhere = await listen(await enrolled('app-outlet', 'other'));
      const inlet = await listen(await enrolled('app-inlet'));
      const secret = 's'.repeat(32);
      await inlet.channel.request('advertise', {
        via: 'app',
        allow: 'app-outlet',
        addresses: ['127.0.0.1:40000'],
        secret,
        warm: 2,
      });
      const advert: InletAdvert = {
        inlet: inlet.identity.record.nodeId,
        attributes: ['app-inlet'],
        via: 'app',
        addresses: ['127.0.0.1:40000'],
        secret,
        warm: 2,
      };

      await until(() => app.events.length > 0, "the app outlet's event");
      await settled([app, rogue, elsewhere, inlet]);
      assert.deepEqual(app.events, [{ event: 'inlet', advert }]);
      assert.deepEqual(rogue.events, [], 'the relay name with another attribute pushes nothing');
      assert.deepEqual(elsewhere.events, [], 'the attribute with another relay name pushes nothing');
      assert.deepEqual(inlet.events, []);

      assert.deepEqual(await inlets(app), [advert]);
      assert.deepEqual(await inlets(rogue), []);
      assert.deepEqual(await inlets(elsewhere), []);
      assert.deepEqual(await inlets(inlet), []);

      inlet.channel.destroy();
      await until(() => app.events.length > 1, "the app outlet's inlet-gone");
      await settled([app, rogue, elsewhere]);
      assert.deepEqual(app.events, [
        { event: 'inlet', advert },
        { event: 'inlet-gone', inlet: advert.inlet },
      ]);
      assert.deepEqual(rogue.events, []);
      assert.deepEqual(elsewhere.events, []);
      assert.deepEqual(await inlets(app), []);
    },
  );

  it(
    'tells the members that heard of an advert that it is gone ' + 'when the inlet advertises again with another allow',
    async () => {
      const app = await listen(await enrolled('app-outlet', 'app'));
      const db = await listen(await enrolled('db-outlet', 'app'));
      const identity = await enrolled('app-inlet');
      const first = await listen(identity);
      const body = { via: 'app', addresses: ['127.0.0.1:40001'], secret: 't'.repeat(32), warm: 1 };
      await first.channel.request('advertise', { ...body, allow: 'app-outlet' });
      const second = await listen(identity);
      await second.channel.request('advertise', { ...body, allow: 'db-outlet' });
      const advert: InletAdvert = { inlet: identity.record.nodeId, attributes: ['app-inlet'], ...body };
      await settled([app, db]);
      assert.deepEqual(app.events, [
        { event: 'inlet', advert },
        { event: 'inlet-gone', inlet: advert.inlet },
      ]);
      assert.deepEqual(db.events, [{ event: 'inlet', advert }]);
      assert.deepEqual(await inlets(app), []);
      assert.deepEqual(await inlets(db), [advert]);
    },
  );

  it('hands an advert whose allow is an expression only to the members it admits', async () => {
    const prod = await listen(await enrolled('team=ops,env=prod', 'app'));
    const dev = await listen(await enrolled('team=ops,env=dev', 'app'));
    const inlet = await listen(await enrolled('app-inlet'));
    const body = { via: 'app', addresses: ['127.0.0.1:40003'], secret: 'v'.repeat(32), warm: 1 };
    await inlet.channel.request('advertise', { ...body, allow: 'team = "ops" and env in ["prod", "staging"]' });
    const advert: InletAdvert = { inlet: inlet.identity.record.nodeId, attributes: ['app-inlet'], ...body };
    await until(() => prod.events.length > 0, "the prod outlet's event");
    await settled([prod, dev]);
    assert.deepEqual(prod.events, [{ event: 'inlet', advert }]);
    assert.deepEqual(dev.events, [], 'env=dev is not admitted');
    assert.deepEqual(await inlets(dev), []);
  });

  it('refuses an advert without allow, or with one that is not an allow expression', async () => {
    const inlet = await listen(await enrolled('app-inlet'));
    const body = { via: 'app', addresses: ['127.0.0.1:40002'], secret: 'u'.repeat(32), warm: 1 };
    const codeOf = (promise: Promise<unknown>) =>
      promise.then(
        () => 'ACCEPTED',
        (error: unknown) => (error instanceof PortalError ? error.code : String(error)),
      );
    assert.equal(await codeOf(inlet.channel.request('advertise', body as never)), 'ALLOW_MISSING');
    assert.equal(await codeOf(inlet.channel.request('advertise', { ...body, allow: 'App Outlet' })), 'POLICY_INVALID');
    assert.equal(await codeOf(inlet.channel.request('advertise', { ...body, allow: 'team = ' })), 'POLICY_INVALID');
    assert.equal(await codeOf(inlet.channel.request('advertise', { ...body, via: 'App', allow: 'a' })), 'BAD_REQUEST');
    const app = await listen(await enrolled('app-outlet', 'app'));
    assert.deepEqual(await inlets(app), [], 'nothing refused was recorded');
  });

  it('passes a crafted advert of 40 addresses on with its first 16 only', async () => {
    const app = await listen(await enrolled('app-outlet', 'app'));
    const inlet = await listen(await enrolled('app-inlet'));
    const many = Array.from({ length: 40 }, (_, index) => `10.0.0.${index + 1}:22`);
    await inlet.channel.request('advertise', {
      via: 'app',
      allow: 'app-outlet',
      addresses: many,
      secret: 'w'.repeat(32),
      warm: 1,
    });
    await until(() => app.events.length > 0, "the outlet's event");
    const [heard] = await inlets(app);
    assert.deepEqual(heard?.addresses, many.slice(0, 16), 'a list of texts on the wire keeps 16 at most');
  });
});
