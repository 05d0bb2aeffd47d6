import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createLogger } from '../../src/node/logger.ts';
import { startNode, type RunningNode } from '../../src/node/node.ts';
import type { NodeConfig } from '../../src/shared/types/node-config.ts';
import { showOf, until } from '../support/in-process.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { acceptsConnections, roundTrip } from '../support/tcp.ts';
import { namedTarget, type NamedTarget } from './named-target.ts';

const quiet = createLogger({ enabled: process.env.PORTAL_TEST_LOG === '1', level: 'debug' });

/** A client connection that stays open: what it sends comes back after the target's name. */
async function openClient(port: number): Promise<{ socket: Socket; echo(text: string): Promise<string> }> {
  const socket = connect({ host: '127.0.0.1', port });
  // Cut when the test stops the nodes under it.
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  return {
    socket,
    async echo(text) {
      socket.write(text);
      await until(() => (received.endsWith(text) ? true : undefined), `the echo of ${text}`);
      return received;
    },
  };
}

describe('reload (in process): portals added, removed and changed while others carry on', function () {
  this.timeout(60_000);
  let world: World;
  const targets: Record<string, NamedTarget> = {};
  const nodes: RunningNode[] = [];
  let file: string;
  let inlet: RunningNode;

  const outletOf = (names: string[]): NodeConfig => ({
    'http-server-port': 0,
    'tcp-outlets': Object.fromEntries(
      names.map((name) => [name, { to: `127.0.0.1:${targets[name]?.port}`, allow: 'r-inlet' }]),
    ),
  });
  const inletOf = (names: string[], allow = 'r-outlet'): NodeConfig => ({
    'http-server-port': 0,
    'tcp-inlets': Object.fromEntries(names.map((name) => [name, { from: '127.0.0.1:0', allow, direct: false }])),
  });
  const portOf = async (name: string) =>
    Number(
      (await showOf(inlet)).inlets
        .find((entry) => entry.name === name)
        ?.listening?.split(':')
        .at(-1),
    );
  const sessionOpen = (name: string) =>
    until(
      async () =>
        (await showOf(inlet)).inlets.find((entry) => entry.name === name)?.session === 'open' ? true : undefined,
      `a session for inlet ${name}`,
    );

  before(async () => {
    world = await createWorld();
    for (const name of ['one', 'two', 'three']) targets[name] = await namedTarget(name);
    nodes.push(
      await startNode({
        home: join(world.dir, 'outlet'),
        ticket: await world.ticket({ attribute: 'r-outlet', relay: 'one,two,three' }),
        logger: quiet,
        config: outletOf(['one', 'two', 'three']),
      }),
    );
    file = join(world.dir, 'inlet.json');
    const config = inletOf(['one', 'two']);
    await writeFile(file, JSON.stringify(config));
    inlet = await startNode({
      home: join(world.dir, 'inlet'),
      ticket: await world.ticket({ attribute: 'r-inlet' }),
      logger: quiet,
      config,
      source: { file, flag: '--configuration', ticket: undefined },
      environment: {},
      drainMs: 20_000,
    });
    nodes.push(inlet);
    await sessionOpen('one');
    await sessionOpen('two');
  });

  after(async () => {
    for (const node of nodes) await node.stop();
    for (const target of Object.values(targets)) await target.close();
    await world?.close();
  });

  it('adds a portal and removes another; the unchanged one keeps its listener and its open client', async () => {
    const onePort = await portOf('one');
    const twoPort = await portOf('two');
    const staying = await openClient(onePort);
    assert.equal(await staying.echo('a'), 'one:a');
    const leaving = await openClient(twoPort);
    assert.equal(await leaving.echo('b'), 'two:b');

    await writeFile(file, JSON.stringify(inletOf(['one', 'three'])));
    const outcome = await inlet.reload();
    assert.deepEqual(
      { outcome: outcome.outcome, added: outcome.added, removed: outcome.removed, unchanged: outcome.unchanged },
      { outcome: 'applied', added: ['inlet three'], removed: ['inlet two'], unchanged: 1 },
    );
    assert.equal(outcome.message, 'added inlet three; removed inlet two; 1 unchanged');
    await sessionOpen('three');
    assert.equal((await roundTrip(await portOf('three'), Buffer.from('c'))).toString(), 'three:c');

    // The unchanged portal: same port, its client still carried, new clients welcome.
    assert.equal(await portOf('one'), onePort);
    assert.equal(await staying.echo('d'), 'one:ad');
    assert.equal((await roundTrip(onePort, Buffer.from('e'))).toString(), 'one:e');
    // The removed one drains: no new client, the open one carried until it leaves.
    assert.equal(await acceptsConnections('127.0.0.1', twoPort), false);
    assert.equal(await leaving.echo('f'), 'two:bf');
    assert.equal(inlet.openConnections(), 2);
    leaving.socket.end();
    await until(() => (inlet.openConnections() === 1 ? true : undefined), 'the removed inlet drained');
    staying.socket.end();
    const shown = await showOf(inlet);
    assert.deepEqual(
      shown.inlets.map((entry) => entry.name),
      ['one', 'three'],
    );
    assert.equal(shown.reload.count, 1);
    assert.equal(shown.reload.last?.outcome, 'applied');
  });

  it('replaces a changed portal on the same listener, and keeps the running configuration on a bad one', async () => {
    const onePort = await portOf('one');
    await writeFile(file, JSON.stringify(inletOf(['one', 'three'], 'nobody')));
    const replaced = await inlet.reload();
    assert.deepEqual([replaced.outcome, replaced.changed], ['applied', ['inlet one', 'inlet three']]);
    assert.equal(await portOf('one'), onePort, 'the listener went to the new inlet');

    await writeFile(file, '{"tcp-inlets": {"one": {"from": "127.0.0.1:0"}}, "http-server-port": 1}');
    const refused = await inlet.reload();
    assert.equal(refused.outcome, 'refused');
    assert.equal(refused.exit, 2);
    assert.deepEqual(
      refused.problems.map((problem) => `${problem.line}:${problem.column}: ${problem.pointer}: ${problem.message}`),
      ['1:24: /tcp-inlets/one: missing required key "allow"'],
    );
    await writeFile(file, JSON.stringify({ ...inletOf(['one']), 'http-server-port': 1 }));
    const port = await inlet.reload();
    assert.deepEqual(
      port.problems.map((problem) => `${problem.pointer}: ${problem.message}`),
      [
        "/http-server-port: the status server's port cannot change while the node runs (it runs with " +
          'http-server-port 0); set it back, or restart the node to use 1',
      ],
    );
    await writeFile(file, JSON.stringify(inletOf(['one', 'three'], 'r-outlet')));
    const back = await inlet.reload();
    assert.deepEqual([back.outcome, back.changed], ['applied', ['inlet one', 'inlet three']]);
    await sessionOpen('one');
    assert.equal((await roundTrip(onePort, Buffer.from('g'))).toString(), 'one:g');
    assert.equal((await showOf(inlet)).reload.count, 5);
  });

  it('refuses a new ticket, a relay the identity does not grant, and a node started inline', async () => {
    await writeFile(file, JSON.stringify({ ...inletOf(['one', 'three']), ticket: 'pt1.another' }));
    const ticket = await inlet.reload();
    assert.deepEqual(
      ticket.problems.map((problem) => `${problem.pointer}: ${problem.message}`),
      [
        '/ticket: the ticket cannot change while the node runs (it is read once, at start); ' +
          'set it back, or restart the node with the new one',
      ],
    );

    const outlet = nodes[0] as RunningNode;
    const inline = await outlet.reload();
    assert.equal(inline.code, 'CONFIGURATION_INLINE');
    assert.equal(inline.exit, 2);
    assert.match(inline.message, /^the node was started with its configuration inline \(--configuration/);

    await writeFile(
      file,
      JSON.stringify({ ...inletOf(['one']), 'tcp-outlets': { four: { to: '127.0.0.1:1', allow: 'x' } } }),
    );
    const ungranted = await inlet.reload();
    assert.equal(ungranted.code, 'RELAY_NOT_GRANTED');
    assert.match(
      ungranted.message,
      /grants no relay\), but this configuration has the outlet "four" \(relay "four"\)$/,
    );
    assert.deepEqual(
      (await showOf(inlet)).inlets.map((entry) => entry.name),
      ['one', 'three'],
      'the running configuration stays',
    );
  });
});

