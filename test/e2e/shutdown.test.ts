import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { metricsOf, sample } from '../support/node-checks.ts';
import { nodeStatus, statusWhen, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { startRelay } from '../support/relay-processes.ts';
import { expectRefusal, roundTrip } from '../support/tcp.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

const heartbeat = { PORTAL_HEARTBEAT: '500ms' };

/** A client connection through the inlet, kept open: `say` sends a line and resolves with its echo. */
async function heldClient(port: number): Promise<{ socket: Socket; say(text: string): Promise<string> }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  return {
    socket,
    async say(text) {
      received = '';
      socket.write(text);
      const deadline = Date.now() + 5000;
      while (received.length < text.length && Date.now() < deadline && !socket.destroyed)
        await new Promise((resolve) => setTimeout(resolve, 10));
      return received;
    },
  };
}

/** Sends `signal`; resolves with the exit code and how long the exit took. */
async function signalled(process: Running, signal: NodeJS.Signals): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  const exited = once(process.child, 'exit');
  process.child.kill(signal);
  const [code] = (await exited) as [number | null];
  return { code, ms: Date.now() - started };
}

/** The exit, or a failure naming what the process printed, within `ms`. */
async function exitWithin(process: Running, ms: number): Promise<number | null> {
  if (process.child.exitCode !== null) return process.child.exitCode;
  const timer = setTimeout(() => process.child.kill('SIGKILL'), ms);
  const [code, signal] = (await once(process.child, 'exit')) as [number | null, string | null];
  clearTimeout(timer);
  assert.equal(signal, null, `still running ${ms} ms later; it printed:\n${process.lines.join('\n')}`);
  return code;
}

