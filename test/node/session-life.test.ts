/**
 * A session is judged for its whole life (in process: a real controller and relay, a real outlet node,
 * and an inlet that runs its own code with its own enrolled key over real TLS):
 * - an inlet that completes TLS and holds back its verdict until after it is revoked is cut by the
 *   revocation and never reaches the target, on the direct path and through the relay;
 * - one revoked right after the verdicts is cut within a second;
 * (Certificate expiry over a session's life: session-expiry.test.ts.)
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { createLogger } from '../../src/node/logger.ts';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import { callController } from '../../src/wire/control-channel.ts';
import { craftedChannel, directRaw, relayedRaw, type CraftedChannel } from '../support/crafted-inlet.ts';
import { showOf, until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';

type Path = 'direct' | 'relayed';

/** A target that echoes and counts the connections the outlet opens to it. */
async function countingTarget(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.on('error', () => socket.destroy());
    socket.pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port, connections: () => connections };
}

function capturingLogger(lines: string[]) {
  return createLogger({
    level: 'debug',
    write: (line) => {
      lines.push(line);
      if (process.env.PORTAL_TEST_LOG === '1') process.stderr.write(line);
    },
  });
}

describe('session life (in process): revocation and certificate expiry at any moment of a session', function () {
  this.timeout(120_000);

  describe('a revoked inlet cannot outwait its revocation', () => {
    let world: World;
    let target: Awaited<ReturnType<typeof countingTarget>>;
    let outlet: RunningNode;
    const outletLines: string[] = [];
    let seq = 0;

    before(async () => {
      world = await createWorld();
      target = await countingTarget();
      outlet = await startNode({
        home: join(world.dir, 'outlet'),
        ticket: await world.ticket({ attribute: 'life-outlet', relay: 'life' }),
        logger: capturingLogger(outletLines),
        config: {
          'http-server-port': 0,
          relay: 'life',
          'tcp-outlet': { to: `127.0.0.1:${target.port}`, allow: 'life-inlet' },
        },
      });
      await until(async () => ((await showOf(outlet)).outlets[0]?.status === 'up' ? true : undefined), 'outlet up');
    });

    after(async () => {
      await outlet?.stop();
      target?.server.close();
      await world?.close();
    });

    const revoke = (identity: StoredIdentity) =>
      callController(
        world.admin.record,
        'revoke',
        { member: identity.record.nodeId, reason: 'stolen laptop' },
        { key: world.admin.privateKey, certificate: world.admin.certificate },
      );

    /** A crafted inlet's channel to the outlet on `path`, verdict held back; `close` ends what it opened. */
    async function craftedOn(
      path: Path,
    ): Promise<{ identity: StoredIdentity; channel: CraftedChannel; close(): Promise<void> }> {
      const identity = await enrollWithTicket(
        join(world.dir, `crafted-${++seq}`),
        await world.ticket({ attribute: 'life-inlet' }),
      );
      if (path === 'relayed') {
        const raw = await until(() => relayedRaw(identity, 'life', 'life-outlet'), 'a splice to the outlet');
        const channel = await craftedChannel(raw, identity);
        return {
          identity,
          channel,
          close: () => {
            channel.socket.destroy();
            return Promise.resolve();
          },
        };
      }
      const direct = await directRaw(identity, 'life', 'life-outlet');
      const channel = await craftedChannel(direct.raw, identity);
      return {
        identity,
        channel,
        close: async () => {
          channel.socket.destroy();
          await direct.close();
        },
      };
    }

    for (const path of ['direct', 'relayed'] as const) {
      it(`cuts, on the ${path} path, an inlet holding its verdict back past revoke: no target connection`, async () => {
        const before = target.connections();
        const crafted = await craftedOn(path);
        try {
          // The outlet judged the inlet (not revoked yet) and said so; the inlet says nothing yet.
          assert.match(await crafted.channel.outletVerdict, /"accept":true/);
          await revoke(crafted.identity);
          const returned = Date.now();
          const closedAt = await Promise.race([
            crafted.channel.closedAt,
            new Promise<number>((resolve) => setTimeout(() => resolve(Number.NaN), 5000)),
          ]);
          const cutMs = closedAt - returned;
          console.log(`      ${path}: verdict held back; cut ${cutMs} ms after revoke returned`);
          assert.ok(cutMs <= 1000, `the outlet still held the session ${cutMs} ms after revoke returned`);
          // What it would have sent next goes nowhere: the connection is gone.
          assert.equal(crafted.channel.sendVerdict('life-outlet', ['life-outlet']), false);
          assert.equal(crafted.channel.openStream(1, Buffer.from('hello')), false);
          assert.equal(target.connections(), before, 'no target connection for a revoked inlet');
          await until(
            () =>
              outletLines.some((line) =>
                line.includes(`revoked from the project during the handshake (${crafted.identity.record.nodeId})`),
              )
                ? true
                : undefined,
            'the outlet naming the refusal',
          );
        } finally {
          await crafted.close();
        }
      });

      it(`cuts, on the ${path} path, an inlet revoked right after the verdicts within 1 s`, async () => {
        const crafted = await craftedOn(path);
        try {
          await crafted.channel.outletVerdict;
          assert.ok(crafted.channel.sendVerdict('life-outlet', ['life-outlet']));
          // The session is open: a stream reaches the target.
          const before = target.connections();
          assert.ok(crafted.channel.openStream(1, Buffer.from('hello')));
          await until(() => (target.connections() > before ? true : undefined), 'the first stream at the target');
          await revoke(crafted.identity);
          const returned = Date.now();
          const closedAt = await Promise.race([
            crafted.channel.closedAt,
            new Promise<number>((resolve) => setTimeout(() => resolve(Number.NaN), 5000)),
          ]);
          console.log(`      ${path}: revoked after the verdicts; cut ${closedAt - returned} ms after revoke returned`);
          assert.ok(closedAt - returned <= 1000, `cut ${closedAt - returned} ms after revoke returned`);
          assert.equal(crafted.channel.openStream(3, Buffer.from('again')), false);
        } finally {
          await crafted.close();
        }
      });
    }
  });
});
