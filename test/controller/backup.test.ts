import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { startEchoPortal, type EchoPortal } from '../support/echo-portal.ts';
import { newConnections } from '../support/node-checks.ts';
import { inletPort, portal, type Running } from '../support/processes.ts';
import { startProject, type ProjectProcesses } from '../support/project-processes.ts';
import { startRelay, type RelayProcess } from '../support/relay-processes.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

const heartbeat = { PORTAL_HEARTBEAT: '500ms' };
const renewed = /renewed this node's certificate|the controller re-issued it/;

/** Resolves once `process` prints a line matching `pattern` after its first `from` lines. */
async function lineAfter(process: Running, from: number, pattern: RegExp, limitMs = 20_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const line = process.lines.slice(from).find((candidate) => pattern.test(candidate));
    if (line) return line;
    if (Date.now() - started > limitMs)
      throw new Error(
        `no ${pattern} within ${limitMs} ms after line ${from}:\n${process.lines.slice(from).join('\n')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('portal controller backup and restore, with a project carrying traffic', function () {
  this.timeout(120_000);
  let project: ProjectProcesses;
  let relay: RelayProcess;
  let echo: EchoPortal;
  let backup: string;
  let restored: string;
  const controllerHome = () => join(project.dir, 'controller-home');

  before(async () => {
    // Relays only, so the relay's registration with the restored controller is seen; short-lived
    // certificates, so the nodes must renew with the restored controller within seconds.
    project = await startProject({ controllerFlags: ['--no-relay', '--credential-lifetime', '8s'] });
    relay = await startRelay(project, 'relay-a', { env: heartbeat });
    echo = await startEchoPortal(project, heartbeat, { direct: false });
    backup = join(project.dir, 'backups', 'controller.tar');
    restored = join(project.dir, 'restored', 'controller');
  });

  after(async () => {
    await project?.close();
    await relay?.process.stop();
    await echo?.echo.close();
  });

  it(
    'backs up the running controller to one 0600 file that holds no sealing key, ' + 'and says where the key is',
    async () => {
      assert.equal(await newConnections(echo.port, 5), 0);
      await mkdir(join(project.dir, 'backups'));
      const run = await portal(controllerHome(), [
        'controller',
        'backup',
        '--data-dir',
        project.controller.dataDir,
        '--output',
        backup,
      ]);
      assert.equal(run.code, 0, run.stderr);
      const keyFile = join(controllerHome(), 'keys', 'controller-seal.key');
      assert.equal(
        run.stdout,
        `Backed up the controller data in ${project.controller.dataDir} (1 project, 4 members) to ${backup} ` +
          `(mode 0600).\nThe sealing key is not in the backup: it is ${keyFile}, ` +
          'which opens it and authenticates it; ' +
          `keep a copy of it apart from the backup (restoring needs both).\n`,
      );
      assert.equal((await stat(backup)).mode & 0o777, 0o600);
      assert.deepEqual(await readdir(join(project.dir, 'backups')), ['controller.tar'], 'nothing left beside it');
      const listed = spawnSync('tar', ['-tf', backup], { encoding: 'utf8' });
      assert.equal(
        listed.stdout,
        'backup.mac\nbackup.json\ncontroller.db\ntls.crt\ntls.key.sealed\n',
        'a tar archive that tar reads',
      );
      const archive = await readFile(backup);
      const key = (await readFile(keyFile, 'utf8')).trim();
      assert.equal(archive.includes(key), false, 'the sealing key is not in the backup');
      assert.equal(archive.includes(Buffer.from(key, 'base64')), false);
      assert.equal(await newConnections(echo.port, 5), 0, 'the portal carried on during the backup');
    },
  );

  it(
    'restores into a new data directory, and a controller started from it on the same address is ' +
      'the same controller',
    async () => {
      await project.controller.process.stop();
      const fingerprint = project.controller.fingerprint;
      // As a systemd StateDirectory= would be: owned by the service's user (here "nobody", when the test runs as root).
      const asRoot = process.getuid?.() === 0;
      await mkdir(dirname(restored), { mode: 0o700 });
      if (asRoot) await chown(dirname(restored), 65534, 65534);
      const run = await portal(controllerHome(), ['controller', 'restore', '--input', backup, '--data-dir', restored]);
      assert.equal(run.code, 0, run.stderr);
      if (asRoot) {
        for (const name of ['', 'controller.db', 'tls.crt', 'tls.key.sealed'])
          assert.equal(
            (await stat(join(restored, name))).uid,
            65534,
            `root gave ${name || 'the directory'} to the owner of its parent`,
          );
        await chown(dirname(restored), 0, 0);
        for (const name of ['', 'controller.db', 'tls.crt', 'tls.key.sealed']) await chown(join(restored, name), 0, 0);
      }
      const lines = run.stdout.split('\n');
      assert.match(
        lines[0] ?? '',
        new RegExp(
          `^Restored ${backup} \\(taken \\S+ of ${project.controller.dataDir} by Portal \\S+: ` +
            `1 project, 4 members\\) into ${restored}\\.$`,
        ),
      );
      assert.equal(
        lines[1],
        `The sealing key ${join(controllerHome(), 'keys', 'controller-seal.key')} opens it and proves every byte ` +
          'of it unchanged.',
      );
      assert.match(
        lines[2] ?? '',
        joinedRegExp(
          /^Project \S+: the trail records the restore at \d+ \(backup head \d+:[0-9a-f]{12}…, /,
          /replaced head unknown\); \d+ tickets? issued before the backup (was|were) retired; /,
          /0 revocations taken back/,
        ),
      );
      assert.match(
        lines[3] ?? '',
        joinedRegExp(
          /^Start it at the address it had, which every ticket and node names: /,
          /portal controller start --data-dir \S+ --listen 0\.0\.0\.0:PORT --public-address HOST:PORT$/,
        ),
      );
      // Then what only the operator can do, numbered: start it, enroll again, issue tickets, revoke again, back up.
      const retired = Number(/(\d+) tickets? issued before the backup/.exec(lines[2] ?? '')?.[1]);
      const steps = [
        /^Start it: portal controller start --data-dir \S+ --listen 0\.0\.0\.0:PORT /,
        /^Members enrolled after the backup was taken \(\S+\) are unknown to it /,
        ...(retired > 0 ? [/^The \d+ tickets? issued before the backup enrolls? nobody now: /] : []),
        /^Revocations made since \S+ come back only as the nodes and relays that learned them connect: /,
        /^Take a new backup once it runs: portal controller backup --output FILE\.$/,
      ];
      assert.equal(lines[4], 'What to do now:');
      for (const [index, step] of steps.entries()) {
        const line = lines[5 + index] ?? '';
        assert.ok(line.startsWith(`  ${index + 1}. `), line);
        assert.match(line.slice(`  ${index + 1}. `.length), step);
      }
      assert.deepEqual((await readdir(restored)).sort(), ['controller.db', 'tls.crt', 'tls.key.sealed']);
      assert.equal((await stat(restored)).mode & 0o777, 0o700);

      const marks = {
        outlet: echo.outlet.lines.length,
        inlet: echo.inlet.lines.length,
        relay: relay.process.lines.length,
      };
      await project.startController(restored);
      assert.equal(
        project.controller.fingerprint,
        fingerprint,
        'the same TLS certificate, which every ticket and node pins',
      );
      // The relay reconnects and registers again; the nodes renew their certificates with it, as members.
      await project.controller.process.waitFor(new RegExp(`controller: relay ${relay.id} of project \\S+ serves at`));
      await lineAfter(echo.outlet, marks.outlet, renewed);
      await lineAfter(echo.inlet, marks.inlet, renewed);
      assert.equal(await newConnections(echo.port, 5), 0);
    },
  );

  it('serves the administrator, whose new ticket enrolls a node that carries traffic', async () => {
    const ticket = await project.ticket(['--attribute', 'echo-inlet']);
    const inlet = await project.startNode(
      'inlet-after-restore',
      { 'http-server-port': 0, 'tcp-inlet': { from: '127.0.0.1:0', via: 'echo', allow: 'echo-outlet', direct: false } },
      ticket,
      heartbeat,
    );
    await inlet.waitFor(/Portal node setup completed successfully/);
    assert.equal(await newConnections(await inletPort(join(project.dir, 'inlet-after-restore')), 5), 0);
  });

  it(
    'refuses a directory that is not a controller data directory, ' + 'and an output it cannot write, in one line',
    async () => {
      const notData = await portal(controllerHome(), [
        'controller',
        'backup',
        '--data-dir',
        join(project.dir, 'relay-a'),
        '--output',
        join(project.dir, 'x.tar'),
      ]);
      assert.deepEqual([notData.code, notData.stdout], [2, '']);
      assert.equal(
        notData.stderr,
        `portal: there is no controller store at ${join(project.dir, 'relay-a', 'controller.db')}; ` +
          'give --data-dir the directory the controller was started with (default: $PORTAL_HOME/controller), ' +
          `and --store if it was given one\n`,
      );
      const output = join(project.dir, 'missing', 'controller.tar');
      const unwritable = await portal(controllerHome(), [
        'controller',
        'backup',
        '--data-dir',
        project.controller.dataDir,
        '--output',
        output,
      ]);
      assert.deepEqual([unwritable.code, unwritable.stdout], [1, '']);
      assert.equal(
        unwritable.stderr,
        `portal: cannot write ${output} (ENOENT); give a path in a directory this user may write\n`,
      );
    },
  );

  it('never restores over a data directory that holds anything, nor from a damaged backup', async () => {
    const again = await portal(controllerHome(), ['controller', 'restore', '--input', backup, '--data-dir', restored]);
    assert.equal(again.code, 2);
    assert.match(
      again.stderr,
      new RegExp(
        `^portal: ${restored} is not empty \\(it holds controller\\.db, [^)]*\\): a restore never overwrites a ` +
          `controller's data; give --data-dir a new directory, or move this one away first\\n$`,
      ),
    );
    const cut = join(project.dir, 'backups', 'cut.tar');
    const archive = await readFile(backup);
    await writeFile(cut, archive.subarray(0, archive.length - 2048));
    const target = join(project.dir, 'restored-cut');
    const damaged = await portal(controllerHome(), ['controller', 'restore', '--input', cut, '--data-dir', target]);
    assert.equal(damaged.code, 2);
    // A cut archive fails its authentication before anything in it is read.
    assert.match(
      damaged.stderr,
      new RegExp(
        `^portal: ${cut} was changed after it was written: it fails its authentication under the sealing key ` +
          `\\S+, so nothing was restored; restore another backup, and find out who could write where this one ` +
          `was kept\\n$`,
      ),
    );
    assert.equal(existsSync(target), false, 'nothing was written');
  });
});
