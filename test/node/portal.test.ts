import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createLogger } from '../../src/node/logger.ts';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import { inletPortWhenUp, showOf, until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { expectRefusal, roundTrip, startEchoServer } from '../support/tcp.ts';

const quiet = createLogger({ enabled: process.env.PORTAL_TEST_LOG === '1', level: 'debug' });

/**
 * An outlet of relay name `relay` to `targetPort` and an inlet through it (attributes `<relay>-outlet`
 * and `<relay>-inlet`), both kept in `nodes` for the caller to stop; resolves once the inlet is up.
 */
async function startPair(
  world: World,
  relay: string,
  targetPort: number,
  nodes: RunningNode[],
): Promise<{ inlet: RunningNode; port: number }> {
  nodes.push(
    await startNode({
      home: join(world.dir, 'outlet'),
      ticket: await world.ticket({ attribute: `${relay}-outlet`, relay }),
      logger: quiet,
      config: {
        'http-server-port': 0,
        relay,
        'tcp-outlet': { to: `127.0.0.1:${targetPort}`, allow: `${relay}-inlet` },
      },
    }),
  );
  const inlet = await startNode({
    home: join(world.dir, 'inlet'),
    ticket: await world.ticket({ attribute: `${relay}-inlet` }),
    logger: quiet,
    config: { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: relay, allow: `${relay}-outlet` } },
  });
  nodes.push(inlet);
  return { inlet, port: await inletPortWhenUp(inlet) };
}

describe('portal (in process): outlet and inlet through the relay', () => {
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

  async function pair(names: {
    outlet: string;
    inlet: string;
    inletAllow?: string;
    outletAllow?: string;
    targetPort?: number;
  }) {
    const outlet = await startNode({
      home: join(world.dir, names.outlet),
      ticket: await world.ticket({ attribute: names.outlet, relay: names.outlet }),
      logger: quiet,
      config: {
        'http-server-port': 0,
        relay: names.outlet,
        'tcp-outlet': { to: `127.0.0.1:${names.targetPort ?? echo.port}`, allow: names.outletAllow ?? names.inlet },
      },
    });
    nodes.push(outlet);
    const inlet = await startNode({
      home: join(world.dir, names.inlet),
      ticket: await world.ticket({ attribute: names.inlet }),
      logger: quiet,
      config: {
        'http-server-port': 0,
        'tcp-inlet': { from: '127.0.0.1:0', via: names.outlet, allow: names.inletAllow ?? names.outlet },
      },
    });
    nodes.push(inlet);
    const port = await inletPortWhenUp(inlet);
    return { outlet, inlet, port };
  }

  it('carries bytes exactly, both ways, with half-close', async () => {
    const { port } = await pair({ outlet: 'echo-outlet', inlet: 'echo-inlet' });
    const payload = randomBytes(3 * 1024 * 1024);
    const answer = await roundTrip(port, payload);
    assert.ok(answer.equals(payload), `echoed ${answer.length} of ${payload.length} bytes`);
    const many = await Promise.all(Array.from({ length: 10 }, (_, i) => roundTrip(port, Buffer.from(`client ${i}`))));
    assert.deepEqual(
      many.map(String),
      Array.from({ length: 10 }, (_, i) => `client ${i}`),
    );
  });

  it('closes clients whose target the outlet cannot reach, by warm stream and by session alike', async () => {
    const { createServer } = await import('node:net');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { port, outlet, inlet } = await pair({
      outlet: 'dead-end-outlet',
      inlet: 'dead-end-inlet',
      targetPort: deadPort,
    });
    // Every client must reach the outlet: none may be refused by an inlet still opening its session.
    await until(
      async () => ((await showOf(inlet)).inlets[0]?.session === 'open' ? true : undefined),
      'the inlet session',
    );
    await until(
      async () => ((await showOf(inlet)).inlets[0]?.warm_streams === 2 ? true : undefined),
      'two warm streams',
    );
    // Four at once: two take the warm streams, the others ride the session.
    const refusals = await Promise.all(Array.from({ length: 4 }, () => expectRefusal(port)));
    assert.deepEqual(
      refusals.map((refusal) => refusal.bytes),
      [0, 0, 0, 0],
    );
    const show = await showOf(outlet);
    assert.equal(show.outlets[0]?.connections_failed, 4);
    // The outlet's refusals reach the inlet, with why, on a warm stream as on the session.
    const inletShown = (await showOf(inlet)).inlets[0];
    assert.equal(inletShown?.connections_refused, 4);
    assert.equal(inletShown?.connections_total, 0, 'none was carried');
    assert.deepEqual(
      { ...inletShown?.refused_by_outlet, last_at: undefined },
      { count: 4, reason: 'the outlet cannot reach its target', last_at: undefined },
    );
  });

  it('gives no byte of the target to an inlet whose attribute the outlet does not allow', async () => {
    const { port } = await pair({ outlet: 'strict-outlet', inlet: 'stranger-inlet', outletAllow: 'someone-else' });
    const refused = await expectRefusal(port);
    assert.equal(refused.bytes, 0);
  });
});

