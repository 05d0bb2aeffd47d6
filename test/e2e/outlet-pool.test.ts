import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { ready } from '../support/echo-portal.ts';
import { inletPort, statusWhen, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { runPortal } from '../support/run-portal.ts';
import { roundTrip, startEchoServer } from '../support/tcp.ts';

const heartbeat = { PORTAL_HEARTBEAT: '500ms' };

interface PoolOutlet {
  readonly name: string;
  readonly echo: Awaited<ReturnType<typeof startEchoServer>>;
  readonly config: object;
  /** Connections its target took. */
  served: number;
  /** What its target was sent, a piece at a time. */
  readonly seen: Set<string>;
  node: Running;
}

/** The steady clients running: a test that fails stops them in afterEach. */
const steady = new Set<{ stop(): Promise<void> }>();

/** A client that opens a new connection every `everyMs` and notes when each failed. */
function steadyClient(port: number, everyMs: number) {
  const failures: { at: number; why: string }[] = [];
  let done = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const payload = Buffer.from(`hello ${done}`);
      const answer = await roundTrip(port, payload).catch((error: Error) => Buffer.from(`! ${error.message}`));
      if (!answer.equals(payload)) failures.push({ at: Date.now(), why: answer.toString().slice(0, 80) || 'empty' });
      done += 1;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  const client = {
    failures,
    get done() {
      return done;
    },
    async stop() {
      running = false;
      steady.delete(client);
      await loop;
    },
  };
  steady.add(client);
  return client;
}

/** Opens a connection and waits for the echo of `first`: it stays open until the test closes it. */
async function held(port: number, first = 'x'): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('data', () => resolve());
    socket.write(first);
  });
  return socket;
}

