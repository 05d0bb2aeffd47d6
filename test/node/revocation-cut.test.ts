import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger } from '../../src/node/logger.ts';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import { callController } from '../../src/wire/control-channel.ts';
import { inletPortWhenUp, showOf, until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { roundTrip, startEchoServer } from '../support/tcp.ts';

const quiet = createLogger({ enabled: process.env.PORTAL_TEST_LOG === '1', level: 'debug' });

describe('node (in process): what it cut when a peer is revoked', function () {
  this.timeout(60_000);
  let world: World;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  const nodes: RunningNode[] = [];

  before(async () => {
    world = await createWorld();
    echo = await startEchoServer();
  });

  after(async () => {
    for (const node of nodes) await node.stop();
    await echo.close();
    await world.close();
  });

  it('closes its session and warm streams with a revoked inlet, and records revoked-cut with how many', async () => {
    const outlet = await startNode({
      home: join(world.dir, 'outlet'),
      ticket: await world.ticket({ attribute: 'cut-outlet', relay: 'cut' }),
      logger: quiet,
      config: {
        'http-server-port': 0,
        relay: 'cut',
        'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'cut-inlet' },
      },
    });
    nodes.push(outlet);
    const inlet = await startNode({
      home: join(world.dir, 'inlet'),
      ticket: await world.ticket({ attribute: 'cut-inlet' }),
      logger: quiet,
      config: { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'cut', allow: 'cut-outlet' } },
    });
    nodes.push(inlet);
    const port = await inletPortWhenUp(inlet);
    assert.equal((await roundTrip(port, Buffer.from('before'))).toString(), 'before');
    // On the direct path the outlet holds the connections itself (through a relay, the relay cuts them first
    // and the trail has them in the revocation's record).
    await until(async () => {
      const shown = (await showOf(inlet)).inlets[0];
      return shown?.path === 'direct' && shown.warm_streams === 2 ? true : undefined;
    }, 'a direct session and its warm streams');
    const inletId = (await showOf(inlet)).identity.node_id;
    const outletId = (await showOf(outlet)).identity.node_id;

    const admin = { key: world.admin.privateKey, certificate: world.admin.certificate };
    await callController(world.admin.record, 'revoke', { member: inletId, reason: 'stolen' }, admin);
    const cut = await until(
      async () => {
        const { records } = await world.controller.service.audit.query(world.admin.record.projectId, {
          afterSeq: 0,
          limit: 200,
          since: 0,
          event: 'revoked-cut',
        });
        return records.find((record) => record.seenBy === outletId);
      },
      "the outlet's record of what it cut",
      20_000,
    );
    assert.deepEqual(JSON.parse(cut.members), [inletId]);
    // The session and the two warm streams at least (the inlet may have opened more meanwhile).
    const details = JSON.parse(cut.details) as { connections: number };
    assert.ok(details.connections >= 3, `${details.connections} connections cut`);
  });
});
