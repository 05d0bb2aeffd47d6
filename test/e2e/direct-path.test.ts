import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { startEchoPortal, timeUntilWorking, type EchoPortal } from '../support/echo-portal.ts';
import { nodeStatus, statusWhen } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { externalIpv4Addresses, listeningAddresses } from '../support/bound-addresses.ts';
import { acceptsConnections, echoDigests, roundTrip } from '../support/tcp.ts';

const heartbeat = { PORTAL_HEARTBEAT: '500ms' };
const mebibytes = 256;

async function metricsOf(home: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const { statusPort } = JSON.parse(await readFile(join(home, 'node', 'runtime.json'), 'utf8')) as {
    statusPort: number;
  };
  return (await fetch(`http://127.0.0.1:${statusPort}/metrics`)).text();
}

describe('end to end: the direct path, with the relay as fallback', function () {
  this.timeout(180_000);
  let project: ProjectProcesses;
  let direct: EchoPortal;

  before(async () => {
    project = await startProject();
    direct = await startEchoPortal(project, heartbeat);
  });

  after(async () => {
    await project?.close();
    await direct?.echo.close();
  });

  it('runs the session and the warm streams on a connection the outlet dialled, and says so', async () => {
    // Direct, and no member of the pool left on the relay (the relayed session the inlet began with
    // retires once the outlet's direct one is in).
    const inlet = await statusWhen(
      join(project.dir, 'inlet'),
      (shown) =>
        shown.inlets[0]?.path === 'direct' &&
        (shown.inlets[0]?.outlets ?? []).every((member) => member.path === 'direct'),
    );
    assert.match(String(inlet.inlets[0]?.direct), /^127\.0\.0\.1:\d+$/);
    const outlet = await statusWhen(
      join(project.dir, 'outlet'),
      (shown) => (shown.outlets[0]?.sessions_direct ?? 0) === 1,
    );
    assert.equal(outlet.outlets[0]?.direct_paths, 1);
    for (let i = 0; i < 50; i += 1)
      assert.equal((await roundTrip(direct.port, Buffer.from(`direct ${i}`))).toString(), `direct ${i}`);
    const after = await nodeStatus(join(project.dir, 'inlet'));
    assert.ok((after.inlets[0]?.connections_direct ?? 0) >= 50, JSON.stringify(after.inlets[0]));
    assert.equal(after.inlets[0]?.connections_relayed, 0);
    const metrics = await metricsOf(join(project.dir, 'inlet'));
    assert.match(metrics, /^portal_connections_total\{part="inlet",path="direct"\} (\d+)$/m);
    assert.match(metrics, /^portal_sessions_open\{part="inlet",path="direct"\} 1$/m);
  });

  it(
    'listens on loopback only by default: the kernel shows the socket bound to 127.0.0.1, ' +
      "and a connection to this machine's other addresses is refused",
    async () => {
      const inlet = await nodeStatus(join(project.dir, 'inlet'));
      const port = Number(String(inlet.inlets[0]?.direct).split(':').at(-1));
      assert.deepEqual(await listeningAddresses(port), ['127.0.0.1']);
      assert.equal(await acceptsConnections('127.0.0.1', port), true);
      const external = externalIpv4Addresses();
      for (const address of external) assert.equal(await acceptsConnections(address, port), false, address);
      // The client listener too, where the configuration put it (127.0.0.1:0): nothing is wider than asked.
      const client = Number(inlet.inlets[0]?.listening?.split(':').at(-1));
      assert.deepEqual(await listeningAddresses(client), ['127.0.0.1']);
      for (const address of external) assert.equal(await acceptsConnections(address, client), false, address);
    },
  );

  it(`carries ${mebibytes} MiB each way intact on the direct path, by sha256 at both ends`, async () => {
    const result = await echoDigests(direct.port, mebibytes * 1024 * 1024);
    assert.equal(result.bytes, mebibytes * 1024 * 1024);
    assert.equal(result.received, result.sent);
  });

  it(
    `carries ${mebibytes} MiB each way intact on the relayed path (direct: false), ` + 'by sha256 at both ends',
    async () => {
      const inletTicket = await project.ticket(['--attribute', 'echo-inlet']);
      const inlet = await project.startNode(
        'relayed-inlet',
        {
          'http-server-port': 0,
          'tcp-inlet': { from: '127.0.0.1:0', via: 'echo', allow: 'echo-outlet', direct: false },
        },
        inletTicket,
        heartbeat,
      );
      await inlet.waitFor(/setup completed/);
      const shown = await statusWhen(
        join(project.dir, 'relayed-inlet'),
        (status) => status.inlets[0]?.session === 'open',
      );
      assert.equal(shown.inlets[0]?.path, 'relay controller');
      assert.equal(shown.inlets[0]?.direct, null);
      const port = Number(shown.inlets[0]?.listening?.split(':').at(-1));
      const result = await echoDigests(port, mebibytes * 1024 * 1024);
      assert.equal(result.received, result.sent);
      assert.equal((await nodeStatus(join(project.dir, 'relayed-inlet'))).inlets[0]?.connections_direct, 0);
      await inlet.stop();
    },
  );

  it('falls back to the relay within the budget when the direct dial cannot connect', async () => {
    const inletTicket = await project.ticket(['--attribute', 'echo-inlet']);
    // An address where no inlet answers, as behind a closed firewall: however the outlet's dial fails
    // (refused, no answer within its budget, no TLS), the inlet waits only its budget for it.
    const inlet = await project.startNode(
      'walled-inlet',
      { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'echo', allow: 'echo-outlet' } },
      inletTicket,
      {
        ...heartbeat,
        PORTAL_DIRECT_ADVERTISE: '10.255.255.1:9',
      },
    );
    const started = Date.now();
    await inlet.waitFor(/setup completed/);
    const home = join(project.dir, 'walled-inlet');
    const port = Number(
      (await statusWhen(home, (status) => status.inlets[0]?.session === 'open')).inlets[0]?.listening
        ?.split(':')
        .at(-1),
    );
    const took = await timeUntilWorking(port, 5000, 20);
    const shown = await nodeStatus(home);
    assert.equal(shown.inlets[0]?.path, 'relay controller');
    const outlet = await nodeStatus(join(project.dir, 'outlet'));
    assert.equal(outlet.outlets[0]?.direct_paths, 2, 'the outlet keeps trying the walled inlet later');
    console.log(
      `      relayed after the direct dial failed: working ${Date.now() - started} ms after start ` +
        `(${took} ms after setup)`,
    );
    await inlet.stop();
  });

  it(
    'closes at once what is not an outlet naming the secret, ' + 'and holds one source to 32 silent connections',
    async () => {
      const shown = await nodeStatus(join(project.dir, 'inlet'));
      const directPort = Number(shown.inlets[0]?.direct?.split(':').at(-1));
      const closedWithin = (socket: Socket) =>
        new Promise<number>((resolve) => {
          const started = Date.now();
          socket.on('error', () => undefined);
          socket.once('close', () => resolve(Date.now() - started));
        });
      for (const first of [
        'GET / HTTP/1.1\r\n\r\n',
        'PORTAL-DIRECT/2 wrongsecretwrongsecretwrong\n',
        'PORTAL-DIRECT/1 x\n',
        '\x16\x03\x01\x00\xc8\x01',
      ]) {
        const socket = connect({ host: '127.0.0.1', port: directPort });
        const closed = closedWithin(socket);
        socket.write(first);
        assert.ok((await closed) < 1000, `closed at once after ${JSON.stringify(first)}`);
      }
      // A connection that ends before it names itself is closed at once, not at its deadline.
      const ending = connect({ host: '127.0.0.1', port: directPort });
      const endingClosed = closedWithin(ending);
      await once(ending, 'connect');
      ending.end();
      assert.ok((await endingClosed) < 1000, 'a connection that ended before naming itself was closed at once');
      const silent = Array.from({ length: 100 }, () => connect({ host: '127.0.0.1', port: directPort }));
      const closings = silent.map(closedWithin);
      const times = await Promise.all(closings);
      // The bound is at most 32 waiting per source; a dial of the outlet's own, from the same address, may
      // hold a place for the moment it takes to name itself.
      const held = times.filter((ms) => ms >= 1000).length;
      assert.ok(
        held <= 32 && held >= 24,
        `${held} of 100 silent connections held until their deadline, the rest closed at once`,
      );
      assert.ok(Math.max(...times) < 7000, `every silent connection closed by its deadline: ${Math.max(...times)} ms`);
      // The portal itself is unharmed.
      assert.equal((await roundTrip(direct.port, Buffer.from('still here'))).toString(), 'still here');
    },
  );
});
