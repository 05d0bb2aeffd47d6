import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { lstat, mkdir, open, readFile, readdir, readlink, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  fileSystemHost,
  renderedBootScript,
  secretsStandIn,
  stubNameLookups,
  systemdStandIn,
} from '../support/boot-script.ts';
import { until } from '../support/in-process.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { inletPort } from '../support/processes.ts';
import { startReleaseHost, version, type ReleaseHost } from '../support/release-host.ts';
import { createSandbox, type Sandbox } from '../support/sandbox.ts';
import { onFreePorts, runUseCase, type UseCaseRun } from '../support/usecase-run.ts';

const execFileAsync = promisify(execFile);
const failedLookups = 3;

interface Machine {
  readonly sandbox: Sandbox;
  readonly code: number | null;
  /** /var/log/cloud-init-output.log: everything the boot script printed, as cloud-init keeps it. */
  readonly cloudInitLog: string;
  unitLog(unit: string): Promise<string>;
  statusLines(): Promise<string[]>;
  /** SIGKILL to a unit's whole session, as when its process dies. */
  kill(unit: string): Promise<void>;
  shutDown(): Promise<void>;
}

const unitNames = ['portal-node.service', 'portal-status.service'];

/** Each stack's generated sealing-key secret (48 letters and digits), the same for every machine of the stack. */
const sealingKeys = {
  outlet: 'OutletSealingKey0123456789abcdefghijklmnopqrstuv',
  inlet: 'InletSealingKey0123456789abcdefghijklmnopqrstuvw',
};

/** Files under `dir` whose name or contents hold `secret`, or that look like a key file. */
async function keyCopies(dir: string, secret: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.name.endsWith('seal.key') || (entry.isFile() && (await readFile(path)).includes(secret)))
      found.push(path);
  }
  return found;
}

