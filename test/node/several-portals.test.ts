import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createLogger } from '../../src/node/logger.ts';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import { PortalError } from '../../src/shared/errors.ts';
import type { NodeConfig } from '../../src/shared/types/node-config.ts';
import { showOf, until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { roundTrip } from '../support/tcp.ts';
import { namedTarget } from './named-target.ts';

const quiet = createLogger({ enabled: process.env.PORTAL_TEST_LOG === '1', level: 'debug' });

describe('several portals on one node (in process)', function () {
  this.timeout(60_000);
  let world: World;
  let alpha: Awaited<ReturnType<typeof namedTarget>>;
  let beta: Awaited<ReturnType<typeof namedTarget>>;
  const nodes: RunningNode[] = [];

  before(async () => {
    world = await createWorld();
    alpha = await namedTarget('alpha');
    beta = await namedTarget('beta');
  });

  after(async () => {
    for (const node of nodes) await node.stop();
    await alpha?.close();
    await beta?.close();
    await world?.close();
  });

  const outletConfig = (): NodeConfig => ({
    'http-server-port': 0,
    'tcp-outlets': {
      alpha: { to: `127.0.0.1:${alpha.port}`, allow: 'pair-inlet' },
      beta: { relay: 'beta-relay', to: `127.0.0.1:${beta.port}`, allow: 'pair-inlet' },
    },
  });

  async function start(name: string, config: NodeConfig, ticket: string): Promise<RunningNode> {
    const node = await startNode({ home: join(world.dir, name), ticket, logger: quiet, config });
    nodes.push(node);
    return node;
  }

  /** The inlets' ports by portal name, once every inlet has a session on `path` ("direct" or a relay). */
  async function inletPorts(node: RunningNode, path: RegExp): Promise<Record<string, number>> {
    const shown = await until(async () => {
      const show = await showOf(node);
      return show.inlets.every((inlet) => inlet.session === 'open' && path.test(inlet.path ?? '')) ? show : undefined;
    }, `every inlet open on ${path}`);
    return Object.fromEntries(
      shown.inlets.map((inlet) => [inlet.name, Number(inlet.listening?.split(':').at(-1))] as const),
    );
  }

  it('carries two targets at once through two outlets and two inlets, on the relay and direct', async () => {
    const outlet = await start(
      'outlet',
      outletConfig(),
      await world.ticket({ attribute: 'pair-outlet', relay: 'alpha,beta-relay' }),
    );
    for (const [name, direct] of [
      ['direct-inlet', true],
      ['relayed-inlet', false],
    ] as const) {
      const inlet = await start(
        name,
        {
          'http-server-port': 0,
          'tcp-inlets': {
            alpha: { from: '127.0.0.1:0', allow: 'pair-outlet', direct },
            beta: { from: '127.0.0.1:0', via: 'beta-relay', allow: 'pair-outlet', direct },
          },
        },
        await world.ticket({ attribute: 'pair-inlet' }),
      );
      const ports = await inletPorts(inlet, direct ? /^direct$/ : /^relay /);
      const payloads = { alpha: randomBytes(2 * 1024 * 1024), beta: randomBytes(2 * 1024 * 1024) };
      const [fromAlpha, fromBeta] = await Promise.all([
        roundTrip(ports.alpha as number, payloads.alpha),
        roundTrip(ports.beta as number, payloads.beta),
      ]);
      assert.ok(fromAlpha.equals(Buffer.concat([Buffer.from('alpha:'), payloads.alpha])), `${name}: alpha's target`);
      assert.ok(fromBeta.equals(Buffer.concat([Buffer.from('beta:'), payloads.beta])), `${name}: beta's target`);
      const shown = await showOf(inlet);
      assert.deepEqual(
        shown.inlets.map((entry) => [entry.name, entry.configured_at, entry.via, entry.connections_total]),
        [
          ['alpha', '/tcp-inlets/alpha', 'alpha', 1],
          ['beta', '/tcp-inlets/beta', 'beta-relay', 1],
        ],
      );
    }
    const shown = await showOf(outlet);
    assert.equal(shown.status, 'up');
    assert.deepEqual(
      shown.outlets.map((entry) => [entry.name, entry.relay, entry.status, entry.connections_total]),
      [
        ['alpha', 'alpha', 'up', 2],
        ['beta', 'beta-relay', 'up', 2],
      ],
    );
    // Bytes are counted once a target connection closes, a moment after the client saw its end.
    const metrics = await until(async () => {
      const text = await (await fetch(`http://127.0.0.1:${outlet.statusPort}/metrics`)).text();
      return /portal="beta"\} 4194304$/m.test(text) ? text : undefined;
    }, "beta's bytes counted");
    assert.match(metrics, /^portal_connections_total\{part="outlet",path="relay",portal="alpha"\} 1$/m);
    assert.match(metrics, /^portal_connections_total\{part="outlet",path="direct",portal="beta"\} 1$/m);
    assert.match(metrics, /^portal_bytes_total\{part="outlet",direction="to_target",portal="beta"\} 4194304$/m);
  });

  it("refuses a ticket that lacks one outlet's relay name, naming it and the ticket to issue, unspent", async () => {
    const ticket = await world.ticket({ attribute: 'pair-outlet', relay: 'alpha' });
    await assert.rejects(
      startNode({ home: join(world.dir, 'short-ticket'), ticket, logger: quiet, config: outletConfig() }),
      (error: unknown) => {
        assert.ok(error instanceof PortalError);
        assert.equal(error.code, 'RELAY_NOT_GRANTED');
        assert.equal(
          error.message,
          'this ticket grants the relay "alpha", but this configuration has the outlet "beta" (relay "beta-relay"); ' +
            'it was not used',
        );
        assert.equal(error.hint, "issue the outlet node's ticket with --relay alpha --relay beta-relay");
        return true;
      },
    );
    // Not spent: the same ticket enrolls a node it fits.
    const { beta: _beta, ...onlyAlpha } = outletConfig()['tcp-outlets'] ?? {};
    await start('alpha-only', { 'http-server-port': 0, 'tcp-outlets': onlyAlpha }, ticket);
  });

  it('rotates every inlet on renewal: both keep a session and carry their clients through it', async () => {
    const short = await createWorld({ credentialLifetimeMs: 3000 });
    const renewed: RunningNode[] = [];
    try {
      const ticket = await short.ticket({ attribute: 'pair-outlet', relay: 'alpha,beta-relay' });
      renewed.push(await startNode({ home: join(short.dir, 'outlet'), ticket, logger: quiet, config: outletConfig() }));
      const inlet = await startNode({
        home: join(short.dir, 'inlet'),
        ticket: await short.ticket({ attribute: 'pair-inlet' }),
        logger: quiet,
        config: {
          'http-server-port': 0,
          'tcp-inlets': {
            alpha: { from: '127.0.0.1:0', allow: 'pair-outlet', direct: false },
            beta: { from: '127.0.0.1:0', via: 'beta-relay', allow: 'pair-outlet', direct: false },
          },
        },
      });
      renewed.push(inlet);
      const ports = await inletPorts(inlet, /^relay /);
      const first = (await showOf(inlet)).identity.valid_until;
      const lapses: string[] = [];
      for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
        const shown = await showOf(inlet);
        for (const entry of shown.inlets) if (entry.session !== 'open') lapses.push(`${entry.name} ${entry.session}`);
        assert.equal((await roundTrip(ports.alpha as number, Buffer.from('a'))).toString(), 'alpha:a');
        assert.equal((await roundTrip(ports.beta as number, Buffer.from('b'))).toString(), 'beta:b');
        if (shown.identity.valid_until !== first && shown.inlets.every((entry) => entry.session === 'open')) break;
      }
      assert.notEqual((await showOf(inlet)).identity.valid_until, first, 'renewed');
      assert.deepEqual(lapses, [], 'no moment without a session');
    } finally {
      for (const node of renewed) await node.stop();
      await short.close();
    }
  });
});
