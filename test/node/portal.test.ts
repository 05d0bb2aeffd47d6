import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createLogger } from '../../src/node/logger.ts';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { expectRefusal, roundTrip, startEchoServer } from '../support/tcp.ts';

const quiet = createLogger({ enabled: process.env.PORTAL_TEST_LOG === '1', level: 'debug' });

async function showOf(node: RunningNode) {
  const response = await fetch(`http://127.0.0.1:${node.statusPort}/show`);
  return (await response.json()) as { status: string; inlets: { listening: string }[]; outlets: unknown[] };
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
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

  async function pair(names: { outlet: string; inlet: string; inletAllow?: string; outletAllow?: string }) {
    const outlet = await startNode({
      home: join(world.dir, names.outlet),
      ticket: await world.ticket({ attribute: names.outlet, relay: names.outlet }),
      logger: quiet,
      config: { 'http-server-port': 0, relay: names.outlet, 'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: names.outletAllow ?? names.inlet } },
    });
    nodes.push(outlet);
    const inlet = await startNode({
      home: join(world.dir, names.inlet),
      ticket: await world.ticket({ attribute: names.inlet }),
      logger: quiet,
      config: { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: names.outlet, allow: names.inletAllow ?? names.outlet } },
    });
    nodes.push(inlet);
    const port = Number((await until(async () => ((await showOf(inlet)).status === 'up' ? showOf(inlet) : undefined), 'inlet up')).inlets[0]?.listening.split(':').at(-1));
    return { outlet, inlet, port };
  }

  it('carries bytes exactly, both ways, with half-close', async () => {
    const { port } = await pair({ outlet: 'echo-outlet', inlet: 'echo-inlet' });
    const payload = randomBytes(3 * 1024 * 1024);
    const answer = await roundTrip(port, payload);
    assert.ok(answer.equals(payload), `echoed ${answer.length} of ${payload.length} bytes`);
    const many = await Promise.all(Array.from({ length: 10 }, (_, i) => roundTrip(port, Buffer.from(`client ${i}`))));
    assert.deepEqual(many.map(String), Array.from({ length: 10 }, (_, i) => `client ${i}`));
  });

  it('gives no byte of the target to an inlet whose attribute the outlet does not allow', async () => {
    const { port } = await pair({ outlet: 'strict-outlet', inlet: 'stranger-inlet', outletAllow: 'someone-else' });
    const refused = await expectRefusal(port);
    assert.equal(refused.bytes, 0);
  });
});
