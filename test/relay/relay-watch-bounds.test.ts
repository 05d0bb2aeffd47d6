import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger } from '../../src/node/logger.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import { startRelayNode, type RunningRelayNode } from '../../src/relay/relay-node.ts';
import { callController, ServiceChannel } from '../../src/wire/control-channel.ts';
import type { RelayOperations } from '../../src/wire/protocol.ts';
import { rejectsWith } from '../support/portal-errors.ts';
import { createWorld, type World } from '../support/portal-world.ts';

describe('relay node: what watching pools may cost it', function () {
  this.timeout(30_000);
  let world: World;
  let relay: RunningRelayNode | undefined;

  before(async () => {
    world = await createWorld();
  });
  after(async () => {
    await relay?.stop();
    await world.close();
  });

  it('holds a connection to 64 watched relay names, and a watch of another member is still answered', async () => {
    const admin = { key: world.admin.privateKey, certificate: world.admin.certificate };
    const relayTicket = await callController(
      world.admin.record,
      'ticket',
      { expiresInMs: 60_000, usageCount: 1, attribute: '', tls: false, relayNode: true },
      admin,
    );
    relay = await startRelayNode({
      home: join(world.dir, 'relay-home'),
      ticket: String(relayTicket.ticket),
      listen: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ enabled: false }),
    });
    const target = { service: 'relay' as const, address: relay.address, fingerprint: relay.fingerprint };
    const open = async (attribute: string) => {
      const member = await enrollWithTicket(join(world.dir, attribute), await world.ticket({ attribute }));
      return ServiceChannel.open<RelayOperations>(target, { key: member.privateKey, certificate: member.certificate });
    };
    const flooder = await open('flood-inlet');
    try {
      for (let i = 0; i < 64; i += 1)
        assert.deepEqual((await flooder.request('watch', { relay: `name-${i}`, allow: 'any-outlet' })).outlets, []);
      // Asking again for a name it watches replaces that watch: no more room taken.
      await flooder.request('watch', { relay: 'name-0', allow: 'any-outlet' });
      await rejectsWith(flooder.request('watch', { relay: 'name-64', allow: 'any-outlet' }), 'TOO_MANY_WATCHES');
      const other = await open('other-inlet');
      try {
        assert.deepEqual((await other.request('watch', { relay: 'name-64', allow: 'any-outlet' })).outlets, []);
      } finally {
        other.destroy();
      }
    } finally {
      flooder.destroy();
    }
  });
});
