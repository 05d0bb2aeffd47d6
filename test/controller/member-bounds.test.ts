import assert from 'node:assert/strict';
import { join } from 'node:path';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { PortalError } from '../../src/shared/errors.ts';
import { openControlChannel, type ControlChannel } from '../../src/wire/control-channel.ts';
import { memberConnections } from '../../src/wire/limits.ts';
import { advertsPerConnection, anonymousRate, anonymousRequests } from '../../src/controller/limits.ts';
import { createWorld, type World } from '../support/portal-world.ts';

/** Adverts a project may hold at once (src/controller/inlet-adverts.ts). */
const advertsPerProject = 4096;

describe('controller: what one member, or one connection without a certificate, may hold', function () {
  this.timeout(120_000);
  let world: World;
  let seq = 0;
  const channels: ControlChannel[] = [];

  before(async () => {
    world = await createWorld();
  });

  afterEach(() => channels.splice(0).forEach((channel) => channel.destroy()));

  after(async () => world?.close());

  async function enrolled(attribute: string): Promise<StoredIdentity> {
    return enrollWithTicket(join(world.dir, `member-${++seq}`), await world.ticket({ attribute }));
  }

  async function open(identity: StoredIdentity): Promise<ControlChannel> {
    const channel = await openControlChannel(identity.record, {
      key: identity.privateKey,
      certificate: identity.certificate,
    });
    channels.push(channel);
    return channel;
  }

  /** A channel's outcome: answered, or closed before its answer. */
  const outcome = (request: Promise<unknown>) =>
    request.then(
      () => 'answered',
      (error: unknown) => `refused ${error instanceof PortalError ? error.code : String(error)}`,
    );

  const advert = (via: string) => ({
    via,
    allow: 'app-outlet',
    addresses: ['127.0.0.1:40000'],
    secret: 's'.repeat(32),
    warm: 1,
  });

  it(
    `holds a member to ${memberConnections} control connections: ` + 'the next is closed, a closed one frees its place',
    async () => {
      const member = await enrolled('held-inlet');
      const held = await Promise.all(Array.from({ length: memberConnections }, () => open(member)));
      const next = await outcome(open(member).then((channel) => channel.request('ping', {})));
      assert.match(next, /^refused /, 'one connection past the bound is closed');
      // The member's own connections still answer, and another member is not held by its bound.
      assert.deepEqual(await Promise.all(held.map((channel) => outcome(channel.request('ping', {})))), [
        ...Array<string>(memberConnections).fill('answered'),
      ]);
      assert.equal(await outcome((await open(await enrolled('other-inlet'))).request('ping', {})), 'answered');
      held[0]!.destroy();
      const freed = await (async () => {
        for (const deadline = Date.now() + 5000; Date.now() < deadline;) {
          const answered = await outcome(open(member).then((channel) => channel.request('ping', {})));
          if (answered === 'answered') return answered;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return 'still refused';
      })();
      assert.equal(freed, 'answered', 'the closed connection gave its place back');
    },
  );

  it(`answers ${anonymousRequests} requests on a connection without a member certificate, then closes it`, async () => {
    const channel = await openControlChannel(world.admin.record);
    channels.push(channel);
    const outcomes: string[] = [];
    for (let request = 0; request <= anonymousRequests; request += 1)
      outcomes.push(await outcome(channel.request('ping', {})));
    assert.deepEqual(outcomes.slice(0, anonymousRequests), Array<string>(anonymousRequests).fill('answered'));
    assert.match(outcomes[anonymousRequests] ?? '', /^refused /);
    // A new connection from the same source is served again (within the per-source rate).
    const fresh = await openControlChannel(world.admin.record);
    channels.push(fresh);
    assert.equal(await outcome(fresh.request('ping', {})), 'answered');
  });

  it(
    `holds one source to ${anonymousRate.burst} requests without a certificate at once, ` +
      `then ${anonymousRate.perSecond} a second`,
    async () => {
      // A controller of its own: the requests of the other tests from this source count for nothing here.
      const fresh = await createWorld();
      try {
        const started = performance.now();
        const connections = await Promise.all(
          Array.from({ length: 16 }, () =>
            openControlChannel(fresh.admin.record).then((channel) => {
              channels.push(channel);
              return channel;
            }),
          ),
        );
        const outcomes = await Promise.all(
          connections.map(async (channel) => {
            const answers: string[] = [];
            for (let request = 0; request < anonymousRequests; request += 1) {
              const answer = await outcome(channel.request('ping', {}));
              answers.push(answer);
              if (answer !== 'answered') break;
            }
            return answers;
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        const answered = outcomes.flat().filter((answer) => answer === 'answered').length;
        const refused = outcomes.flat().length - answered;
        // 128 asked for: the burst, and what the rate gave back while they were asked, no more.
        const most = anonymousRate.burst + Math.ceil(anonymousRate.perSecond * seconds);
        assert.ok(answered >= anonymousRate.burst && answered <= most, `${answered} answered in ${seconds} s`);
        assert.ok(refused > 0, 'the rest closed');
      } finally {
        await fresh.close();
      }
    },
  );

  it(
    `keeps one direct path per relay name, ${advertsPerConnection} per connection ` +
      `and ${advertsPerProject} per project (TOO_MANY_INLETS)`,
    async () => {
      const inlet = await open(await enrolled('app-inlet'));
      for (let index = 0; index < advertsPerConnection; index += 1)
        await inlet.request('advertise', advert(`via-${index}`));
      // The same relay name again replaces its advert; a new one is past the connection's bound.
      assert.equal(await outcome(inlet.request('advertise', advert('via-0'))), 'answered');
      assert.equal(await outcome(inlet.request('advertise', advert('via-extra'))), 'refused TOO_MANY_INLETS');
      // Fill the project: members of 16 connections each, each connection at its own bound.
      const connectionsNeeded = advertsPerProject / advertsPerConnection - 1;
      const members = await Promise.all(
        Array.from({ length: Math.ceil(connectionsNeeded / memberConnections) }, () => enrolled('app-inlet')),
      );
      const connections = await Promise.all(
        Array.from({ length: connectionsNeeded }, (_, index) => open(members[Math.floor(index / memberConnections)]!)),
      );
      await Promise.all(
        connections.map(async (connection, at) => {
          for (let index = 0; index < advertsPerConnection; index += 1)
            await connection.request('advertise', advert(`via-${at}-${index}`));
        }),
      );
      const latecomer = await open(await enrolled('app-inlet'));
      assert.equal(await outcome(latecomer.request('advertise', advert('via-late'))), 'refused TOO_MANY_INLETS');
      // A connection that closes takes its adverts with it: the project has room again.
      connections[0]!.destroy();
      const room = await (async () => {
        for (const deadline = Date.now() + 5000; Date.now() < deadline;) {
          const answered = await outcome(latecomer.request('advertise', advert('via-late')));
          if (answered === 'answered') return answered;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return 'still refused';
      })();
      assert.equal(room, 'answered');
    },
  );
});