describe('portal (in process): backpressure', () => {
  it('bounds what a slow reader makes the portal hold, and delivers it all once it reads', async () => {
    const world = await createWorld();
    const { createServer, connect } = await import('node:net');
    let written = 0;
    const chunk = Buffer.alloc(1024 * 1024, 1);
    const firehose = createServer((socket) => {
      const pump = () => {
        while (written < 512 * 1024 * 1024 && socket.write(chunk)) written += chunk.length;
        if (written < 512 * 1024 * 1024) socket.once('drain', () => ((written += chunk.length), pump()));
        else socket.end();
      };
      socket.on('error', () => undefined);
      pump();
    });
    await new Promise<void>((resolve) => firehose.listen(0, '127.0.0.1', resolve));
    const targetPort = (firehose.address() as { port: number }).port;
    const nodes: RunningNode[] = [];
    try {
      const { port } = await startPair(world, 'fh', targetPort, nodes);
      const client = connect({ host: '127.0.0.1', port });
      client.pause();
      // The client reads nothing: the writer must stall once the buffers along the path are full.
      let last = -1;
      await until(
        async () => {
          const stalled = written > 0 && written === last;
          last = written;
          await new Promise((resolve) => setTimeout(resolve, 300));
          return stalled ? true : undefined;
        },
        'the writer to stall',
        20_000,
      );
      assert.ok(
        written < 48 * 1024 * 1024,
        `the path held ${(written / 1048576).toFixed(1)} MiB for a reader that read nothing`,
      );
      let received = 0;
      client.on('data', (data: Buffer) => (received += data.length));
      const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
      client.resume();
      await ended;
      assert.equal(received, 512 * 1024 * 1024, 'then everything arrives');
      client.destroy();
    } finally {
      for (const node of nodes) await node.stop();
      firehose.close();
      await world.close();
    }
  });
});

describe('portal (in process): renewal', () => {
  it('keeps the inlet up and its clients served while renewed credentials replace its session', async function () {
    this.timeout(30_000);
    const world = await createWorld({ credentialLifetimeMs: 3000 });
    const echo = await startEchoServer();
    const nodes: RunningNode[] = [];
    try {
      const { inlet, port } = await startPair(world, 'renew', echo.port, nodes);
      await until(async () => ((await showOf(inlet)).inlets[0]?.session === 'open' ? true : undefined), 'a session');
      const first = (await showOf(inlet)).identity.valid_until;
      // Through two renewals (every two seconds or so), the node, its inlet and its session stay up,
      // and every client is answered.
      const lapses: string[] = [];
      let renewals = 0;
      let seen = first;
      for (const deadline = Date.now() + 15_000; renewals < 2 && Date.now() < deadline;) {
        const shown = await showOf(inlet);
        const state = `${shown.status}/${shown.inlets[0]?.status}/${shown.inlets[0]?.session}`;
        if (state !== 'up/up/open') lapses.push(state);
        if (shown.identity.valid_until !== seen) {
          renewals += 1;
          seen = shown.identity.valid_until;
        }
        assert.equal((await roundTrip(port, Buffer.from(`at ${state}`))).toString(), `at ${state}`);
      }
      assert.equal(renewals, 2, 'two renewals');
      assert.deepEqual(lapses, [], 'no moment without a session');
    } finally {
      for (const node of nodes) await node.stop();
      await echo.close();
      await world.close();
    }
  });
});