describe('reload (in process): an outlet removed leaves the relays', function () {
  this.timeout(60_000);

  it("takes the removed outlet's relay name off the relay, while the other outlet carries on", async () => {
    const world = await createWorld();
    const keep = await namedTarget('keep');
    const drop = await namedTarget('drop');
    const nodes: RunningNode[] = [];
    try {
      const file = join(world.dir, 'outlet.json');
      const outletConfig = (names: string[]): NodeConfig => ({
        'http-server-port': 0,
        'tcp-outlets': Object.fromEntries(
          names.map((name) => [name, { to: `127.0.0.1:${(name === 'keep' ? keep : drop).port}`, allow: 'o-inlet' }]),
        ),
      });
      await writeFile(file, JSON.stringify(outletConfig(['keep', 'drop'])));
      const outlet = await startNode({
        home: join(world.dir, 'outlet'),
        ticket: await world.ticket({ attribute: 'o-outlet', relay: 'keep,drop' }),
        logger: quiet,
        config: outletConfig(['keep', 'drop']),
        source: { file, flag: '--configuration', ticket: undefined },
        environment: {},
      });
      nodes.push(outlet);
      const inlet = await startNode({
        home: join(world.dir, 'inlet'),
        ticket: await world.ticket({ attribute: 'o-inlet' }),
        logger: quiet,
        config: {
          'http-server-port': 0,
          'tcp-inlets': {
            keep: { from: '127.0.0.1:0', allow: 'o-outlet', direct: false },
            drop: { from: '127.0.0.1:0', allow: 'o-outlet', direct: false },
          },
        },
      });
      nodes.push(inlet);
      const inletOf = async (name: string) => (await showOf(inlet)).inlets.find((entry) => entry.name === name);
      await until(async () => ((await inletOf('drop'))?.session === 'open' ? true : undefined), 'both sessions');
      await until(async () => ((await inletOf('keep'))?.session === 'open' ? true : undefined), 'both sessions');

      await writeFile(file, JSON.stringify(outletConfig(['keep'])));
      assert.deepEqual((await outlet.reload()).removed, ['outlet drop']);
      // The inlet's session ends with the outlet, and the relay now says no outlet has the name.
      const failure = await until(async () => {
        const shown = await inletOf('drop');
        return shown?.session_failure?.reason === 'no_outlet' ? shown.session_failure : undefined;
      }, 'the relay to know the name no more');
      assert.match(failure.message, /no outlet is registered for the relay "drop" right now/);
      const keepPort = Number((await inletOf('keep'))?.listening?.split(':').at(-1));
      assert.equal((await roundTrip(keepPort, Buffer.from('k'))).toString(), 'keep:k');
      assert.deepEqual(
        (await showOf(outlet)).outlets.map((entry) => entry.name),
        ['keep'],
      );
    } finally {
      for (const node of nodes) await node.stop();
      await keep.close();
      await drop.close();
      await world.close();
    }
  });
});