describe('end to end: a pool of two outlets behind one relay name', function () {
  this.timeout(240_000);
  let project: ProjectProcesses;
  const outlets: PoolOutlet[] = [];
  const inlets: { name: string; port: number }[] = [];

  const poolUp = (inlet: string, path: RegExp) =>
    statusWhen(join(project.dir, inlet), (shown) => {
      const members = shown.inlets[0]?.outlets ?? [];
      return (
        members.length === 2 && members.every((member) => member.session === 'open' && path.test(member.path ?? ''))
      );
    });

  before(async () => {
    project = await startProject();
    const outletTicket = () => project.ticket(['--attribute', 'echo-outlet', '--relay', 'echo']);
    for (const name of ['outlet-a', 'outlet-b']) {
      const echo = await startEchoServer();
      const config = {
        'http-server-port': 0,
        relay: 'echo',
        'tcp-outlet': { to: `127.0.0.1:${echo.port}`, allow: 'echo-inlet' },
      };
      const entry: PoolOutlet = {
        name,
        echo,
        config,
        served: 0,
        seen: new Set(),
        node: undefined as unknown as Running,
      };
      echo.server.on('connection', (socket: Socket) => {
        entry.served += 1;
        socket.on('data', (chunk: Buffer) => entry.seen.add(chunk.toString()));
      });
      entry.node = await project.startNode(name, config, await outletTicket(), heartbeat);
      outlets.push(entry);
    }
    // One inlet through the relay only, one that the outlets dial directly.
    for (const [name, keys] of [
      ['inlet-relayed', { direct: false }],
      ['inlet-direct', {}],
    ] as const) {
      const config = {
        'http-server-port': 0,
        'tcp-inlet': { from: '127.0.0.1:0', via: 'echo', allow: 'echo-outlet', ...keys },
      };
      const node = await project.startNode(
        name,
        config,
        await project.ticket(['--attribute', 'echo-inlet']),
        heartbeat,
      );
      await node.waitFor(ready);
      inlets.push({ name, port: await inletPort(join(project.dir, name)) });
    }
    await Promise.all(outlets.map(({ node }) => node.waitFor(ready)));
  });

  afterEach(async () => {
    for (const client of [...steady]) await client.stop();
  });

  after(async () => {
    await project?.close();
    for (const { echo } of outlets) await echo.close();
  });

  const servedNow = () => outlets.map((outlet) => outlet.served);

  /** Both outlets of the pool are open on the inlet `index`'s `path`, and 20 connections held spread evenly. */
  const spreads = async (index: number, path: RegExp) => {
    const inlet = inlets[index]!;
    const shown = await poolUp(inlet.name, path);
    const members = shown.inlets[0]?.outlets ?? [];
    assert.equal(new Set(members.map((member) => member.outlet)).size, 2, 'two different outlets');
    const before = servedNow();
    const sockets: Socket[] = [];
    for (let i = 0; i < 20; i += 1) sockets.push(await held(inlet.port));
    const spread = servedNow().map((count, at) => count - before[at]!);
    assert.deepEqual(spread, [10, 10], 'the one with fewer clients takes the next');
    const counted = await statusWhen(join(project.dir, inlet.name), (now) =>
      (now.inlets[0]?.outlets ?? []).every((member) => member.clients === 10),
    );
    assert.equal(counted.inlets[0]?.connections_active, 20);
    for (const socket of sockets) socket.destroy();
  };

  it('keeps a session with each outlet and spreads held connections evenly, through the relay', () =>
    spreads(0, /^relay /));

  it('keeps a session with each outlet and spreads held connections evenly, on the direct path', () =>
    spreads(1, /^direct$/));

  it('stops choosing a killed outlet within 2 s, and takes it back once it is up again', async () => {
    const [first] = outlets;
    const clients = inlets.map((inlet) => steadyClient(inlet.port, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const killedAt = Date.now();
    await first!.node.kill();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const servedAfter = servedNow();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const servedLate = servedNow()[0]! - servedAfter[0]!;
    for (const client of clients) await client.stop();
    // Back before judging, so that the next test finds the pool whole whatever this one finds.
    first!.node = await project.startNode(first!.name, first!.config, undefined, heartbeat);
    await poolUp('inlet-relayed', /^relay /);
    await poolUp('inlet-direct', /^direct$/);
    assert.equal(servedLate, 0, 'nothing goes to the killed outlet');
    for (const [at, client] of clients.entries()) {
      const late = client.failures.filter((failure) => failure.at > killedAt + 2000);
      assert.deepEqual(late, [], `${inlets[at]!.name}: no failure 2 s after the kill`);
      assert.ok(client.failures.length <= 3, `${inlets[at]!.name}: only connections in flight failed`);
      assert.ok(client.done > 20, `${inlets[at]!.name}: ${client.done} connections`);
    }
  });

  it('a rolling restart with SIGTERM costs no client an error, and a held connection finishes', async () => {
    // Four clients on each inlet, each opening its next connection as soon as one is done.
    const clients = inlets.flatMap((inlet) => [1, 2, 3, 4].map(() => steadyClient(inlet.port, 0)));
    for (const outlet of outlets) {
      // A connection held through this outlet goes on while it drains.
      const sockets: Socket[] = [];
      let through: Socket | undefined;
      for (let i = 0; !through && i < 20; i += 1) {
        const socket = await held(inlets[0]!.port, `held-${outlet.name}-${i}`);
        sockets.push(socket);
        if (outlet.seen.has(`held-${outlet.name}-${i}`)) through = socket;
      }
      assert.ok(through, `one of ${sockets.length} connections held went to ${outlet.name}`);
      // The first by SIGTERM (as a service manager stops it), the second by portal node drain.
      const drained =
        outlet === outlets[0]
          ? undefined
          : runPortal(['node', 'drain'], { env: { PORTAL_HOME: join(project.dir, outlet.name) } });
      const stopping = drained ? outlet.node.ended() : outlet.node.stop();
      await outlet.node.waitFor(/takes no new connections/);
      const echoed = new Promise<string>((resolve) =>
        through.once('data', (chunk: Buffer) => resolve(chunk.toString())),
      );
      through.write('still here');
      assert.equal(await echoed, 'still here', 'a held connection goes on through the draining outlet');
      for (const socket of sockets) socket.destroy();
      assert.equal(await stopping, 0);
      if (drained) {
        const run = await drained;
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, /^Draining the node \(process \d+\): its outlets leave their pools/);
        assert.match(run.stdout, /The node \(process \d+\) stopped, [\d.]+ s after\.\n$/);
      }
      outlet.node = await project.startNode(outlet.name, outlet.config, undefined, heartbeat);
      await poolUp('inlet-relayed', /^relay /);
      await poolUp('inlet-direct', /^direct$/);
    }
    for (const client of clients) await client.stop();
    for (const [at, client] of clients.entries()) {
      const inlet = inlets[Math.floor(at / 4)]!.name;
      assert.deepEqual(client.failures, [], `${inlet}: no client saw an error`);
      assert.ok(client.done > 20, `${inlet}: ${client.done} connections`);
    }
    const nobody = await runPortal(['node', 'drain'], { env: { PORTAL_HOME: join(project.dir, 'nobody') } });
    assert.equal(nobody.code, 1);
    assert.match(
      nobody.stderr,
      /^portal: no node runs with PORTAL_HOME=\S+nobody; give the PORTAL_HOME the node runs with\n$/,
    );
  });
});
