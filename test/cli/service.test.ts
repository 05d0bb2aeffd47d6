import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chmod,
  chown,
  copyFile,
  lchown,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createWorld } from '../support/portal-world.ts';
import { freePort, nodeStatus, portalAt, runToEnd, start, type Running } from '../support/processes.ts';
import { placeBundle, type PlacedBundle } from '../support/placed-bundle.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';
import { parseUnit, words } from '../support/systemd-unit-file.ts';
import { inMountNamespace } from '../support/unit-sandbox.ts';

/** Runs a unit's ExecStart as systemd would: its Environment, and its credentials copied into a fresh directory. */
async function runUnit(
  path: string,
  scratch: string,
  replace: Record<string, string> = {},
  user?: { uid: number; gid: number },
): Promise<Running> {
  const credentials = await mkdtemp(join(scratch, 'credentials-'));
  const unit = await parseUnit(path, credentials);
  for (const { id, path: source } of unit.credentials) {
    await copyFile(replace[id] ?? source, join(credentials, id));
    await chmod(join(credentials, id), 0o400);
    // systemd gives the credentials to the unit's User=.
    if (user) await chown(join(credentials, id), user.uid, user.gid);
  }
  if (user) await chown(credentials, user.uid, user.gid);
  const [command = '', ...args] = unit.execStart;
  return start(command, args, {
    isolated: true,
    env: { PATH: process.env.PATH, ...unit.environment, CREDENTIALS_DIRECTORY: credentials },
    ...(user ? { user } : {}),
  });
}

/** Runs a unit's ExecReload= as systemd would with its `+` prefix: as root, with the unit's Environment. */
async function reloadUnit(path: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const unit = await parseUnit(path, '/nonexistent');
  const [line = ''] = unit.settings.get('ExecReload') ?? [];
  assert.ok(line.startsWith('+'), `ExecReload=${line} runs with full privileges`);
  const [command = '', ...args] = words(line.slice(1), '/nonexistent');
  return runToEnd(command, args, { env: { PATH: process.env.PATH, ...unit.environment } });
}

const key = () => `${randomBytes(32).toString('base64')}\n`;

/** The bundle the units run: a copy under /opt, wherever this checkout is. */
let placed: PlacedBundle;
const portal = (home: string, args: readonly string[]) => portalAt(placed.bundle)(home, args);

