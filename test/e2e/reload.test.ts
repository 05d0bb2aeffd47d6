import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ready } from '../support/echo-portal.ts';
import { digest, echoClient, transferDuring } from '../support/echo-transfer.ts';
import { until } from '../support/in-process.ts';
import { nodeStatus, portal, statusWhen, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { acceptsConnections, roundTrip, startEchoServer } from '../support/tcp.ts';
import { namedTarget, type NamedTarget } from '../node/named-target.ts';

const total = 64 * 1024 * 1024;

describe('end to end: a node reloads its configuration while its portals carry traffic', function () {
  this.timeout(180_000);
  let project: ProjectProcesses;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  const targets: Record<string, NamedTarget> = {};
  let inlet: Running;
  const inletHome = () => join(project.dir, 'inlet');
  const file = () => join(project.dir, 'inlet.json');
  const inletConfig = (names: readonly string[]) => ({
    'http-server-port': 0,
    'tcp-inlets': Object.fromEntries(names.map((name) => [name, { from: '127.0.0.1:0', allow: 'reload-outlet' }])),
  });
  const portOf = async (name: string) =>
    Number(
      (await nodeStatus(inletHome())).inlets
        .find((entry) => entry.name === name)
        ?.listening?.split(':')
        .at(-1),
    );
  const reload = () => portal(inletHome(), ['node', 'reload']);

  before(async () => {
    project = await startProject();
    echo = await startEchoServer();
    targets.added = await namedTarget('added');
    targets.leaving = await namedTarget('leaving');
    const outlet = await project.startNode(
      'outlet',
      {
        'http-server-port': 0,
        'tcp-outlets': {
          bulk: { to: `127.0.0.1:${echo.port}`, allow: 'reload-inlet' },
          added: { to: `127.0.0.1:${targets.added.port}`, allow: 'reload-inlet' },
          leaving: { to: `127.0.0.1:${targets.leaving.port}`, allow: 'reload-inlet' },
        },
      },
      await project.ticket([
        '--attribute',
        'reload-outlet',
        '--relay',
        'bulk',
        '--relay',
        'added',
        '--relay',
        'leaving',
      ]),
    );
    // project.startNode writes <name>.json and runs the node with --configuration on that file.
    inlet = await project.startNode(
      'inlet',
      inletConfig(['bulk', 'leaving']),
      await project.ticket(['--attribute', 'reload-inlet']),
      {
        PORTAL_DRAIN_TIMEOUT: '30s',
      },
    );
    await Promise.all([outlet.waitFor(ready), inlet.waitFor(ready)]);
  });

  after(async () => {
    await project?.close();
    await echo?.close();
    for (const target of Object.values(targets)) await target.close();
  });

  it('adds a portal while a client of another carries 64 MiB: no reset, every byte back by sha256', async () => {
    const bulkPort = await portOf('bulk');
    const payload = randomBytes(total);
    const client = echoClient(bulkPort);
    await once(client.socket, 'connect');
    // The rest flows while the node reloads; the client ends only once the reload is done.
    const {
      result: reloaded,
      echoedBefore,
      echoedByThen,
    } = await transferDuring(client, payload, async () => {
      await writeFile(file(), JSON.stringify(inletConfig(['bulk', 'leaving', 'added'])));
      return reload();
    });
    assert.equal(reloaded.code, 0, reloaded.stderr);
    assert.match(
      reloaded.stdout,
      /^Reloaded the configuration of the node \(process \d+\): added inlet added; 2 unchanged\.$/m,
    );
    assert.equal(await portOf('bulk'), bulkPort, 'the unchanged inlet keeps its listener');
    client.socket.end();
    assert.equal(await client.ended, 'end', 'ended cleanly, not reset');
    const answer = Buffer.concat(client.received);
    assert.equal(answer.length, payload.length);
    assert.equal(digest(answer), digest(payload));
    assert.ok(echoedByThen < total, 'the transfer was under way when the reload answered');
    console.log(
      `      ${((echoedByThen - echoedBefore) / 1048576).toFixed(1)} MiB echoed while the node reloaded, ` +
        `${((total - echoedByThen) / 1048576).toFixed(1)} MiB after`,
    );

    await statusWhen(inletHome(), (shown) => shown.inlets.find((entry) => entry.name === 'added')?.session === 'open');
    assert.equal((await roundTrip(await portOf('added'), Buffer.from('hello'))).toString(), 'added:hello');
    await inlet.waitFor(/INFO reloaded the configuration from .*inlet\.json: added inlet added; 2 unchanged$/);
  });

  it('removes a portal on SIGHUP: no new client, its open client carried until it leaves', async () => {
    const leavingPort = await portOf('leaving');
    const client = echoClient(leavingPort);
    client.socket.write('a');
    await until(() => (Buffer.concat(client.received).toString() === 'leaving:a' ? true : undefined), 'the first echo');

    await writeFile(file(), JSON.stringify(inletConfig(['bulk', 'added'])));
    inlet.child.kill('SIGHUP');
    await inlet.waitFor(/INFO reloaded the configuration from .*: removed inlet leaving; 2 unchanged$/);
    await inlet.waitFor(
      /INFO inlet leaving was removed: it takes no new connections and gives its 1 open connection up to 30s /,
    );
    assert.equal(await acceptsConnections('127.0.0.1', leavingPort), false, 'its listener is closed');
    client.socket.write('b');
    await until(
      () => (Buffer.concat(client.received).toString() === 'leaving:ab' ? true : undefined),
      'the echo after',
    );
    client.socket.end();
    assert.equal(await client.ended, 'end');
    await inlet.waitFor(
      /INFO inlet leaving is closed, [\d.]+s after it was removed: 1 of 1 connection finished, 0 cut$/,
    );
    const shown = await nodeStatus(inletHome());
    assert.deepEqual(
      shown.inlets.map((entry) => entry.name),
      ['bulk', 'added'],
    );
    assert.equal(shown.status, 'up');
  });

  it('refuses a bad configuration with its location, and the running one keeps carrying', async () => {
    await writeFile(
      file(),
      '{\n  "http-server-port": 0,\n  "tcp-inlets": {\n' +
        '    "bulk": {"from": "127.0.0.1:0", "allow": "reload-outlet"},\n' +
        '    "added": {"from": "127.0.0.1:99999", "allow": "reload-outlet"}\n  }\n}\n',
    );
    const refused = await reload();
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr,
      `${file()}:5:23: /tcp-inlets/added/from: expected address:port, but port 99999 is out of range (1 to 65535)\n` +
        'portal: 1 problem; fix the configuration and reload again; the node carries on with the one it runs\n',
    );
    await inlet.waitFor(/ERROR reload refused: .*inlet\.json:5:23: \/tcp-inlets\/added\/from: expected address:port/);
    const shown = await nodeStatus(inletHome());
    assert.equal(shown.reload.last?.outcome, 'refused');
    assert.deepEqual(
      shown.inlets.map((entry) => entry.name),
      ['bulk', 'added'],
    );
    assert.equal((await roundTrip(await portOf('bulk'), Buffer.from('still'))).toString(), 'still');
    assert.equal((await roundTrip(await portOf('added'), Buffer.from('here'))).toString(), 'added:here');
  });

  it('stops on SIGTERM letting the clients of every portal finish', async () => {
    const clients = [echoClient(await portOf('bulk')), echoClient(await portOf('added'))];
    for (const client of clients) client.socket.write('x');
    await until(() => (clients.every((client) => client.bytes() > 0) ? true : undefined), 'both clients carried');
    inlet.child.kill('SIGTERM');
    await inlet.waitFor(
      /the node is stopping on SIGTERM: it takes no new connections and gives the 2 open connections /,
    );
    for (const client of clients) client.socket.end();
    assert.deepEqual(await Promise.all(clients.map((client) => client.ended)), ['end', 'end']);
    await inlet.waitFor(/the node stopped on SIGTERM after [\d.]+s: 2 of 2 connections finished, 0 cut$/);
    const exited = inlet.child.exitCode ?? (await once(inlet.child, 'exit').then(([code]) => code as number | null));
    assert.equal(exited, 0);
  });
});
