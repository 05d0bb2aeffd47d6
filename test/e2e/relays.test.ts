import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ready, startEchoPortal, timeUntilWorking, type EchoPortal } from '../support/echo-portal.ts';
import { nodeStatus, statusWhen, startPortal, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { newConnections } from '../support/node-checks.ts';
import { sendPieces } from '../support/tcp.ts';

const heartbeat = { PORTAL_HEARTBEAT: '500ms' };

interface RelayProcess {
  readonly process: Running;
  readonly id: string;
}

describe('end to end: standalone relays, and the controller off the data path', function () {
  this.timeout(180_000);
  let project: ProjectProcesses;
  let portal: EchoPortal;
  const relays: RelayProcess[] = [];
  const inletHome = () => join(project.dir, 'inlet');
  const outletHome = () => join(project.dir, 'outlet');

  before(async () => {
    // No relay in the controller's process: every byte goes through the relay nodes.
    project = await startProject({ controllerFlags: ['--no-relay'] });
    for (const name of ['relay-a', 'relay-b', 'relay-c']) {
      const ticket = await project.ticket(['--relay-node']);
      const process = startPortal(join(project.dir, name), ['relay', 'start', '--listen', '127.0.0.1:0'], {
        ENROLLMENT_TICKET: ticket,
        ...heartbeat,
      });
      const line = await process.waitFor(/^\S+ INFO Portal relay (\S+) of project/);
      relays.push({ process, id: /Portal relay (\S+)/.exec(line)?.[1] ?? '' });
    }
    // Relays only: the direct path has its own tests.
    portal = await startEchoPortal(project, heartbeat, { direct: false });
  });

  after(async () => {
    await project?.close();
    for (const relay of relays) await relay.process.stop();
    await portal?.echo.close();
  });

  it('refuses a node ticket for a relay, before using it, in one line', async () => {
    const ticket = await project.ticket(['--attribute', 'not-a-relay']);
    const refused = startPortal(join(project.dir, 'not-a-relay'), ['relay', 'start', '--listen', '127.0.0.1:0'], {
      ENROLLMENT_TICKET: ticket,
    });
    const code = await refused.ended();
    assert.equal(code, 2);
    assert.match(refused.lines.join('\n'), /^portal: this enrollment ticket does not grant the relay role/m);
    // Unused: a node still enrolls with it.
    const node = await project.startNode(
      'ticket-still-good',
      { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'echo', allow: 'echo-outlet' } },
      ticket,
    );
    await node.waitFor(/enrolled as/);
    await node.stop();
  });

  it('registers the outlet on every relay, and shows each relay and the path of the session', async () => {
    const outlet = await statusWhen(outletHome(), (shown) => (shown.outlets[0]?.registered_on.length ?? 0) === 3);
    assert.deepEqual([...(outlet.outlets[0]?.registered_on ?? [])].sort(), relays.map((relay) => relay.id).sort());
    const inlet = await statusWhen(
      inletHome(),
      (shown) =>
        shown.relays.filter((relay) => relay.status === 'connected').length === 3 &&
        shown.inlets[0]?.session === 'open',
    );
    assert.match(String(inlet.inlets[0]?.path), new RegExp(`^relay (${relays.map((relay) => relay.id).join('|')})$`));
    assert.equal(inlet.status, 'up');
    assert.equal(await newConnections(portal.port, 20), 0);
  });

  it(
    "bounds what peers that prove nothing cost a relay's own port: 64 silent connections a source, " +
      'closed by the deadline',
    async () => {
      const relay = relays[0] as RelayProcess;
      const listening =
        /listening on (\S+),/.exec(relay.process.lines.find((line) => line.includes('listening on')) ?? '')?.[1] ?? '';
      const port = Number(listening.split(':').at(-1));
      const silent = Array.from({ length: 100 }, () => connect({ host: '127.0.0.1', port }));
      const times = await Promise.all(
        silent.map(
          (socket) =>
            new Promise<number>((resolve) => {
              const started = Date.now();
              socket.on('error', () => undefined);
              socket.once('close', () => resolve(Date.now() - started));
            }),
        ),
      );
      assert.equal(times.filter((ms) => ms < 1000).length, 100 - 64, 'beyond 64 from one source, closed at once');
      assert.ok(Math.max(...times) < 12_000, `all closed by the 10 s deadline: ${Math.max(...times)} ms`);
      assert.equal(await newConnections(portal.port, 10), 0, 'the portal is unharmed');
    },
  );

  it('moves the session to another relay when its relay dies, and new clients see no error once moved', async () => {
    const before = await nodeStatus(inletHome());
    const carrying = relays.find((relay) => before.inlets[0]?.path === `relay ${relay.id}`);
    assert.ok(carrying, `a relay carries the session: ${before.inlets[0]?.path}`);
    await carrying.process.kill();
    const took = await timeUntilWorking(portal.port, 5000, 20);
    const after = await statusWhen(
      inletHome(),
      (shown) => shown.inlets[0]?.session === 'open' && shown.inlets[0]?.path !== before.inlets[0]?.path,
    );
    assert.notEqual(after.inlets[0]?.path, `relay ${carrying.id}`);
    assert.equal(await newConnections(portal.port, 200), 0);
    assert.ok(took < 5000, `working again after ${took} ms`);
    console.log(
      `      session moved to ${after.inlets[0]?.path} after relay ${carrying.id} was killed; ` +
        `working again after ${took} ms`,
    );
  });

  it('keeps carrying bytes and opening new connections after the controller is killed mid-transfer', async () => {
    const size = 64 * 1024 * 1024;
    const socket = connect({ host: '127.0.0.1', port: portal.port });
    // Both ways hashed as the bytes pass (sendPieces), not kept.
    const received = createHash('sha256');
    let length = 0;
    let killed: Promise<void> | undefined;
    const done = new Promise<void>((resolve, reject) => {
      socket.on('data', (chunk: Buffer) => {
        received.update(chunk);
        length += chunk.length;
        // Mid-transfer: once 8 MiB have come back through the relay.
        if (!killed && length >= 8 * 1024 * 1024) killed = project.killController();
        if (length >= size) resolve();
      });
      socket.once('error', reject);
      socket.once('close', () => reject(new Error(`closed after ${length} bytes`)));
    });
    const [sent] = await Promise.all([sendPieces(socket, size), done]);
    socket.destroy();
    await killed;
    assert.ok(killed, 'the controller was killed during the transfer');
    assert.equal(length, size);
    assert.equal(received.digest('hex'), sent);
    assert.equal(await newConnections(portal.port, 100), 0, 'new client connections open with the controller dead');
    const inlet = await nodeStatus(inletHome());
    assert.equal(inlet.controller, 'reconnecting');
    assert.equal(inlet.status, 'up', `the node carries traffic without the controller: ${inlet.problems.join('; ')}`);
  });

  it('starts a node again with the controller still away, from the relays it remembers', async () => {
    await portal.inlet.stop();
    const inlet = await project.startNode('inlet', portal.inletConfig, undefined, heartbeat);
    await inlet.waitFor(ready);
    const port = Number((await nodeStatus(inletHome())).inlets[0]?.listening?.split(':').at(-1));
    assert.equal(await newConnections(port, 20), 0);
    await project.startController();
  });
});
