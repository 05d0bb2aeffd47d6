import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { encodeTicket } from '../../src/wire/ticket.ts';
import { portal, startPortal } from '../support/processes.ts';
import { statusFromStart } from '../support/node-checks.ts';
import { createWorld, type World } from '../support/portal-world.ts';

/** `text` as a regular expression that matches it literally. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('portal node: what a user sees when something is wrong', function () {
  this.timeout(30_000);
  let world: World;

  before(async () => {
    world = await createWorld();
  });

  after(async () => {
    await world.close();
  });

  const home = (name: string) => join(world.dir, name);
  const inletConfig = JSON.stringify({ 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'x', allow: 'x-outlet' } });

  it('refuses a bad configuration with its JSON pointer, before touching the ticket', async () => {
    const run = await portal(home('bad-config'), ['node', 'create', '--foreground', '--configuration', '{"tcp-inlet": {"from": "127.0.0.1:1", "via": "x"}, "colour": 1}'], {
      ENROLLMENT_TICKET: await world.ticket({ attribute: 'kept' }),
    });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^--configuration:1:52: \/colour: unknown key "colour"; expected one of: relay, tcp-outlet, tcp-inlet, http-server-port, ticket$/m);
    assert.match(run.stderr, /^--configuration:1:15: \/tcp-inlet: missing required key "allow"$/m);
    assert.match(run.stderr, /^portal: 2 problems; fix the configuration and start the node again$/m);
  });

  it('refuses a bad PORTAL_DIRECT_ADVERTISE, and a relay that would listen nowhere, with exit code 2', async () => {
    const run = await portal(home('bad-advertise'), ['node', 'create', '--foreground', '--configuration', inletConfig], { PORTAL_DIRECT_ADVERTISE: '203.0.113.7:4200,no-port' });
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'portal: PORTAL_DIRECT_ADVERTISE=203.0.113.7:4200,no-port is not a list of host:port addresses ("no-port"); give the addresses outlets dial, such as 203.0.113.7:4200\n');
    const relay = await portal(home('bad-relay'), ['relay', 'start', '--listen', 'everywhere']);
    assert.equal(relay.code, 2);
    assert.match(relay.stderr, /^portal: --listen everywhere: expected host:port, but .*; give --listen 0\.0\.0\.0:4100, for example\n$/);
    const direct = await portal(home('bad-direct'), ['node', 'create', '--foreground', '--configuration', '{"tcp-inlet": {"from": "127.0.0.1:0", "via": "x", "allow": "y", "direct": 7}}']);
    assert.equal(direct.code, 2);
    assert.match(direct.stderr, /^--configuration:1:\d+: \/tcp-inlet\/direct: expected true, false, or a listen address such as 0\.0\.0\.0:4200, got 7$/m);
  });

  it('asks for --foreground', async () => {
    const run = await portal(home('background'), ['node', 'create', '--configuration', inletConfig]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'portal: portal node create runs in the foreground only; add --foreground, and use a service manager or a container to keep it running\n');
  });

  it('asks for a ticket when there is no identity yet', async () => {
    const run = await portal(home('no-ticket'), ['node', 'create', '--foreground', '--configuration', inletConfig]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^portal: this node has no identity in .*no-ticket\/node yet, and no enrollment ticket was given; give --enrollment-ticket, ENROLLMENT_TICKET or a ticket key in --node-config/);
  });

  it('explains a malformed ticket', async () => {
    const run = await portal(home('malformed'), ['node', 'create', '--foreground', '--configuration', inletConfig, '--enrollment-ticket', 'pt1.cut-shor']);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'portal: the enrollment ticket is malformed (cut short or changed?); give the contents of the .ticket file that portal project ticket wrote\n');
  });

  it('explains a controller that cannot be reached, with exit code 1', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const ticket = encodeTicket({ controller: `127.0.0.1:${port}`, fingerprint: 'a'.repeat(64), projectId: 'p1', ticketId: 't1', secret: 's' });
    const run = await portal(home('unreachable'), ['node', 'create', '--foreground', '--configuration', inletConfig], { ENROLLMENT_TICKET: ticket });
    assert.equal(run.code, 1);
    assert.equal(run.stderr, `portal: cannot reach the controller at 127.0.0.1:${port} (ECONNREFUSED); check that the controller is running and that this machine can reach that address\n`);
  });

  it('refuses to register a relay the ticket does not grant, without spending the ticket', async () => {
    const ticket = await world.ticket({ attribute: 'r-outlet', relay: 'granted' });
    const config = (relay: string) => JSON.stringify({ 'http-server-port': 0, relay, 'tcp-outlet': { to: '127.0.0.1:1', allow: 'x' } });
    const run = await portal(home('wrong-relay'), ['node', 'create', '--foreground', '--configuration', config('other')], { ENROLLMENT_TICKET: ticket });
    assert.equal(run.code, 2);
    assert.equal(run.stderr, `portal: this node's ticket does not grant the relay "other" (it grants granted); issue the outlet ticket with --relay other, or set relay to the granted name\n`);
    const fixed = startPortal(home('wrong-relay'), ['node', 'create', '--foreground', '--configuration', config('granted')], { ENROLLMENT_TICKET: ticket });
    try {
      await fixed.waitFor(/Portal node setup completed successfully/);
    } finally {
      await fixed.stop();
    }
  });

  it('says when the inlet address is in use', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const config = JSON.stringify({ 'http-server-port': 0, 'tcp-inlet': { from: `127.0.0.1:${port}`, via: 'x', allow: 'x-outlet' } });
      const run = await portal(home('in-use'), ['node', 'create', '--foreground', '--configuration', config], { ENROLLMENT_TICKET: await world.ticket({ attribute: 'busy-inlet' }) });
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`^portal: the inlet cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use; stop whatever listens there, or change tcp-inlet\\.from\\n$`));
      assert.equal(existsSync(join(home('in-use'), 'node', 'identity.json')), false, 'the ticket was not spent');
    } finally {
      taken.close();
    }
  });

  it('reports a node that is not running as DOWN, with exit code 1', async () => {
    const run = await portal(home('nothing'), ['node', 'show']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^portal: The node is DOWN: no node runs with PORTAL_HOME=.*; start it with portal node create --foreground, or check its log\n$/);
  });

  it('takes the ticket from --node-config, and serves HEAD /, GET /show and GET /metrics', async () => {
    const ticket = await world.ticket({ attribute: 'yaml-inlet' });
    const nodeConfig = `ticket: "${ticket}"\nhttp-server-port: 0\ntcp-inlet:\n  from: 127.0.0.1:0\n  via: nowhere\n  allow: nobody\n`;
    const node = startPortal(home('yaml'), ['node', 'create', '--foreground', '--node-config', nodeConfig]);
    try {
      // Never set up: no outlet is registered as "nowhere". It says where it listens, and /show says why.
      await node.waitFor(/ listens on /);
      const { statusPort } = JSON.parse(await (await import('node:fs/promises')).readFile(join(home('yaml'), 'node', 'runtime.json'), 'utf8')) as { statusPort: number };
      const base = `http://127.0.0.1:${statusPort}`;
      assert.equal((await fetch(base, { method: 'HEAD' })).status, 200);
      const shown = await statusFromStart(home('yaml'), (status) => status.problems.some((problem) => problem.includes('no outlet is registered')), 10_000);
      // Nothing answers on relay "nowhere": the node runs, but cannot carry traffic, and says why.
      assert.equal(shown.status, 'starting');
      assert.equal(shown.problems.length, 1);
      const why = 'no outlet is registered for the relay "nowhere" right now; check that the outlet runs and that via "nowhere" is its relay name';
      assert.match(shown.problems[0] ?? '', new RegExp(`^its inlet on 127\\.0\\.0\\.1:\\d+ has no session to relay "nowhere" \\(retrying\\): ${escape(why)}$`));
      assert.ok(!node.lines.some((line) => line.includes('setup completed')), 'no setup completed without a session');
      assert.deepEqual(shown.identity.attributes, ['yaml-inlet']);
      assert.equal(shown.identity.expired, false);
      assert.match(shown.version, /^\d+\.\d+\.\d+$/);
      const show = await portal(home('yaml'), ['node', 'show']);
      assert.equal(show.code, 1);
      assert.equal(show.stdout, '');
      assert.match(show.stderr, new RegExp(`^portal: The node is DOWN: its inlet on 127\\.0\\.0\\.1:\\d+ has no session to relay "nowhere" \\(retrying\\): ${escape(why)} \\(not up yet, \\d+ s after its start\\); the node runs \\(pid \\d+\\); its log says more about each problem\n$`));
      const metrics = await (await fetch(`${base}/metrics`)).text();
      for (const [name, type] of [
        ['portal_connections_total', 'counter'],
        ['portal_connections_open', 'gauge'],
        ['portal_sessions_total', 'counter'],
        ['portal_sessions_open', 'gauge'],
        ['portal_failures_total', 'counter'],
      ]) {
        assert.match(metrics, new RegExp(`^# TYPE ${name} ${type}$`, 'm'));
      }
      assert.match(metrics, /^portal_failures_total\{reason="no_outlet"\} [1-9]\d*$/m);
      assert.equal((await fetch(`${base}/nope`)).status, 404);
    } finally {
      assert.equal(await node.stop(), 0, 'stops cleanly on SIGTERM');
    }
  });
});
