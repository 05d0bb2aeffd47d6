/**
 * `portal service install` names the files themselves, never a link, and refuses a program its unit's
 * sandbox hides. The units run here under that sandbox (test/support/unit-sandbox.ts): what it refuses
 * really cannot run there, and what it accepts starts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, link, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort, portalBundle, type Running } from '../support/processes.ts';
import { placeBundle, type PlacedBundle } from '../support/placed-bundle.ts';
import { parseUnit } from '../support/systemd-unit-file.ts';
import { inMountNamespace, startInUnitSandbox } from '../support/unit-sandbox.ts';

const portalFix =
  'install Portal where the service can reach it (PORTAL_HOME=/opt/portal sh install.sh, or unpack a release ' +
  'made by npm run release, or copy it under /opt or /usr/local) and run portal service install from there';
const nodeFix =
  'install Node.js where the service can reach it (a distribution package in /usr, or the nodejs.org tarball ' +
  'under /usr/local) and run portal service install with that Node.js';

describe('portal service install: the program under the unit sandbox', function () {
  this.timeout(120_000);
  let dir: string;
  let key: string;
  /** The bundle copied into a checkout under /tmp. */
  let checkout: string;
  /** Node.js linked (hard) under /tmp: the same program, at a path PrivateTmp=yes hides. */
  let hiddenNode: string;
  /** The bundle installed where the sandbox lets it run, wherever this checkout is. */
  let placed: PlacedBundle;
  const running: Running[] = [];

  before(async () => {
    placed = await placeBundle();
    dir = await mkdtemp(join(tmpdir(), 'portal-service-sandbox-'));
    key = join(dir, 'controller-seal.key');
    await writeFile(key, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    checkout = join(dir, 'checkout', 'dist', 'portal.mjs');
    await cp(dirname(portalBundle), join(dir, 'checkout', 'dist'), { recursive: true });
    hiddenNode = join(dir, 'node');
    // A hard link is a file of its own path (a copy where /tmp is another file system).
    await link(process.execPath, hiddenNode).catch(() => copyFile(process.execPath, hiddenNode));
  });

  after(async () => {
    for (const process of running) await process.stop();
    await rm(dir, { recursive: true, force: true });
    await placed.remove();
  });

  const install = ['service', 'install', 'controller', '--dry-run', '--listen', '127.0.0.1:4000'];

  it('refuses, in one line, a program whose link leads under /home or /tmp, naming the directive', () => {
    // A checkout under /home (a tmpfs over it, in this namespace alone) and a link to it elsewhere, as
    // `npm link` makes: the unit would follow the link at every start into what ProtectHome=yes hides.
    const fromHome = inMountNamespace(
      'mount -t tmpfs portal-test /home\nmount -t tmpfs portal-test /srv\n' +
        'mkdir -p /home/dev/portal /srv/bin\ncp -r "$1" /home/dev/portal/dist\n' +
        'ln -s /home/dev/portal/dist/portal.mjs /srv/bin/portal\nshift\nexec "$@"',
      [dirname(portalBundle), process.execPath, '/srv/bin/portal', ...install, '--sealing-key-file', key],
    );
    assert.deepEqual(
      [fromHome.status, fromHome.stdout, fromHome.stderr],
      [
        2,
        '',
        'portal: the unit would run the portal program at /home/dev/portal/dist/portal.mjs ' +
          '(where /srv/bin/portal leads), but its ProtectHome=yes hides /home from the service; ' +
          `${portalFix}\n`,
      ],
    );

    const fromTmp = spawnSync(process.execPath, [checkout, ...install, '--sealing-key-file', key], {
      encoding: 'utf8',
    });
    assert.deepEqual(
      [fromTmp.status, fromTmp.stdout, fromTmp.stderr],
      [
        2,
        '',
        `portal: the unit would run the portal program at ${checkout}, ` +
          `but its PrivateTmp=yes hides /tmp from the service; ${portalFix}\n`,
      ],
    );

    const nodeInTmp = spawnSync(hiddenNode, [portalBundle, ...install, '--sealing-key-file', key], {
      encoding: 'utf8',
    });
    assert.deepEqual(
      [nodeInTmp.status, nodeInTmp.stdout, nodeInTmp.stderr],
      [
        2,
        '',
        `portal: the unit would run Node.js at ${hiddenNode}, ` +
          `but its PrivateTmp=yes hides /tmp from the service; ${nodeFix}\n`,
      ],
    );
  });

  it('writes the files a link leads to, and the unit starts under its sandbox; a refused program cannot', async () => {
    const links = join(dir, 'links');
    await mkdir(links);
    await symlink(placed.bundle, join(links, 'portal'));
    const port = await freePort();
    const units = join(dir, 'units');
    const installed = spawnSync(
      process.execPath,
      [
        join(links, 'portal'),
        'service',
        'install',
        'controller',
        '--output',
        units,
        '--listen',
        `127.0.0.1:${port}`,
        '--sealing-key-file',
        key,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(installed.status, 0, installed.stderr);
    assert.equal(installed.stderr, '');
    const unitPath = join(units, 'portal-controller.service');
    const unit = await parseUnit(unitPath, '%d');
    assert.deepEqual(
      unit.execStart.slice(0, 2),
      [await realpath(process.execPath), await realpath(placed.bundle)],
      'the bundle the link leads to, not the link under /tmp',
    );

    const controller = await startInUnitSandbox(unitPath);
    running.push(controller);
    await controller.waitFor(new RegExp(`^controller listening on 127\\.0\\.0\\.1:${port},`), 30_000);
    const pid = controller.child.pid as number;
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    assert.match(status, /^Uid:\s+65534\s/m, 'it runs as an unprivileged user');
    assert.match(status, /^CapBnd:\s+0+$/m, 'with no capabilities');
    assert.equal(existsSync(dir), true);
    assert.equal(existsSync(`/proc/${pid}/root${dir}`), false, 'this test’s files under /tmp are hidden from it');
    assert.equal(existsSync(`/proc/${pid}/root/var/lib/portal/controller/controller`), true, 'its state in /var/lib');
    assert.equal(await controller.stop(), 0);

    for (const [program, refusal] of [
      [[process.execPath, checkout], new RegExp(`Cannot find module '${checkout}'`)],
      [[hiddenNode, portalBundle], new RegExp(`setpriv: failed to execute ${hiddenNode}: No such file or directory`)],
    ] as const) {
      const hidden = await startInUnitSandbox(unitPath, { program });
      running.push(hidden);
      const exit = await hidden.ended();
      assert.notEqual(exit, 0, program.join(' '));
      assert.match(hidden.lines.join('\n'), refusal);
    }

    // The same checkout from under /home: ProtectHome=yes hides it as PrivateTmp=yes hides /tmp.
    const fromHome = await startInUnitSandbox(unitPath, {
      program: [process.execPath, '/home/dev/portal/dist/portal.mjs'],
      prepare: [
        'mount -t tmpfs portal-test /home',
        'mkdir -p /home/dev/portal/dist',
        `cp '${checkout}' /home/dev/portal/dist/`,
      ].join('\n'),
    });
    running.push(fromHome);
    const exit = await fromHome.ended();
    assert.notEqual(exit, 0);
    assert.match(fromHome.lines.join('\n'), /Cannot find module '\/home\/dev\/portal\/dist\/portal\.mjs'/);
  });
});
