import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTicket } from '../../src/wire/ticket.ts';
import { portal, portalBundle, start, startPortal } from '../support/processes.ts';
import { statusFromStart } from '../support/node-checks.ts';
import { createWorld, type World } from '../support/portal-world.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

/** A home whose node/runtime.json names `pid`, as the runtime file of a running node does. */
async function homeOfNode(home: string, pid: number): Promise<string> {
  await mkdir(join(home, 'node'), { recursive: true });
  await writeFile(
    join(home, 'node', 'runtime.json'),
    `${JSON.stringify({ pid, startedAt: new Date().toISOString() })}\n`,
  );
  return join(home, 'node', 'runtime.json');
}

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
  const inletConfig = JSON.stringify({
    'http-server-port': 0,
    'tcp-inlet': { from: '127.0.0.1:0', via: 'x', allow: 'x-outlet' },
  });

  it('refuses a bad configuration with its JSON pointer, before touching the ticket', async () => {
    const run = await portal(
      home('bad-config'),
      [
        'node',
        'create',
        '--foreground',
        '--configuration',
        '{"tcp-inlet": {"from": "127.0.0.1:1", "via": "x"}, "colour": 1}',
      ],
      {
        ENROLLMENT_TICKET: await world.ticket({ attribute: 'kept' }),
      },
    );
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      joinedRegExp(
        /^--configuration:1:52: \/colour: unknown key "colour"; /m,
        /expected one of: relay, tcp-outlet, tcp-outlets, tcp-inlet, tcp-inlets, http-server-port, /m,
        /revocation-max-age, ticket$/m,
      ),
    );
    assert.match(run.stderr, /^--configuration:1:15: \/tcp-inlet: missing required key "allow"$/m);
    assert.match(run.stderr, /^portal: 2 problems; fix the configuration and start the node again$/m);
  });

  it('refuses a JSON mistake in JSON words, once, at its line and column, inline or in a file', async () => {
    const inline = await portal(home('missing-comma'), [
      'node',
      'create',
      '--foreground',
      '--configuration',
      '{"tcp-inlet": {"from": "127.0.0.1:1", "via": "x" "allow": "y"}}',
    ]);
    assert.equal(inline.code, 2);
    assert.equal(
      inline.stderr,
      "--configuration:1:50: /tcp-inlet/via: not valid JSON: expected ',' or '}' after a property value, " +
        'found a string\nportal: 1 problem; fix the configuration and start the node again\n',
    );
    await mkdir(home('trailing-comma'), { recursive: true });
    const file = join(home('trailing-comma'), 'node.json');
    await writeFile(file, '{\n  "tcp-inlet": {"from": "127.0.0.1:1", "via": "x", "allow": "y"},\n}\n');
    const fromFile = await portal(home('trailing-comma'), ['node', 'create', '--foreground', '--configuration', file]);
    assert.equal(fromFile.code, 2);
    assert.equal(
      fromFile.stderr,
      `${file}:2:65: /tcp-inlet: not valid JSON: a trailing comma before '}'; remove the comma\nportal: 1 problem; ` +
        `fix the configuration and start the node again\n`,
    );
  });

  it(
    'refuses a NODE_LOG_LEVEL or NODE_LOGGING it does not know, ' + 'in the node and the relay, before anything else',
    async () => {
      const level =
        'portal: NODE_LOG_LEVEL=verbose is not one of error, warn, info, debug, trace; ' +
        'set NODE_LOG_LEVEL to one of them, or leave it empty for info\n';
      const logging =
        'portal: NODE_LOGGING=yes is not one of true, false; set NODE_LOGGING to one of them, ' +
        'or leave it empty for true\n';
      for (const [name, args] of [
        ['log-node', ['node', 'create', '--foreground', '--configuration', inletConfig]],
        ['log-relay', ['relay', 'start', '--listen', '127.0.0.1:0']],
      ] as const) {
        // A good ticket: without the check first, the node would enroll with it and start.
        const ticket = name === 'log-node' ? { ENROLLMENT_TICKET: await world.ticket({ attribute: 'unspent' }) } : {};
        const verbose = await portal(home(name), args, { ...ticket, NODE_LOG_LEVEL: 'verbose' });
        assert.equal(verbose.code, 2, verbose.stderr);
        assert.equal(verbose.stderr, level);
        const chatty = await portal(home(name), args, { ...ticket, NODE_LOGGING: 'yes' });
        assert.equal(chatty.code, 2, chatty.stderr);
        assert.equal(chatty.stderr, logging);
        assert.equal(existsSync(home(name)), false, `${name}: nothing was written, the ticket was not spent`);
      }
    },
  );

  it(
    'refuses a duration out of its bounds, naming the units and the bounds: PORTAL_HEARTBEAT, ' +
      '--credential-lifetime',
    async () => {
      const heartbeat = await portal(
        home('heartbeat'),
        ['node', 'create', '--foreground', '--configuration', inletConfig],
        { PORTAL_HEARTBEAT: '100ms' },
      );
      assert.equal(heartbeat.code, 2);
      assert.equal(
        heartbeat.stderr,
        'portal: PORTAL_HEARTBEAT=100ms is shorter than 500ms; give a whole number followed by ms, s, m, ' +
          'h or d (such as 5s or 1m30s), from 500ms to 5m\n',
      );
      const lifetime = await portal(home('lifetime'), [
        'controller',
        'start',
        '--listen',
        '127.0.0.1:0',
        '--credential-lifetime',
        '400d',
      ]);
      assert.equal(lifetime.code, 2);
      assert.equal(
        lifetime.stderr,
        'portal: --credential-lifetime 400d is longer than 30d; give a whole number followed by ms, s, m, ' +
          'h or d (such as 1h or 12h), from 2s to 30d\n',
      );
      assert.equal(existsSync(home('lifetime')), false, 'nothing was written');
      const help = await portal(home('help'), ['controller', 'start', '--help']);
      assert.match(
        help.stdout.replace(/\s+/g, ' '),
        joinedRegExp(
          /--credential-lifetime <duration> lifetime of node certificates, renewed at half of it: /,
          /a whole number followed by ms, s, m, h or d \(such as 1h or 12h\), from 2s to 30d \(default: "1h"\)/,
        ),
      );
    },
  );

  it('refuses a bad PORTAL_DIRECT_ADVERTISE, and a relay that would listen nowhere, with exit code 2', async () => {
    const run = await portal(
      home('bad-advertise'),
      ['node', 'create', '--foreground', '--configuration', inletConfig],
      { PORTAL_DIRECT_ADVERTISE: '203.0.113.7:4200,no-port' },
    );
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'portal: PORTAL_DIRECT_ADVERTISE=203.0.113.7:4200,no-port is not a list of host:port addresses ("no-port"); ' +
        'give the addresses outlets dial, such as 203.0.113.7:4200\n',
    );
    const relay = await portal(home('bad-relay'), ['relay', 'start', '--listen', 'everywhere']);
    assert.equal(relay.code, 2);
    assert.match(
      relay.stderr,
      /^portal: --listen everywhere: expected host:port, but .*; give --listen 0\.0\.0\.0:4100, for example\n$/,
    );
    const direct = await portal(home('bad-direct'), [
      'node',
      'create',
      '--foreground',
      '--configuration',
      '{"tcp-inlet": {"from": "127.0.0.1:0", "via": "x", "allow": "y", "direct": 7}}',
    ]);
    assert.equal(direct.code, 2);
    assert.match(
      direct.stderr,
      joinedRegExp(
        /^--configuration:1:\d+: \/tcp-inlet\/direct: /m,
        /expected true, false, or a listen address such as 0\.0\.0\.0:4200, got 7$/m,
      ),
    );
  });

  it('asks for --foreground', async () => {
    const run = await portal(home('background'), ['node', 'create', '--configuration', inletConfig]);
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'portal: portal node create runs in the foreground only; add --foreground, ' +
        'and use a service manager or a container to keep it running\n',
    );
  });

  it('asks for a ticket when there is no identity yet', async () => {
    const run = await portal(home('no-ticket'), ['node', 'create', '--foreground', '--configuration', inletConfig]);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      joinedRegExp(
        /^portal: this node has no identity in .*no-ticket\/node yet, and no enrollment ticket was given; /,
        /give --enrollment-ticket-file FILE \(the \.ticket file; - for standard input\) or ENROLLMENT_TICKET\n$/,
      ),
    );
  });

  it('explains a malformed ticket', async () => {
    const run = await portal(home('malformed'), [
      'node',
      'create',
      '--foreground',
      '--configuration',
      inletConfig,
      '--enrollment-ticket',
      'pt1.cut-shor',
    ]);
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'portal: the enrollment ticket is malformed (cut short or changed?); ' +
        'give the contents of the .ticket file that portal project ticket wrote\n',
    );
  });

  it('explains a controller that cannot be reached, with exit code 1', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const ticket = encodeTicket({
      controller: `127.0.0.1:${port}`,
      fingerprint: 'a'.repeat(64),
      projectId: 'p1',
      ticketId: 't1',
      secret: 's',
    });
    const run = await portal(home('unreachable'), ['node', 'create', '--foreground', '--configuration', inletConfig], {
      ENROLLMENT_TICKET: ticket,
    });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `portal: cannot reach the controller at 127.0.0.1:${port} (ECONNREFUSED); ` +
        `check that the controller is running and that this machine can reach that address\n`,
    );
  });

  it('refuses to register a relay the ticket does not grant, without spending the ticket', async () => {
    const ticket = await world.ticket({ attribute: 'r-outlet', relay: 'granted' });
    const config = (relay: string) =>
      JSON.stringify({ 'http-server-port': 0, relay, 'tcp-outlet': { to: '127.0.0.1:1', allow: 'x' } });
    const run = await portal(
      home('wrong-relay'),
      ['node', 'create', '--foreground', '--configuration', config('other')],
      { ENROLLMENT_TICKET: ticket },
    );
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      `portal: this ticket grants the relay "granted", but this configuration's outlet is for "other"; ` +
        `it was not used; set relay to "granted", or issue the outlet's ticket with --relay other\n`,
    );
    const fixed = startPortal(
      home('wrong-relay'),
      ['node', 'create', '--foreground', '--configuration', config('granted')],
      { ENROLLMENT_TICKET: ticket },
    );
    try {
      await fixed.waitFor(/Portal node setup completed successfully/);
    } finally {
      await fixed.stop();
    }
  });

  it("refuses an outlet's ticket for an inlet configuration, without spending it", async () => {
    const ticket = await world.ticket({ attribute: 'swapped-outlet', relay: 'swapped' });
    const run = await portal(home('swapped'), ['node', 'create', '--foreground', '--configuration', inletConfig], {
      ENROLLMENT_TICKET: ticket,
    });
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'portal: this ticket was issued for an outlet (it grants the relay "swapped"), ' +
        'but this configuration has no tcp-outlet; it was not used; give this inlet its own ticket ' +
        '(portal project ticket --attribute NAME, with --tls for a TLS inlet), and the outlet this one\n',
    );
    assert.equal(existsSync(join(home('swapped'), 'node', 'identity.json')), false);
    const outlet = startPortal(
      home('swapped'),
      [
        'node',
        'create',
        '--foreground',
        '--configuration',
        JSON.stringify({ 'http-server-port': 0, relay: 'swapped', 'tcp-outlet': { to: '127.0.0.1:1', allow: 'x' } }),
      ],
      { ENROLLMENT_TICKET: ticket },
    );
    try {
      await outlet.waitFor(/enrolled as \S+ in project/);
    } finally {
      await outlet.stop();
    }
  });

  it(
    'runs one node per PORTAL_HOME, blames an enrolled identity and not a new ticket, ' +
      'and resets only after stopping the node',
    async () => {
      const config = JSON.stringify({
        'http-server-port': 0,
        relay: 'one',
        'tcp-outlet': { to: '127.0.0.1:1', allow: 'x' },
      });
      const first = startPortal(home('one'), ['node', 'create', '--foreground', '--configuration', config], {
        ENROLLMENT_TICKET: await world.ticket({ attribute: 'one-outlet', relay: 'one' }),
      });
      let firstExit: number | null | undefined;
      try {
        await first.waitFor(/enrolled as (\S+) in project/);
        const runtime = await readFile(join(home('one'), 'node', 'runtime.json'), 'utf8');
        const second = await portal(home('one'), ['node', 'create', '--foreground', '--configuration', config]);
        assert.equal(second.code, 2);
        assert.match(
          second.stderr,
          new RegExp(
            `^portal: a node runs already with PORTAL_HOME=${home('one')} ` +
              `\\(process ${first.child.pid}, started \\S+, status on 127\\.0\\.0\\.1:\\d+\\); ` +
              `one node per PORTAL_HOME: stop that one first, or give this one another PORTAL_HOME\n$`,
          ),
        );
        assert.equal(
          await readFile(join(home('one'), 'node', 'runtime.json'), 'utf8'),
          runtime,
          "the second start leaves the first's runtime file alone",
        );

        const reset = await portal(home('one'), ['reset']);
        assert.equal(reset.code, 2);
        assert.equal(
          reset.stderr,
          `portal: the node (process ${first.child.pid}) runs with PORTAL_HOME=${home('one')}: ` +
            'resetting would remove its identity while it carries traffic; ' +
            `stop it first, or run portal reset --yes to stop it and reset\n`,
        );
        assert.equal(existsSync(join(home('one'), 'node', 'identity.json')), true);

        const member = JSON.parse(readFileSync(join(home('one'), 'node', 'identity.json'), 'utf8')) as {
          nodeId: string;
          projectId: string;
          controller: string;
        };
        const resetYes = await portal(home('one'), ['reset', '--yes']);
        assert.equal(resetYes.code, 0, resetYes.stderr);
        assert.equal(
          resetYes.stdout,
          `Stopped the node (process ${first.child.pid}).\nReset: removed the Portal state under ${home('one')}.\n` +
            `The node ${member.nodeId} of project ${member.projectId} (controller ${member.controller}) stays an ` +
            `active member until an administrator runs: portal project revoke ${member.nodeId}\n`,
        );
        firstExit = await first.stop();
        assert.equal(firstExit, 0);
      } finally {
        await first.stop();
      }
      // Enrolled again, then started with a configuration its identity does not fit and a new ticket.
      const again = startPortal(home('one'), ['node', 'create', '--foreground', '--configuration', config], {
        ENROLLMENT_TICKET: await world.ticket({ attribute: 'one-outlet', relay: 'one' }),
      });
      await again.waitFor(/enrolled as \S+ in project/);
      await again.stop();
      const other = JSON.stringify({
        'http-server-port': 0,
        relay: 'two',
        'tcp-outlet': { to: '127.0.0.1:1', allow: 'x' },
      });
      const run = await portal(home('one'), ['node', 'create', '--foreground', '--configuration', other], {
        ENROLLMENT_TICKET: await world.ticket({ attribute: 'two-outlet', relay: 'two' }),
      });
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        joinedRegExp(
          /^portal: this home is enrolled already as node \S+ of project \S+, /,
          /whose identity grants the relay "one", but this configuration's outlet is for "two"; /,
          /the ticket given was not used, because an enrolled home keeps its identity; /,
          /an administrator of the project runs portal project grant n[0-9a-f]{16} --relay two, /,
          /then start the node again \(the node fetches the grant from the controller\); /,
          /or to enroll with the new ticket, run portal reset --yes or use another PORTAL_HOME; /,
          /or set relay to "one"\n$/,
        ),
      );
    },
  );

  it('reset --yes refuses, and removes nothing, when the node runs as another user', async () => {
    // As root, the node runs as root and reset as nobody; as another user, process 1 (root's) stands for the node.
    const asRoot = process.getuid?.() === 0;
    assert.ok(
      asRoot || statSync('/proc/1').uid !== process.getuid?.(),
      'this test needs a process of another user: run it as root (it then runs reset as nobody), ' +
        'or where process 1 belongs to another user than the one running the tests',
    );
    const other = asRoot ? start('sleep', ['60']) : undefined;
    const pid = other?.child.pid ?? 1;
    const dir = await mkdtemp(join(tmpdir(), 'portal-reset-other-'));
    try {
      const home = join(dir, 'home');
      const runtime = await homeOfNode(home, pid);
      if (asRoot) for (const path of [dir, home, join(home, 'node'), runtime]) await chown(path, 65534, 65534);
      const reset = start(process.execPath, [portalBundle, 'reset', '--yes'], {
        env: { PORTAL_HOME: home },
        ...(asRoot ? { user: { uid: 65534, gid: 65534 } } : {}),
      });
      const [code] = (await once(reset.child, 'close')) as [number | null];
      assert.equal(code, 1, reset.lines.join('\n'));
      assert.deepEqual(reset.lines, [
        `portal: the node (process ${pid}) belongs to another user (uid ${statSync(`/proc/${pid}`).uid}), ` +
          `so portal reset may not stop it; nothing was removed; stop it as that user or as root (kill ${pid}), ` +
          'then run portal reset --yes again',
      ]);
      assert.equal(existsSync(runtime), true, 'the home is kept');
      if (other) assert.equal(other.child.exitCode, null, 'the node runs on');
    } finally {
      await other?.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it(
    'reset --yes waits for a stopping node for PORTAL_DRAIN_TIMEOUT and 20 s more, ' +
      'and refuses a bad one as the node would',
    async function () {
      this.timeout(60_000);
      const bad = await portal(home('reset-drain'), ['reset', '--yes'], { PORTAL_DRAIN_TIMEOUT: 'soon' });
      assert.deepEqual(
        [bad.code, bad.stderr],
        [
          2,
          'portal: PORTAL_DRAIN_TIMEOUT=soon is not a duration; give a whole number followed by ms, s, m, ' +
            'h or d (such as 10s or 1m), at most 10m, or 0s to close connections at once\n',
        ],
      );
      // A node that does not stop on SIGTERM.
      const stubborn = start(process.execPath, [
        '-e',
        "process.on('SIGTERM', () => console.log('SIGTERM')); setInterval(() => undefined, 1000); " +
          "console.log('ready');",
      ]);
      try {
        await stubborn.waitFor(/^ready$/);
        const pid = stubborn.child.pid as number;
        const runtime = await homeOfNode(home('reset-drain'), pid);
        const started = Date.now();
        const run = await portal(home('reset-drain'), ['reset', '--yes'], { PORTAL_DRAIN_TIMEOUT: '0s' });
        const took = Date.now() - started;
        assert.equal(run.code, 1, run.stderr);
        assert.equal(
          run.stderr,
          `portal: the node (process ${pid}) did not stop within 20 s of SIGTERM; ` +
            `nothing was removed; stop it (kill ${pid}) and run portal reset --yes again, ` +
            `with PORTAL_DRAIN_TIMEOUT as the node has it if it drains longer\n`,
        );
        assert.ok(took >= 20_000 && took < 26_000, `waited ${took} ms`);
        await stubborn.waitFor(/^SIGTERM$/);
        assert.equal(existsSync(runtime), true, 'the home is kept');
      } finally {
        await stubborn.kill();
      }
    },
  );
  it('says when the inlet address is in use', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const config = JSON.stringify({
        'http-server-port': 0,
        'tcp-inlet': { from: `127.0.0.1:${port}`, via: 'x', allow: 'x-outlet' },
      });
      const run = await portal(home('in-use'), ['node', 'create', '--foreground', '--configuration', config], {
        ENROLLMENT_TICKET: await world.ticket({ attribute: 'busy-inlet' }),
      });
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        new RegExp(
          `^portal: the inlet cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use; ` +
            `stop whatever listens there, or change tcp-inlet\\.from\\n$`,
        ),
      );
      assert.equal(existsSync(join(home('in-use'), 'node', 'identity.json')), false, 'the ticket was not spent');
    } finally {
      taken.close();
    }
  });

  it('reports a node that is not running as DOWN, with exit code 1', async () => {
    const run = await portal(home('nothing'), ['node', 'show']);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      joinedRegExp(
        /^portal: The node is DOWN: no node runs with PORTAL_HOME=.*; /,
        /start it with portal node create --foreground, or check its log\n$/,
      ),
    );
  });

  it('takes the ticket from --node-config, and serves HEAD /, GET /show and GET /metrics', async () => {
    const ticket = await world.ticket({ attribute: 'yaml-inlet' });
    const nodeConfig =
      `ticket: "${ticket}"\nhttp-server-port: 0\ntcp-inlet:\n  from: 127.0.0.1:0\n` +
      `  via: nowhere\n  allow: nobody\n`;
    const node = startPortal(home('yaml'), ['node', 'create', '--foreground', '--node-config', nodeConfig]);
    try {
      // Never set up: no outlet is registered as "nowhere". It says where it listens, and /show says why.
      await node.waitFor(/ listens on /);
      const { statusPort } = JSON.parse(
        await (await import('node:fs/promises')).readFile(join(home('yaml'), 'node', 'runtime.json'), 'utf8'),
      ) as { statusPort: number };
      const base = `http://127.0.0.1:${statusPort}`;
      assert.equal((await fetch(base, { method: 'HEAD' })).status, 200);
      const shown = await statusFromStart(
        home('yaml'),
        (status) => status.problems.some((problem) => problem.includes('no outlet is registered')),
        10_000,
      );
      // Nothing answers on relay "nowhere": the node runs, but cannot carry traffic, and says why.
      assert.equal(shown.status, 'starting');
      assert.equal(shown.problems.length, 1);
      const why =
        'no outlet is registered for the relay "nowhere" right now; ' +
        'check that the outlet runs and that via "nowhere" is its relay name';
      assert.match(
        shown.problems[0] ?? '',
        new RegExp(
          `^its inlet on 127\\.0\\.0\\.1:\\d+ has no session to relay "nowhere" \\(retrying\\): ${escape(why)}$`,
        ),
      );
      assert.ok(!node.lines.some((line) => line.includes('setup completed')), 'no setup completed without a session');
      assert.deepEqual(shown.identity.attributes, ['yaml-inlet']);
      assert.equal(shown.identity.expired, false);
      assert.match(shown.version, /^\d+\.\d+\.\d+$/);
      const show = await portal(home('yaml'), ['node', 'show']);
      assert.equal(show.code, 1);
      assert.equal(show.stdout, '');
      assert.match(
        show.stderr,
        new RegExp(
          `^portal: The node is DOWN: its inlet on 127\\.0\\.0\\.1:\\d+ has no session to relay "nowhere" ` +
            `\\(retrying\\): ${escape(why)} \\(not up yet, \\d+ s after its start\\); the node runs \\(pid \\d+\\); ` +
            `its log says more about each problem\n$`,
        ),
      );
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
