import assert from 'node:assert/strict';
import { join } from 'node:path';
import { boundsWithin, defaultConnectionBounds, descriptorLimitOf } from '../../src/node/connection-bounds.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import { createLogger } from '../../src/node/logger.ts';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import { inletPortWhenUp, showOf, until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { floodStreams } from '../support/stream-flood.ts';
import { roundTrip, startEchoServer } from '../support/tcp.ts';

describe('outlet: target connections per inlet and in all (a member that opens streams without end)', function () {
  this.timeout(60_000);
  let world: World;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let outlet: RunningNode;
  let inlet: RunningNode;
  let port: number;
  const warnings: string[] = [];
  const bounds = { perInlet: 40, total: 70 };

  before(async () => {
    world = await createWorld();
    echo = await startEchoServer();
    const logger = createLogger({ enabled: false, level: 'warn' });
    const recording = { ...logger, warn: (line: string) => warnings.push(line) };
    outlet = await startNode({
      home: join(world.dir, 'outlet'),
      ticket: await world.ticket({ attribute: 'app-outlet', relay: 'app' }),
      logger: recording,
      connectionBounds: bounds,
      config: {
        'http-server-port': 0,
        relay: 'app',
        'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'app-inlet' },
      },
    });
    inlet = await startNode({
      home: join(world.dir, 'inlet'),
      ticket: await world.ticket({ attribute: 'app-inlet' }),
      logger,
      config: { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'app', allow: 'app-outlet' } },
    });
    port = await inletPortWhenUp(inlet);
    await until(
      async () => ((await showOf(inlet)).inlets[0]?.session === 'open' ? true : undefined),
      'the inlet session',
    );
  });

  after(async () => {
    await inlet?.stop();
    await outlet?.stop();
    await echo?.close();
    await world?.close();
  });

  const attacker = async (name: string) =>
    enrollWithTicket(join(world.dir, name), await world.ticket({ attribute: 'app-inlet' }));

  it(
    "dials the target for at most its bound of one inlet's streams, refuses the rest as stream errors, " +
      'and serves other inlets meanwhile',
    async () => {
      const flooding = await floodStreams(
        await attacker('flooder-a'),
        world.controller.address,
        world.controller.fingerprint,
        'app',
        'app-outlet',
        400,
      );
      try {
        assert.equal(flooding.accepted, bounds.perInlet, 'one inlet holds its bound of target connections');
        assert.equal(
          flooding.refused,
          400 - bounds.perInlet,
          'every other open is answered with a refusal, and the session stays',
        );
        assert.deepEqual(
          [...flooding.reasons],
          [`the outlet holds ${bounds.perInlet} connections of this inlet already`],
        );
        const shown = (await showOf(outlet)).outlets[0];
        assert.equal(shown?.connections_over_bound, 400 - bounds.perInlet);
        const targets = await new Promise<number>((resolve) =>
          echo.server.getConnections((_error, count) => resolve(count)),
        );
        assert.ok(
          targets <= bounds.perInlet + 2,
          `the target holds ${targets} connections: the flood's ${bounds.perInlet} and the real inlet's warm streams`,
        );
      } finally {
        // The real inlet's clients are served while the flood holds its connections.
        const payload = Buffer.from('a real client');
        assert.deepEqual(await roundTrip(port, payload), payload);
        flooding.close();
      }
    },
  );

  it("holds every inlet together to the outlet's bound, and logs the refusals a few lines at a time", async () => {
    const first = await floodStreams(
      await attacker('flooder-b'),
      world.controller.address,
      world.controller.fingerprint,
      'app',
      'app-outlet',
      200,
    );
    const second = await floodStreams(
      await attacker('flooder-c'),
      world.controller.address,
      world.controller.fingerprint,
      'app',
      'app-outlet',
      200,
    );
    try {
      assert.equal(first.accepted, bounds.perInlet);
      assert.equal(second.accepted, bounds.total - bounds.perInlet, 'the second inlet gets what the outlet has left');
      assert.deepEqual([...second.reasons].sort(), [`the outlet holds ${bounds.total} connections already`]);
      const targets = await new Promise<number>((resolve) =>
        echo.server.getConnections((_error, count) => resolve(count)),
      );
      assert.ok(
        targets <= bounds.total,
        `the target holds ${targets} connections, at most the outlet's bound of ${bounds.total}`,
      );
      const refusalLines = warnings.filter((line) => line.startsWith('outlet: refused'));
      assert.ok(
        refusalLines.length > 0 && refusalLines.length <= 6,
        `a few warning lines, not one per refusal: ${refusalLines.length}`,
      );
    } finally {
      first.close();
      second.close();
    }
    // Given back once the sessions close: the target connections are released.
    await until(
      async () => ((await showOf(outlet)).outlets[0]?.connections_active === 0 ? true : undefined),
      'the connections given back',
    );
    const payload = Buffer.from('after the flood');
    assert.deepEqual(await roundTrip(port, payload), payload);
  });

  it('closes the session of a member whose burst of opens outruns its reading, and says so', async () => {
    // More refusals in one turn than a session may leave unread (muxDefaults.unreadAnswers, 4,096).
    const burst = await floodStreams(
      await attacker('flooder-d'),
      world.controller.address,
      world.controller.fingerprint,
      'app',
      'app-outlet',
      8000,
      5000,
    );
    burst.close();
    assert.ok(burst.closedEarly, 'the outlet closed the session');
    const closed =
      /^outlet: closed a session of inlet \S+: the peer broke the session protocol: it reads none of the answers/;
    await until(() => (warnings.some((line) => closed.test(line)) ? true : undefined), 'the warning');
    const payload = Buffer.from('after the burst');
    assert.deepEqual(await roundTrip(port, payload), payload);
  });

  it('holds the bounds under the descriptor limit, whatever was asked for', () => {
    assert.equal(
      descriptorLimitOf(
        'Limit                     Soft Limit           Hard Limit           Units\n' +
          'Max open files            20000                20000                files\n',
      ),
      20000,
    );
    assert.equal(
      descriptorLimitOf('Max open files            unlimited            unlimited            files\n'),
      undefined,
    );
    assert.deepEqual(boundsWithin(defaultConnectionBounds, 20_000), {
      bounds: defaultConnectionBounds,
      clamped: false,
    });
    // A common default: 1,024 descriptors. Half stays in reserve; a warm stream costs two.
    assert.deepEqual(boundsWithin(defaultConnectionBounds, 1024), {
      bounds: { perInlet: 256, total: 256 },
      clamped: true,
    });
    assert.deepEqual(boundsWithin({ perInlet: 10, total: 20 }, undefined), {
      bounds: { perInlet: 10, total: 20 },
      clamped: false,
    });
  });
});