describe('portal service install: systemd units', function () {
  // Some tests start the program twenty times: about 4 s each on a loaded machine of two cores.
  this.timeout(240_000);
  let dir: string;
  let units: string;
  const running: Running[] = [];

  before(async () => {
    placed = await placeBundle();
    dir = await mkdtemp(join(tmpdir(), 'portal-service-'));
    units = join(dir, 'units');
    await mkdir(join(dir, 'etc'), { mode: 0o700 });
    await writeFile(join(dir, 'etc', 'controller-seal.key'), key(), { mode: 0o600 });
    await writeFile(join(dir, 'etc', 'node-seal.key'), key(), { mode: 0o600 });
    await writeFile(
      join(dir, 'etc', 'node.yaml'),
      'http-server-port: 0\ntcp-inlet:\n  from: 127.0.0.1:0\n  via: svc\n  allow: svc-outlet\n',
    );
    await writeFile(join(dir, 'etc', 'relay.ticket'), 'pt1.placeholder\n', { mode: 0o600 });
  });

  after(async () => {
    for (const process of running) await process.stop();
    await rm(dir, { recursive: true, force: true });
    await placed.remove();
  });

  it('writes units that systemd-analyze verify accepts without a word, and says how to start them', async () => {
    const controllerPort = await freePort();
    const installs: [string, string[]][] = [
      [
        'controller',
        [
          '--listen',
          `127.0.0.1:${controllerPort}`,
          '--sealing-key-file',
          join(dir, 'etc', 'controller-seal.key'),
          '--home',
          join(dir, 'controller-home'),
        ],
      ],
      [
        'node',
        [
          '--configuration',
          join(dir, 'etc', 'node.yaml'),
          '--sealing-key-file',
          join(dir, 'etc', 'node-seal.key'),
          '--home',
          join(dir, 'node-home'),
          '--env',
          'NODE_LOG_LEVEL=debug',
          '--env',
          'PORTAL_DRAIN_TIMEOUT=1m',
        ],
      ],
      [
        'relay',
        [
          '--listen',
          '0.0.0.0:443',
          '--public-address',
          'relay.example.net:443',
          '--enrollment-ticket-file',
          join(dir, 'etc', 'relay.ticket'),
        ],
      ],
    ];
    for (const [role, flags] of installs) {
      const run = await portal(dir, ['service', 'install', role, '--output', units, ...flags]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, '', 'no warning: Node.js and the bundle are readable by every user here');
      assert.equal(
        run.stdout,
        `Wrote ${join(units, `portal-${role}.service`)}.\nTo start it, as root:\n` +
          '  id -u portal >/dev/null 2>&1 || ' +
          'useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin portal\n' +
          (role === 'relay' ? '' : `  install -d -o portal -m 0700 ${join(dir, `${role}-home`)}\n`) +
          `  systemctl daemon-reload\n  systemctl enable --now portal-${role}\n` +
          `  journalctl -u portal-${role} -f    # its log\n`,
      );
      const verified = spawnSync('systemd-analyze', ['verify', join(units, `portal-${role}.service`)], {
        encoding: 'utf8',
      });
      assert.deepEqual(
        [verified.status, verified.stdout, verified.stderr],
        [0, '', ''],
        `systemd-analyze verify portal-${role}.service`,
      );
    }
    assert.deepEqual((await readdir(units)).sort(), [
      'portal-controller.service',
      'portal-node.service',
      'portal-relay.service',
    ]);

    const credentials = '/run/credentials/portal-node.service';
    const node = await parseUnit(join(units, 'portal-node.service'), credentials);
    assert.deepEqual(node.execStart, [
      process.execPath,
      placed.bundle,
      'node',
      'create',
      '--foreground',
      '--configuration',
      `${credentials}/configuration`,
    ]);
    assert.deepEqual(
      node.settings.get('ExecReload'),
      [`+${process.execPath} ${placed.bundle} node reload --configuration ${join(dir, 'etc', 'node.yaml')}`],
      'systemctl reload reads the source file as root: the credential is a copy made at start',
    );
    assert.deepEqual(node.credentials, [
      { id: 'configuration', path: join(dir, 'etc', 'node.yaml') },
      { id: 'node-seal.key', path: join(dir, 'etc', 'node-seal.key') },
    ]);
    assert.deepEqual(node.environment, {
      PORTAL_HOME: join(dir, 'node-home'),
      NODE_LOG_LEVEL: 'debug',
      PORTAL_DRAIN_TIMEOUT: '1m',
      PORTAL_SEALING_KEY_FILE: `${credentials}/node-seal.key`,
    });
    assert.deepEqual(
      node.settings.get('TimeoutStopSec'),
      ['80s'],
      'systemd waits for the drain of 1m the node is given, and 20 s more',
    );
    const relay = await parseUnit(join(units, 'portal-relay.service'), credentials);
    assert.deepEqual(relay.execStart.slice(2), [
      'relay',
      'start',
      '--listen',
      '0.0.0.0:443',
      '--public-address',
      'relay.example.net:443',
      '--enrollment-ticket-file',
      `${credentials}/enrollment.ticket`,
    ]);
    assert.deepEqual(relay.environment, { PORTAL_HOME: '/var/lib/portal/relay' });
    assert.deepEqual(relay.settings.get('StateDirectory'), ['portal/relay']);
    assert.deepEqual(
      relay.settings.get('AmbientCapabilities'),
      ['CAP_NET_BIND_SERVICE'],
      'port 443 needs the one capability',
    );
    for (const [setting, value] of [
      ['User', 'portal'],
      ['Restart', 'on-failure'],
      ['RestartPreventExitStatus', '2'],
      ['KillSignal', 'SIGTERM'],
      ['TimeoutStopSec', '30s'],
      ['LimitNOFILE', '65536'],
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ReadWritePaths', '/var/lib/portal/relay'],
    ]) {
      assert.deepEqual(relay.settings.get(setting as string), [value], setting);
    }
  });

  it(
    'runs a controller that reads its sealing key from the credential, ' +
      'and a node enrolled with the ticket credential',
    async () => {
      const controllerUnit = join(units, 'portal-controller.service');
      const controller = await runUnit(controllerUnit, dir);
      running.push(controller);
      const listening = await controller.waitFor(/^controller listening on /);
      const code = /portal enroll --controller (\S+) --code (\S+)/.exec(
        await controller.waitFor(/^enroll an administrator with/),
      );
      assert.ok(code);
      assert.equal(
        controller.lines.filter((line) => / WARN /.test(line)).length,
        0,
        `no warning about the sealing key:\n${controller.lines.join('\n')}`,
      );
      assert.equal(existsSync(join(dir, 'controller-home', 'keys')), false, 'no key was made under PORTAL_HOME');
      assert.match(listening, /^controller listening on 127\.0\.0\.1:\d+/);

      const admin = join(dir, 'admin');
      const enrolled = await portal(admin, ['enroll', '--controller', code[1] as string, '--code', code[2] as string]);
      assert.equal(enrolled.code, 0, enrolled.stderr);
      const ticket = await portal(admin, ['project', 'ticket', '--attribute', 'svc-inlet']);
      await writeFile(join(dir, 'etc', 'node.ticket'), ticket.stdout, { mode: 0o600 });
      const installed = await portal(dir, [
        'service',
        'install',
        'node',
        '--name',
        'portal-node-2',
        '--output',
        units,
        '--configuration',
        join(dir, 'etc', 'node.yaml'),
        '--enrollment-ticket-file',
        join(dir, 'etc', 'node.ticket'),
        '--sealing-key-file',
        join(dir, 'etc', 'node-seal.key'),
        '--home',
        join(dir, 'node-2-home'),
      ]);
      assert.equal(installed.code, 0, installed.stderr);
      const node = await runUnit(join(units, 'portal-node-2.service'), dir);
      running.push(node);
      await node.waitFor(/enrolled as n[0-9a-f]+ in project \S+ with attribute svc-inlet/);
      // Running: its listeners are up (no outlet serves "svc", so it is not set up to carry traffic).
      await node.waitFor(/INFO node n[0-9a-f]+ listens on 127\.0\.0\.1:\d+ \(inlet clients\)/);
      assert.equal(
        existsSync(join(dir, 'node-2-home', 'keys', 'node-seal.key')),
        false,
        'the node sealed its identity with the credential',
      );
      await node.stop();
      await controller.stop();

      // Another key in the credential: the controller names the credential it read, and stops.
      await writeFile(join(dir, 'other.key'), key(), { mode: 0o600 });
      const refused = await runUnit(controllerUnit, dir, { 'controller-seal.key': join(dir, 'other.key') });
      running.push(refused);
      const exit = await refused.ended();
      assert.equal(exit, 1);
      assert.match(
        refused.lines.join('\n'),
        /^portal: the sealing key in \S+\/credentials-\w+\/controller-seal\.key does not open /m,
      );
    },
  );

  it(
    "reloads a node of another user with the unit's ExecReload=, run as root, from the source file " +
      'that the credential copied only at start',
    async () => {
      const world = await createWorld();
      try {
        // The node runs as nobody, as under User=: its home and the scratch folder's path are its own to enter.
        const nobody = { uid: 65534, gid: 65534 };
        await chmod(dir, 0o711);
        const home = join(dir, 'reload-home');
        await mkdir(home, { mode: 0o700 });
        await chown(home, nobody.uid, nobody.gid);
        const source = join(dir, 'etc', 'reload.yaml');
        await writeFile(source, 'http-server-port: 0\ntcp-inlet: {from: "127.0.0.1:0", via: a, allow: x}\n', {
          mode: 0o600,
        });
        await writeFile(join(dir, 'etc', 'reload.ticket'), await world.ticket({ attribute: 'svc-inlet' }), {
          mode: 0o600,
        });
        const installed = await portal(dir, [
          'service',
          'install',
          'node',
          '--name',
          'portal-reload',
          '--output',
          units,
          '--configuration',
          source,
          '--enrollment-ticket-file',
          join(dir, 'etc', 'reload.ticket'),
          '--home',
          home,
        ]);
        assert.equal(installed.code, 0, installed.stderr);
        const unit = join(units, 'portal-reload.service');
        const node = await runUnit(unit, dir, {}, nobody);
        running.push(node);
        await node.waitFor(/INFO node n[0-9a-f]+ listens on 127\.0\.0\.1:\d+ \(inlet clients\)/);

        // The operator edits the source file, as root, and runs systemctl reload portal-reload.
        await writeFile(
          source,
          'http-server-port: 0\ntcp-inlets:\n' +
            '  a: {from: "127.0.0.1:0", allow: x}\n  b: {from: "127.0.0.1:0", allow: x}\n',
        );
        const applied = await reloadUnit(unit);
        assert.equal(applied.code, 0, applied.stderr);
        assert.match(
          applied.stdout,
          /^Reloaded the configuration of the node \(process \d+\): added inlet b; replaced inlet a; 0 unchanged\.\n$/,
        );
        assert.deepEqual(
          (await nodeStatus(home)).inlets.map((entry) => entry.name),
          ['a', 'b'],
        );
        const kept = await stat(join(home, 'node', 'configuration'));
        assert.deepEqual(
          [kept.uid, kept.mode & 0o777],
          [nobody.uid, 0o600],
          "the copy root wrote is the node user's, readable by it alone",
        );

        // A mistake in the source: systemctl reload fails (exit 2, in the journal), the node runs as before.
        await writeFile(source, 'http-server-port: 0\ntcp-inlets:\n  a: {from: "127.0.0.1:0", allow: x, extra: 1}\n');
        const refused = await reloadUnit(unit);
        assert.equal(refused.code, 2);
        assert.equal(
          refused.stderr,
          `${source}:3:38: /tcp-inlets/a/extra: unknown key "extra"; expected one of: from, via, allow, tls, direct\n` +
            'portal: 1 problem; fix the configuration and reload again; the node carries on with the one it runs\n',
          'located in the file the operator edits',
        );
        assert.deepEqual(
          (await nodeStatus(home)).inlets.map((entry) => entry.name),
          ['a', 'b'],
        );

        // The node's user owns its home: a link it plants where the kept copy is must not make root read
        // a file of root's into it, nor write through the link.
        const secret = join(dir, 'etc', 'root-only.secret');
        await writeFile(secret, 'root-only-contents\n', { mode: 0o600 });
        const keptFile = join(home, 'node', 'configuration');
        await rm(keptFile);
        await symlink(secret, keptFile);
        await lchown(keptFile, nobody.uid, nobody.gid);
        const planted = await reloadUnit(unit);
        assert.equal(planted.code, 2, planted.stderr);
        assert.equal(await readFile(secret, 'utf8'), 'root-only-contents\n', 'nothing written through the link');
        assert.equal((await lstat(keptFile)).isSymbolicLink(), false, 'the link was replaced, not followed');
        assert.ok(!(await readFile(keptFile, 'utf8')).includes('root-only-contents'), 'root read nothing through it');
        await node.stop();
      } finally {
        await world.close();
      }
    },
  );

  it('prints with --dry-run and writes nothing; refuses what would not run or would replace a unit', async () => {
    const dry = join(dir, 'dry');
    const printed = await portal(dir, ['service', 'install', 'relay', '--output', dry, '--dry-run']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^# portal-relay\.service: Portal relay, written by portal service install relay/);
    assert.match(printed.stdout, /\nExecStart=\S+ \S+ relay start --listen 0\.0\.0\.0:4100\n/);
    assert.equal(existsSync(dry), false);
    const refusals: [string[], RegExp][] = [
      [
        ['controller', '--listen', '0.0.0.0:4000', '--public-address', 'c.example.net:4000'],
        joinedRegExp(
          /^portal: portal service install controller needs --sealing-key-file; /,
          /make the key once, readable by root alone: \(umask 077; openssl rand -base64 32 > /,
          /\/etc\/portal\/controller-seal\.key\)/,
        ),
      ],
      [
        ['controller', '--listen', '0.0.0.0:4000', '--sealing-key-file', join(dir, 'etc', 'controller-seal.key')],
        joinedRegExp(
          /^portal: --listen 0\.0\.0\.0:4000 accepts nodes on every address, /,
          /but without --public-address tickets would name 127\.0\.0\.1:4000/,
        ),
      ],
      [['node'], /^portal: portal service install node needs --configuration/],
      [
        ['node', '--configuration', join(dir, 'etc', 'missing.yaml')],
        /^portal: --configuration \S+missing\.yaml does not exist; create the file first/,
      ],
      [
        ['relay', '--configuration', join(dir, 'etc', 'node.yaml')],
        /^portal: --configuration does not apply to a relay; leave it out; it is for node units/,
      ],
      [['relay', '--user', 'root'], /^portal: --user root would run Portal with every privilege/],
      [
        ['relay', '--home', '/home/portal'],
        /^portal: --home \/home\/portal lies where the unit's ProtectHome=yes hides it/,
      ],
      [['gateway'], /^portal: portal service install gateway: no such role; give node, relay or controller/],
      [
        ['node', '--configuration', join(dir, 'etc', 'node.yaml'), '--output', units],
        /^portal: \S+portal-node\.service exists already; add --force to replace it, or give another --name/,
      ],
      // What the process would refuse at its start, refused in the same words.
      [
        ['relay', '--env', 'PORTAL_DRAIN_TIMEOUT=soon'],
        joinedRegExp(
          /^portal: PORTAL_DRAIN_TIMEOUT=soon is not a duration; /,
          /give a whole number followed by ms, s, m, h or d \(such as 10s or 1m\), at most 10m, /,
          /or 0s to close connections at once\n$/,
        ),
      ],
      [
        ['relay', '--env', 'PORTAL_DRAIN_TIMEOUT=1h'],
        /^portal: PORTAL_DRAIN_TIMEOUT=1h is longer than 10m; give a whole number/,
      ],
      // Secrets, which the unit file would show to every user.
      [
        ['node', '--configuration', join(dir, 'etc', 'node.yaml'), '--env', 'ENROLLMENT_TICKET=pt1.secret'],
        joinedRegExp(
          /^portal: --env ENROLLMENT_TICKET=… would write the enrollment ticket into the unit file, /,
          /which every user can read; give --enrollment-ticket-file FILE instead: /,
          /the unit loads it as a credential, which only root and the service can read\n$/,
        ),
      ],
      [
        ['controller', '--listen', '127.0.0.1:4000', '--env', 'PORTAL_CONTROLLER_SEALING_KEY=pt1.secret'],
        joinedRegExp(
          /^portal: --env PORTAL_CONTROLLER_SEALING_KEY=… /,
          /would write the controller's sealing key into the unit file, which every user can read; /,
          /give --sealing-key-file FILE instead/,
        ),
      ],
      [
        ['node', '--configuration', join(dir, 'etc', 'node.yaml'), '--', '--enrollment-ticket', 'pt1.secret'],
        joinedRegExp(
          /^portal: the argument --enrollment-ticket would write the enrollment ticket into the unit file, /,
          /which every user can read; give --enrollment-ticket-file FILE instead/,
        ),
      ],
      [
        ['relay', '--', '--enrollment-ticket=pt1.secret'],
        /^portal: the argument --enrollment-ticket would write the enrollment ticket into the unit file/,
      ],
      [
        ['relay', '--', '--code', 'pt1.secret'],
        joinedRegExp(
          /^portal: the argument --code would write a one-time admin code into the unit file, /,
          /which every user can read; leave it out: /,
          /a service takes its secrets as credentials, with --enrollment-ticket-file and --sealing-key-file\n$/,
        ),
      ],
    ];
    for (const [args, message] of refusals) {
      const run = await portal(dir, [
        'service',
        'install',
        ...(args.includes('--output') ? [] : ['--output', dry]),
        ...args,
      ]);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stderr, /pt1\.secret/, 'the secret is not repeated');
    }
    assert.equal(existsSync(dry), false, 'nothing was written');
    const forced = await portal(dir, [
      'service',
      'install',
      'node',
      '--configuration',
      join(dir, 'etc', 'node.yaml'),
      '--output',
      units,
      '--force',
    ]);
    assert.equal(forced.code, 0, forced.stderr);
  });

  it('checks a node of several portals as its unit runs it: every inlet port, placeholders from --env', async () => {
    const inlets = join(dir, 'etc', 'inlets.yaml');
    await writeFile(
      inlets,
      'tcp-inlets:\n' +
        '  db:\n    from: 127.0.0.1:15432\n    allow: svc-outlet\n' +
        '  api:\n    from: 0.0.0.0:443\n    allow: svc-outlet\n    direct: false\n',
    );
    const printed = await portal(dir, ['service', 'install', 'node', '--configuration', inlets, '--dry-run']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /\nAmbientCapabilities=CAP_NET_BIND_SERVICE\n/, 'the second inlet listens on 443');

    const outlets = join(dir, 'etc', 'outlets.yaml');
    await writeFile(outlets, 'tcp-outlets:\n  cache:\n    to: $CACHE_ENDPOINT:6379\n    allow: svc-inlet\n');
    const unset = await portal(dir, ['service', 'install', 'node', '--configuration', outlets, '--dry-run']);
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /\/tcp-outlets\/cache\/to: .*CACHE_ENDPOINT/);
    const given = await portal(dir, [
      'service',
      'install',
      'node',
      '--configuration',
      outlets,
      '--env',
      'CACHE_ENDPOINT=cache.internal',
      '--dry-run',
    ]);
    assert.equal(given.code, 0, given.stderr);
    assert.match(given.stdout, /\nEnvironment=.*CACHE_ENDPOINT=cache\.internal/);
  });

  it('warns when the service user could not read the program it would run', () => {
    // Under /srv (a tmpfs in this namespace alone): /tmp would be refused, since PrivateTmp=yes hides it.
    const run = inMountNamespace(
      'mount -t tmpfs portal-test /srv\nmkdir -m 0700 /srv/private\ncp -r "$1"/. /srv/private/\n' +
        'exec "$2" /srv/private/portal.mjs service install relay --dry-run',
      [dirname(placed.bundle), process.execPath],
      { PORTAL_HOME: dir },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stderr,
      'portal: warning: the service cannot run /srv/private/portal.mjs as portal: /srv/private is mode 0700, ' +
        'which others may not enter; ' +
        'install Node.js and Portal where every user can read them ' +
        '(PORTAL_HOME=/opt/portal sh install.sh, then chmod 755 /opt/portal), and run this again from there\n',
    );
  });
});