describe("cloud boot: the stacks' boot scripts bring up the real runner on their machines (sandbox)", function () {
  // Generous: each boot runs portal node show up to its poll attempts, seconds each on a loaded machine.
  this.timeout(240_000);
  let run: UseCaseRun;
  let host: ReleaseHost;
  let database: Postgres;
  /** Each stack's file system: one folder, mounted by every machine of that stack. */
  const fileSystems = { outlet: '', inlet: '' };
  const machines: Pick<Machine, 'shutDown'>[] = [];

  before(async () => {
    database = await startPostgres();
    run = await runUseCase('warehouse');
    host = await startReleaseHost(run.dir);
    for (const role of ['outlet', 'inlet'] as const) {
      fileSystems[role] = join(run.dir, `${role}-efs`);
      await mkdir(fileSystems[role]);
    }
  });

  after(async () => {
    for (const machine of machines) await machine.shutDown();
    await host?.close();
    await run?.close();
    await database?.stop();
  });

  /**
   * A new machine of the warehouse `role` stack: no portal installed, the file system's name resolving
   * only after `failedLookups` tries, the stack's file system mounted on the state directory, the
   * stack's ticket in the secret, systemd starting the units it writes. The installer is fetched with
   * real curl from the release host, over HTTPS. The warehouse endpoint is a real PostgreSQL server.
   */
  async function bootMachine(
    role: 'outlet' | 'inlet',
    sealingKey = sealingKeys[role],
    pollAttempts = 150,
  ): Promise<Machine> {
    const fileSystem = fileSystems[role];
    const sandbox = await createSandbox();
    await stubNameLookups(sandbox, failedLookups);
    await sandbox.stub('mount', `target=\${*: -1}; rmdir "$target" && ln -s '${fileSystem}' "$target"`);
    for (const command of ['dnf', 'amazon-cloudwatch-agent-ctl', 'cfn-signal']) await sandbox.stub(command);
    await sandbox.stub('aws', secretsStandIn({ ticket: run.tickets[role], sealingKey }));
    await sandbox.stub('systemctl', systemdStandIn(sandbox.dir));

    const compiled = await run.compiledConfig(role);
    const script = renderedBootScript('warehouse', role, {
      RedshiftEndpoint: `127.0.0.1:${database.port}`,
      InstallUrl: `${host.base}/install.sh`,
      // The one change for a test machine: the status server and the inlet on ports the system picks.
      JSONNodeConfig: JSON.stringify(onFreePorts(compiled)),
    });
    const scriptPath = join(sandbox.dir, 'user-data.sh');
    await writeFile(scriptPath, script);
    const cloudInitLog = join(sandbox.root, 'var/log/cloud-init-output.log');
    await mkdir(dirname(cloudInitLog), { recursive: true });
    const pidOf = async (unit: string) =>
      Number(await readFile(join(sandbox.dir, `${unit}.pid`), 'utf8').catch(() => '0'));
    const units: Omit<Machine, 'code' | 'cloudInitLog'> = {
      sandbox,
      unitLog: (unit) => readFile(join(sandbox.dir, `${unit}.log`), 'utf8'),
      async statusLines() {
        return (await readFile(join(sandbox.root, 'var/log/portal/status.log'), 'utf8').catch(() => ''))
          .split('\n')
          .filter(Boolean);
      },
      async kill(unit) {
        const pid = await pidOf(unit);
        if (pid > 0) {
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      },
      async shutDown() {
        for (const unit of unitNames) await units.kill(unit);
        await sandbox.remove();
      },
    };
    // Known before it boots: whatever the boot starts is stopped by after(), even if the boot hangs.
    machines.push(units);

    const log = await open(cloudInitLog, 'a');
    const boot = spawn('bash', [scriptPath], {
      env: {
        PATH: `${sandbox.bin}:${sandbox.system}`,
        PORTAL_BOOT_ROOT: sandbox.root,
        // The same waits, shorter: 30 s between lookups becomes 0.05 s. Polls and status lines run
        // `portal node show`, each a program start, so they come no closer than half a second and one.
        PORTAL_BOOT_RETRY_SECONDS: '0.05',
        PORTAL_BOOT_POLL_SECONDS: '0.5',
        PORTAL_BOOT_POLL_ATTEMPTS: String(pollAttempts),
        PORTAL_BOOT_STATUS_INTERVAL: '1',
        CURL_CA_BUNDLE: host.caFile,
        PORTAL_RELEASES_URL: `${host.base}/releases`,
      },
      stdio: ['ignore', log.fd, log.fd],
      timeout: 150_000,
      killSignal: 'SIGKILL',
    });
    const [code] = (await once(boot, 'exit')) as [number | null];
    await log.close();
    return { ...units, code, cloudInitLog: await readFile(cloudInitLog, 'utf8') };
  }

  let first: Machine;
  let firstNodeId: string | undefined;

  it(
    'waits for the file system name, mounts it as the state directory, installs portal, ' +
      'enrolls the node and reports setup',
    async () => {
      first = await bootMachine('outlet');
      assert.equal(first.code, 0, first.cloudInitLog);
      const lines = first.cloudInitLog.trimEnd().split('\n');
      assert.equal(lines.at(-1), 'Portal node setup completed successfully');
      assert.deepEqual(
        lines.filter((line) => line.includes('does not resolve yet')),
        [1, 2, 3].map(
          (n) => `portal-boot: ${fileSystemHost} does not resolve yet (attempt ${n} of 20); retrying in 0.05 s`,
        ),
      );
      assert.ok(lines.includes(`portal-boot: installing Node.js and portal from ${host.base}/install.sh`));
      assert.ok(
        (await first.sandbox.calls()).includes('dnf install -y nodejs24'),
        'Node.js comes from the distribution',
      );
      assert.ok(
        lines.includes(`portal-install: installed portal ${version} in ${join(first.sandbox.root, 'root/.portal')}`),
        first.cloudInitLog,
      );

      const stateDirectory = join(first.sandbox.root, 'var/lib/portal');
      assert.ok(
        (await lstat(stateDirectory)).isSymbolicLink() && (await readlink(stateDirectory)) === fileSystems.outlet,
        'the file system is mounted there',
      );
      assert.equal((await stat(fileSystems.outlet)).mode & 0o777, 0o700);
      assert.ok(existsSync(join(fileSystems.outlet, 'node')), "the node's identity is on the file system");
      const keyFile = join(first.sandbox.root, 'run/portal/seal.key');
      assert.equal(
        await readFile(keyFile, 'utf8'),
        `${sealingKeys.outlet}\n`,
        "the stack's sealing key, in the machine's memory",
      );
      assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
      assert.deepEqual(
        await keyCopies(fileSystems.outlet, sealingKeys.outlet),
        [],
        'the file system holds no copy of the key that seals it',
      );

      const nodePid = Number(await readFile(join(first.sandbox.dir, 'portal-node.service.pid'), 'utf8'));
      const commandLine = (await readFile(`/proc/${nodePid}/cmdline`, 'utf8')).split('\0').join(' ');
      assert.match(commandLine, /node create --foreground --configuration /);
      assert.ok(
        !commandLine.includes(run.tickets.outlet),
        'the ticket is in node.env, not on the command line ps shows',
      );
      const nodeLog = await first.unitLog('portal-node.service');
      firstNodeId = /enrolled as (\S+) in project \S+ with attribute warehouse-outlet/.exec(nodeLog)?.[1];
      assert.ok(firstNodeId, nodeLog);
      assert.match(nodeLog, /Portal node setup completed successfully/);
      const calls = await first.sandbox.calls();
      assert.equal(
        calls.at(-1),
        'cfn-signal -e 0 --stack warehouse-outlet --resource NodeAutoScalingGroup --region us-east-1',
      );
    },
  );

  it(
    'writes a status line per interval for <stack>-status-logs while the node is up, ' + 'and no UP line once it dies',
    async () => {
      assert.ok(first, 'the first machine booted');
      // The status unit starts with the node, so its first lines may say DOWN while the node sets up.
      const up = await until(
        async () => {
          const lines = await first.statusLines();
          const firstUp = lines.findIndex((line) => line.endsWith('The node is UP'));
          return firstUp >= 0 && lines.length - firstUp >= 3 ? lines.slice(firstUp) : undefined;
        },
        'three status lines from the first UP',
        30_000,
      );
      assert.ok(
        up.every((line) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ The node is UP$/.test(line)),
        up.join('\n'),
      );

      const linesBeforeDeath = (await first.statusLines()).length;
      await first.kill('portal-node.service');
      // A check already under way when the node died may still say UP; every later one says DOWN.
      const afterDeath = await until(
        async () => {
          const lines = (await first.statusLines()).slice(linesBeforeDeath);
          const firstDown = lines.findIndex((line) => line.endsWith('The node is DOWN'));
          return firstDown >= 0 && firstDown <= 1 && lines.length - firstDown >= 3 ? lines.slice(firstDown) : undefined;
        },
        'three status lines after the node died',
        30_000,
      );
      assert.ok(
        afterDeath.every((line) => line.endsWith('The node is DOWN')),
        afterDeath.join('\n'),
      );
    },
  );

  let replacement: Machine | undefined;

  it('a replacement machine on the same file system comes up with the consumed ticket unused', async () => {
    assert.ok(first, 'the first machine booted');
    await first.shutDown();
    replacement = await bootMachine('outlet');
    assert.equal(replacement.code, 0, replacement.cloudInitLog);
    assert.equal(replacement.cloudInitLog.trimEnd().split('\n').at(-1), 'Portal node setup completed successfully');
    const nodeLog = await replacement.unitLog('portal-node.service');
    assert.ok(
      nodeLog.includes(`already enrolled as ${firstNodeId}; the enrollment ticket is not needed and was not used`),
      nodeLog,
    );
    assert.doesNotMatch(nodeLog, /\benrolled as \S+ in project/);
    const replaced = replacement;
    await until(
      async () => ((await replaced.statusLines()).some((line) => line.endsWith('The node is UP')) ? true : undefined),
      'an UP status line from the replacement',
    );
  });

  it(
    "the inlet stack's machine comes up on its own file system and carries psql to the database behind the " +
      "outlet's machine",
    async () => {
      const inlet = await bootMachine('inlet');
      assert.equal(inlet.code, 0, inlet.cloudInitLog);
      assert.equal(inlet.cloudInitLog.trimEnd().split('\n').at(-1), 'Portal node setup completed successfully');
      assert.match(
        await inlet.unitLog('portal-node.service'),
        /enrolled as \S+ in project \S+ with attribute warehouse-inlet/,
      );
      const { stdout } = await execFileAsync('psql', ['-tA', '-c', "SELECT 'through two stack machines'"], {
        env: database.clientEnvironment(await inletPort(fileSystems.inlet)),
      });
      assert.equal(stdout.trim(), 'through two stack machines');
    },
  );

  it(
    'a machine given another sealing key cannot open the identity on the file system, ' + 'and the stack hears of it',
    async () => {
      assert.ok(replacement, 'the replacement machine booted');
      await replacement.shutDown();
      // Twelve checks (about 8 s here) instead of 150 before the boot script gives up on the node.
      const stranger = await bootMachine('outlet', 'AnotherSealingKey0123456789abcdefghijklmnopqrstu', 12);
      assert.equal(stranger.code, 1, stranger.cloudInitLog);
      const nodeLog = await stranger.unitLog('portal-node.service');
      assert.match(nodeLog, /the sealing key in \S+\/run\/portal\/seal\.key does not open /, nodeLog);
      assert.doesNotMatch(nodeLog, /enrolled as/);
      assert.equal(
        (await stranger.sandbox.calls()).at(-1),
        'cfn-signal -e 1 --stack warehouse-outlet --resource NodeAutoScalingGroup --region us-east-1',
      );
    },
  );
});
