import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeTicket } from '../../src/wire/ticket.ts';
import { processGone } from '../../src/shared/process-state.ts';
import { createNetworkNamespace, type NetworkNamespace } from '../support/network-namespace.ts';
import { freePort, portal, portalBundle, runToEnd, start, type Running } from '../support/processes.ts';
import { acceptsConnections } from '../support/tcp.ts';
import { removeAdminHome } from '../support/admin-home.ts';

describe('portal enroll: the embedded controller for nodes on other machines', function () {
  this.timeout(60_000);
  let home: string;
  const nodes: Running[] = [];

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'portal-enroll-'));
  });

  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop();
    await removeAdminHome(home);
  });

  it(
    'refuses, with exit code 2 and before starting anything, ' +
      'options that would give tickets a useless address or be ignored',
    async () => {
      const cases: [string[], string][] = [
        [
          ['--listen', '0.0.0.0:4000', '--controller', '127.0.0.1:4000', '--code', 'pa1.x'],
          'portal: --listen is for the embedded controller, which --controller and --code replace; ' +
            'give --listen and --public-address to portal controller start on the controller machine, ' +
            'or leave out --controller and --code\n',
        ],
        [
          ['--listen', '0.0.0.0:4000'],
          'portal: --listen 0.0.0.0:4000 accepts nodes on every address, ' +
            'but without --public-address tickets would name 127.0.0.1:4000, which only this machine reaches; ' +
            'add --public-address HOST:4000, the name or address other machines dial\n',
        ],
        [
          ['--public-address', 'controller.example.net:4000'],
          'portal: --public-address needs --listen with a fixed port: nodes dial controller.example.net:4000, ' +
            'which must lead to the port the embedded controller listens on; ' +
            'give both, such as --listen 0.0.0.0:4000 --public-address controller.example.net:4000\n',
        ],
        [
          ['--listen', '0.0.0.0:0', '--public-address', 'controller.example.net:4000'],
          'portal: --public-address needs --listen with a fixed port: nodes dial controller.example.net:4000, ' +
            'which must lead to the port the embedded controller listens on; ' +
            'give both, such as --listen 0.0.0.0:4000 --public-address controller.example.net:4000\n',
        ],
      ];
      for (const [flags, stderr] of cases) {
        const run = await portal(home, ['enroll', ...flags]);
        assert.deepEqual([run.code, run.stderr, run.stdout], [2, stderr, ''], flags.join(' '));
      }
      assert.equal(existsSync(join(home, 'controller')), false, 'no controller was started');
    },
  );

  describe("on a machine with an address other machines dial (a network namespace of the test's own)", () => {
    let network: NetworkNamespace;

    before(async () => {
      network = await createNetworkNamespace('enroll');
    });
    afterEach(async () => {
      await inside(['reset', '--yes', '--delete-controller']);
    });
    after(async () => {
      await network?.remove();
    });

    /** The bundled CLI, run to its end inside the namespace with this test's home. */
    const inside = (args: readonly string[]) =>
      runToEnd(...network.inside(process.execPath, [portalBundle, ...args]), {
        env: { ...process.env, NODE_DEVELOPER: undefined, PORTAL_HOME: home },
      });
    /** Whether something inside the namespace accepts a TCP connection at host:port. */
    const acceptsInside = async (host: string, port: number) =>
      (await runToEnd(...network.inside('bash', ['-c', `exec 3<>/dev/tcp/${host}/${port}`]), { env: process.env }))
        .code === 0;

    it(
      'listens where --listen says, writes --public-address into tickets without a warning, ' +
        'and keeps both when it starts again',
      async () => {
        const { address } = network;
        const port = await freePort();
        const enrolled = await inside([
          'enroll',
          '--listen',
          `0.0.0.0:${port}`,
          '--public-address',
          `${address}:${port}`,
        ]);
        assert.equal(enrolled.code, 0, enrolled.stderr);
        const lines = enrolled.stdout.split('\n');
        assert.match(
          lines[0] ?? '',
          new RegExp(`^Enrolled: administrator of project p[0-9a-f]{16} on controller ${address}:${port}\\.$`),
        );
        assert.match(
          lines[1] ?? '',
          new RegExp(
            `^The embedded controller runs in the background \\(pid \\d+, listening on 0\\.0\\.0\\.0:${port}\\); ` +
              `it logs to ${join(home, 'controller', 'controller.log')}\\.$`,
          ),
        );

        const ticket = await inside(['project', 'ticket', '--attribute', 'far-inlet']);
        assert.deepEqual([ticket.code, ticket.stderr], [0, ''], 'no loopback warning');
        assert.equal(decodeTicket(ticket.stdout).controller, `${address}:${port}`);
        const ticketFile = join(home, 'far.ticket');
        await writeFile(ticketFile, ticket.stdout);
        const configuration =
          '{"http-server-port": 0, "tcp-inlet": {"from": "127.0.0.1:0", "via": "db", "allow": "db-outlet"}}';
        const node = start(
          ...network.inside(process.execPath, [
            portalBundle,
            'node',
            'create',
            '--foreground',
            '--enrollment-ticket-file',
            ticketFile,
            '--configuration',
            configuration,
          ]),
          { env: { PORTAL_HOME: join(home, 'far-node') } },
        );
        nodes.push(node);
        await node.waitFor(/enrolled as n[0-9a-f]+ in project/);

        // After a crash (a reboot), the next command starts it again where it listened, with the same public address.
        const runtime = JSON.parse(await readFile(join(home, 'controller', 'runtime.json'), 'utf8')) as {
          pid: number;
        };
        process.kill(runtime.pid, 'SIGKILL');
        const shown = await inside(['project', 'show', '--jq', '.controller']);
        assert.deepEqual([shown.code, shown.stdout], [0, `${address}:${port}\n`], shown.stderr);
        assert.deepEqual(JSON.parse(await readFile(join(home, 'controller', 'embedded.json'), 'utf8')), {
          listen: `0.0.0.0:${port}`,
          publicAddress: `${address}:${port}`,
        });
        assert.equal(await acceptsInside(address, port), true);
        const again = await inside(['project', 'ticket', '--attribute', 'far-inlet']);
        assert.equal(decodeTicket(again.stdout).controller, `${address}:${port}`);
      },
    );
  });

  it(
    'finds its controller where it listens, not at the public address, which may not lead back here: ' +
      'no second start, and reset stops it',
    async () => {
      // The public address is a forwarder, as a port forwarded by a router would be: it leads to the
      // controller while enroll runs, and nowhere once closed, while the controller keeps listening.
      const port = await freePort();
      const forwarded = new Set<Socket>();
      const forwarder = createServer((client) => {
        const upstream = connect(port, '127.0.0.1');
        for (const socket of [client, upstream]) {
          forwarded.add(socket);
          socket.on('error', () => (client.destroy(), upstream.destroy()));
        }
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
      const publicAddress = `127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
      let runtime: { pid: number; address: string; listening?: string };
      try {
        const enrolled = await portal(home, [
          'enroll',
          '--listen',
          `127.0.0.1:${port}`,
          '--public-address',
          publicAddress,
        ]);
        assert.equal(enrolled.code, 0, enrolled.stderr);
        runtime = JSON.parse(await readFile(join(home, 'controller', 'runtime.json'), 'utf8')) as typeof runtime;
      } finally {
        forwarded.forEach((socket) => socket.destroy());
        await new Promise((resolve) => forwarder.close(resolve));
      }
      assert.equal(runtime.address, publicAddress);

      try {
        const shown = await portal(home, ['project', 'show', '--jq', '.id']);
        assert.equal(shown.code, 1);
        assert.match(
          shown.stderr,
          new RegExp(`^portal: cannot reach the controller at ${publicAddress} \\(ECONNREFUSED\\)`),
          'the running controller is found: no second one is started',
        );
        assert.equal(processGone(runtime.pid), false);

        const reset = await portal(home, ['reset', '--yes']);
        assert.equal(reset.code, 0, reset.stderr);
        assert.equal(processGone(runtime.pid), true, 'the controller exited before its data was removed');
        assert.equal(await acceptsConnections('127.0.0.1', port), false);
        assert.equal(existsSync(join(home, 'controller')), false);
      } finally {
        if (!processGone(runtime.pid)) process.kill(runtime.pid, 'SIGKILL');
      }
      assert.equal(runtime.listening, `127.0.0.1:${port}`, 'the runtime file names where it listens');
    },
  );

  it('enrolls another administrator with an admin ticket, refusing any other before it is used', async () => {
    const first = await portal(home, ['enroll']);
    assert.equal(first.code, 0, first.stderr);
    const second = join(home, 'second-administrator');
    const nodeTicket = (await portal(home, ['project', 'ticket', '--attribute', 'db-inlet'])).stdout.trim();
    const refused = await portal(second, ['enroll', '--ticket', nodeTicket]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /^portal: this ticket does not enroll an administrator; issue one with portal project/,
    );
    const listed = (await portal(home, ['project', 'tickets', '--json'])).stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; usesLeft: number });
    assert.equal(listed.find((ticket) => ticket.id === decodeTicket(nodeTicket).ticketId)?.usesLeft, 1, 'not spent');

    const adminTicket = (await portal(home, ['project', 'ticket', '--admin'])).stdout.trim();
    const joined = await portal(second, ['enroll', '--ticket', adminTicket]);
    assert.equal(joined.code, 0, joined.stderr);
    assert.match(
      joined.stdout,
      /^Enrolled: administrator a[0-9a-f]+ of project p[0-9a-f]{16} on controller 127\.0\.0\.1:\d+\.$/m,
    );
    // The second administrator administers the same project: it lists both administrators.
    const members = (await portal(second, ['project', 'members', '--json'])).stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { kind: string; revoked: unknown });
    assert.equal(members.filter((member) => member.kind === 'administrator' && member.revoked === null).length, 2);
  });
});