describe('end to end: every Portal process stops on the first signal', function () {
  this.timeout(240_000);
  let project: ProjectProcesses;
  const portals: EchoPortal[] = [];

  before(async () => {
    project = await startProject();
  });

  afterEach(async () => {
    for (const portal of portals.splice(0)) {
      await portal.outlet.stop();
      await portal.inlet.stop();
      await portal.echo.close();
    }
  });

  after(async () => {
    await project?.close();
  });

  for (const path of ['direct', 'relayed'] as const) {
    it(
      `stops an outlet with a connected inlet (${path}) on SIGTERM at once when idle, ` +
        'warm streams included, exit 0',
      async () => {
        const portal = await startEchoPortal(project, heartbeat, path === 'direct' ? {} : { direct: false });
        portals.push(portal);
        const inletHome = join(project.dir, 'inlet');
        await statusWhen(
          inletHome,
          (shown) =>
            shown.inlets[0]?.session === 'open' &&
            shown.inlets[0].warm_streams === 2 &&
            (shown.inlets[0].path === 'direct') === (path === 'direct'),
        );
        assert.equal((await roundTrip(portal.port, Buffer.from('before'))).toString(), 'before');
        const { code, ms } = await signalled(portal.outlet, 'SIGTERM');
        assert.equal(code, 0, portal.outlet.lines.join('\n'));
        assert.ok(ms < 3000, `the outlet took ${ms} ms to stop`);
        console.log(`      SIGTERM to exit: ${ms} ms`);
        assert.ok(
          portal.outlet.lines.some((line) => /INFO the node stopped on SIGTERM after [0-9.]+s$/.test(line)),
          portal.outlet.lines.join('\n'),
        );
        // Nothing of the outlet carries traffic any more: no warm stream, no session.
        await expectRefusal(portal.port);
      },
    );
  }

  it(
    'lets an open connection finish while it stops (SIGINT), ' + 'then exits 0; new clients are refused meanwhile',
    async () => {
      const portal = await startEchoPortal(project, heartbeat);
      portals.push(portal);
      const client = await heldClient(portal.port);
      assert.equal(await client.say('one'), 'one');
      const exited = once(portal.outlet.child, 'exit');
      portal.outlet.child.kill('SIGINT');
      await portal.outlet.waitFor(
        joinedRegExp(
          /the node is stopping on SIGINT: /,
          /it takes no new connections and gives the 1 open connection up to 10s to finish/,
        ),
      );
      assert.equal(await client.say('two'), 'two', 'the open connection is still carried');
      await expectRefusal(portal.port);
      // Its relay connections closed on purpose: no relay counts as lost.
      assert.equal(
        sample(await metricsOf(join(project.dir, 'outlet')), 'portal_failures_total', 'reason="relay_lost"'),
        0,
      );
      const ended = Date.now();
      client.socket.end();
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0);
      console.log(`      last connection closed to exit: ${Date.now() - ended} ms`);
      assert.ok(
        portal.outlet.lines.some((line) =>
          /stopped on SIGINT after [0-9.]+s: 1 of 1 connection finished, 0 cut$/.test(line),
        ),
        portal.outlet.lines.join('\n'),
      );
    },
  );

  it('cuts what is left when the drain time (PORTAL_DRAIN_TIMEOUT) runs out', async () => {
    const portal = await startEchoPortal(project, { ...heartbeat, PORTAL_DRAIN_TIMEOUT: '1s' });
    portals.push(portal);
    const client = await heldClient(portal.port);
    assert.equal(await client.say('held'), 'held');
    const closed = new Promise((resolve) => client.socket.once('close', resolve));
    const { code, ms } = await signalled(portal.outlet, 'SIGTERM');
    assert.equal(code, 0);
    assert.ok(ms >= 1000 && ms < 4000, `stopped after ${ms} ms`);
    console.log(`      SIGTERM to exit with PORTAL_DRAIN_TIMEOUT=1s and a connection held: ${ms} ms`);
    await closed;
    assert.ok(
      portal.outlet.lines.some((line) =>
        /stopped on SIGTERM after [0-9.]+s: 0 of 1 connection finished, 1 cut$/.test(line),
      ),
      portal.outlet.lines.join('\n'),
    );
  });

  it('stops at once on a second signal while draining', async () => {
    const portal = await startEchoPortal(project, heartbeat);
    portals.push(portal);
    const client = await heldClient(portal.port);
    assert.equal(await client.say('held'), 'held');
    const exited = once(portal.outlet.child, 'exit');
    portal.outlet.child.kill('SIGTERM');
    await portal.outlet.waitFor(/is stopping on SIGTERM/);
    const second = Date.now();
    portal.outlet.child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0);
    assert.ok(Date.now() - second < 1500, `took ${Date.now() - second} ms after the second signal`);
    console.log(`      second signal to exit: ${Date.now() - second} ms`);
    client.socket.destroy();
  });

  it('stops an inlet with clients and warm streams on SIGTERM, exit 0', async () => {
    const portal = await startEchoPortal(project, heartbeat);
    portals.push(portal);
    const inletHome = join(project.dir, 'inlet');
    await statusWhen(inletHome, (shown) => shown.inlets[0]?.warm_streams === 2);
    const client = await heldClient(portal.port);
    assert.equal(await client.say('x'), 'x');
    const exited = once(portal.inlet.child, 'exit');
    portal.inlet.child.kill('SIGTERM');
    await portal.inlet.waitFor(/is stopping on SIGTERM/);
    assert.equal(await client.say('y'), 'y');
    client.socket.end();
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0);
    // The outlet lost its inlet's session and streams, and carries nothing of it.
    await statusWhen(join(project.dir, 'outlet'), (shown) => shown.outlets[0]?.sessions === 0);
  });

  it(
    'moves the inlet off a relay that stops: new clients ride another relay, ' +
      'and the relay exits once its last connection ends',
    async () => {
      const relayProject = await startProject({ controllerFlags: ['--no-relay'] });
      try {
        const relays = [await startRelay(relayProject, 'relay-a'), await startRelay(relayProject, 'relay-b')];
        const portal = await startEchoPortal(relayProject, heartbeat, { direct: false });
        try {
          const inletHome = join(relayProject.dir, 'inlet');
          await statusWhen(
            inletHome,
            (shown) =>
              shown.relays.filter((relay) => relay.status === 'connected').length === 2 &&
              shown.inlets[0]?.warm_streams === 2,
          );
          const riding = (await nodeStatus(inletHome)).inlets[0]?.path?.replace('relay ', '');
          const carrier = relays.find((relay) => relay.id === riding);
          assert.ok(carrier, `the session rides one of the two relays (${riding})`);
          const client = await heldClient(portal.port);
          assert.equal(await client.say('held'), 'held');
          const exited = once(carrier.process.child, 'exit');
          const signalledAt = Date.now();
          carrier.process.child.kill('SIGTERM');
          await carrier.process.waitFor(/the relay is stopping on SIGTERM/);
          const moved = await statusWhen(
            inletHome,
            (shown) => shown.inlets[0]?.session === 'open' && shown.inlets[0].path !== `relay ${carrier.id}`,
          );
          assert.match(String(moved.inlets[0]?.path), /^relay /);
          for (let i = 0; i < 20; i += 1)
            assert.equal((await roundTrip(portal.port, Buffer.from(`new ${i}`))).toString(), `new ${i}`);
          assert.equal(
            await client.say('still'),
            'still',
            'the held connection is still carried by the stopping relay',
          );
          client.socket.end();
          const [code] = (await exited) as [number | null];
          assert.equal(code, 0, carrier.process.lines.join('\n'));
          const took = Date.now() - signalledAt;
          assert.ok(took < 8000, `the relay took ${took} ms: it waited for the session it no longer carries`);
          console.log(`      relay stopped ${took} ms after SIGTERM, once its last connection ended`);
        } finally {
          await portal.inlet.stop();
          await portal.outlet.stop();
          await portal.echo.close();
          for (const relay of relays) await relay.process.stop();
        }
      } finally {
        await relayProject.close();
      }
    },
  );

  it('stops a relay carrying a splice once the splice ends, and the controller at once; both exit 0', async () => {
    const relayProject = await startProject({ controllerFlags: ['--no-relay'] });
    try {
      const relay = await startRelay(relayProject, 'relay');
      const portal = await startEchoPortal(relayProject, heartbeat, { direct: false });
      try {
        await statusWhen(join(relayProject.dir, 'inlet'), (shown) => shown.inlets[0]?.warm_streams === 2);
        const client = await heldClient(portal.port);
        assert.equal(await client.say('r'), 'r');
        const exited = once(relay.process.child, 'exit');
        relay.process.child.kill('SIGTERM');
        await relay.process.waitFor(
          joinedRegExp(
            /the relay is stopping on SIGTERM: /,
            /it takes no new connections and gives the \d+ open connections? up to 10s to finish/,
          ),
        );
        assert.equal(await client.say('s'), 's');
        client.socket.end();
        // The inlet's session and warm streams ride the relay too: they end with the node's stop.
        await portal.inlet.stop();
        await portal.outlet.stop();
        const [code] = (await exited) as [number | null];
        assert.equal(code, 0, relay.process.lines.join('\n'));
        assert.ok(relay.process.lines.some((line) => /the relay stopped on SIGTERM after/.test(line)));
      } finally {
        await portal.inlet.stop();
        await portal.outlet.stop();
        await portal.echo.close();
        await relay.process.stop();
      }
      const { code, ms } = await signalled(relayProject.controller.process, 'SIGTERM');
      assert.equal(code, 0);
      assert.ok(ms < 3000, `the controller took ${ms} ms`);
      console.log(`      controller, SIGTERM to exit: ${ms} ms`);
      assert.equal(await exitWithin(relayProject.controller.process, 1), 0);
    } finally {
      await relayProject.close();
    }
  });
});
