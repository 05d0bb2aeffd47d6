import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { start, type Running } from '../support/processes.ts';
import { createSandbox, type Sandbox } from '../support/sandbox.ts';
import { projectRoot } from '../support/usecases.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

const script = join(projectRoot, 'scripts/test-prerequisites.sh');
/** Every command the script looks for on PATH (the PostgreSQL server it finds under /usr/lib/postgresql). */
const wanted = [
  'python3',
  'hostname',
  'psql',
  'redis-server',
  'redis-cli',
  'runuser',
  'unshare',
  'setpriv',
  'ip',
  'docker-compose',
  'chromium',
  'curl',
  'shellcheck',
  'openssl',
  'jq',
  'tar',
  'systemd-analyze',
];
/** Wanted with --toolchain only: a machine that found a prebuilt SQLite module may lack them. */
const toolchain = ['make', 'g++'];

function find(command: string): string | undefined {
  const found = spawnSync('bash', ['-c', `command -v '${command}'`], { encoding: 'utf8' }).stdout.trim();
  return found.startsWith('/') ? found : undefined;
}

function locate(command: string): string {
  const found = find(command);
  assert.ok(found, `${command} is installed (npm test installs it first)`);
  return found;
}

const bash = locate('bash');

function run(path: string, args: string[] = []) {
  return spawnSync(bash, [script, ...args], { env: { PATH: path }, encoding: 'utf8' });
}

describe('scripts/test-prerequisites.sh (run first by npm test and .ci/run)', () => {
  let sandbox: Sandbox;

  beforeEach(async () => {
    sandbox = await createSandbox();
  });
  afterEach(async () => {
    await sandbox.remove();
  });

  /** A PATH holding every wanted command but `hidden`: links to the real programs, in the sandbox's bin. */
  async function pathWithout(...hidden: string[]): Promise<string> {
    for (const command of wanted.filter((name) => !hidden.includes(name)))
      await symlink(locate(command), join(sandbox.bin, command));
    for (const command of toolchain.filter((name) => !hidden.includes(name))) {
      const found = find(command);
      if (found) await symlink(found, join(sandbox.bin, command));
    }
    return sandbox.bin;
  }

  /** apt-get and sudo stand-ins that record their calls; apt-get "installs" by linking `installs` into bin. */
  async function standInInstaller(installs: string[]): Promise<void> {
    const links = installs
      .map((command) => `'${locate('ln')}' -s '${locate(command)}' '${join(sandbox.bin, command)}'`)
      .join('\n');
    await sandbox.stub('apt-get', `case " $* " in *" install "*)\n:\n${links}\n;;\nesac`);
    await sandbox.stub('sudo', '[ "$1" = -n ] && shift; "$@"');
  }

  const aptCalls = async () => (await sandbox.calls()).filter((call) => call.startsWith('apt-get'));

  it('is silent, installs nothing and exits 0 when every program is there', async () => {
    await standInInstaller([]);
    const result = run(`${sandbox.bin}:${process.env.PATH}`);
    assert.deepEqual([result.status, result.stdout, result.stderr], [0, '', '']);
    assert.deepEqual(await sandbox.calls(), [], 'neither apt-get nor sudo ran');
  });

  it('names exactly what to install, in one line and exit 1, when it cannot install (no apt-get)', async () => {
    const result = run(await pathWithout('curl', 'shellcheck'));
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      'test-prerequisites: the tests need curl, shellcheck, which this machine lacks; ' +
        'install the Debian packages curl ca-certificates shellcheck ' +
        '(as root: apt-get install curl ca-certificates shellcheck) and run the tests again\n',
    );
  });

  it('says what it installs and for which tests, one line a package, then installs it and checks again', async () => {
    const path = await pathWithout('curl', 'shellcheck');
    await standInInstaller(['curl', 'shellcheck']);
    const result = run(path);
    assert.deepEqual([result.status, result.stderr], [0, '']);
    assert.equal(
      result.stdout,
      [
        'test-prerequisites: installing 3 Debian packages with apt-get as root, ' +
          'for the tests that run these programs:',
        'test-prerequisites:   curl: the installer tests, which run its own command line over HTTPS',
        'test-prerequisites:   ca-certificates: the installer tests, which run its own command line over HTTPS',
        'test-prerequisites:   shellcheck: the tests that lint the shell scripts Portal ships',
        '',
      ].join('\n'),
    );
    assert.deepEqual(await aptCalls(), [
      'apt-get -o DPkg::Lock::Timeout=600 update -qq',
      'apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends curl ca-certificates shellcheck',
    ]);
    const again = run(path);
    assert.deepEqual([again.status, again.stdout, again.stderr], [0, '', ''], 'a second run is a no-op');
    assert.equal((await aptCalls()).length, 2);
  });

  it('stops with the same one line when apt-get leaves a program missing', async () => {
    const path = await pathWithout('docker-compose');
    await standInInstaller([]);
    const result = run(path);
    assert.equal(result.status, 1);
    assert.match(result.stdout, /^test-prerequisites: installing 1 Debian package with apt-get as root/);
    assert.match(
      result.stderr,
      joinedRegExp(
        /^test-prerequisites: the tests need docker-compose, which this machine lacks; /,
        /install the Debian packages docker-compose \(as root: apt-get install docker-compose\) /,
        /and run the tests again\n$/,
      ),
    );
  });

  describe("while another install holds the package manager's lock", () => {
    let holder: Running | undefined;
    let installer: Running | undefined;
    afterEach(async () => {
      await installer?.kill();
      if (holder) await release(holder);
      installer = undefined;
      holder = undefined;
    });

    /**
     * Ends a holder: the command flock runs first, which flock alone killed would leave running for
     * minutes with this test's pipes open; flock then exits and the lock is free.
     */
    async function release(held: Running): Promise<void> {
      const pid = held.child.pid as number;
      const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
      for (const child of children.split(' ').filter(Boolean)) process.kill(Number(child), 'SIGKILL');
      await held.kill();
      await held.ended();
    }

    /** A real process that holds a lock on `file` (flock) until it is released. */
    async function holdLock(file: string): Promise<Running> {
      await writeFile(file, '');
      const held = start(locate('flock'), ['-o', file, locate('bash'), '-c', 'echo held; exec sleep 120'], {
        isolated: true,
      });
      await held.waitFor(/^held$/);
      return held;
    }

    /** A PATH missing curl, with the stand-in installer and what waiting runs (stat, sleep). */
    async function pathToInstallCurl(): Promise<string> {
      const path = await pathWithout('curl');
      await standInInstaller(['curl']);
      for (const command of ['stat', 'sleep']) await symlink(locate(command), join(sandbox.bin, command));
      return path;
    }

    for (const [lock, variable, runsFirst] of [
      ['lists', 'TEST_PREREQUISITES_LISTS_LOCK', []],
      ['dpkg', 'TEST_PREREQUISITES_DPKG_LOCK', ['apt-get -o DPkg::Lock::Timeout=600 update -qq']],
    ] as const) {
      it(`says so and waits for the ${lock} lock, then installs once it is released`, async () => {
        const path = await pathToInstallCurl();
        const file = join(sandbox.dir, `${lock}.lock`);
        holder = await holdLock(file);
        installer = start(locate('bash'), [script], { env: { PATH: path, [variable]: file }, isolated: true });
        const waiting = await installer.waitFor(/waiting for another package install/);
        assert.equal(
          waiting,
          `test-prerequisites: waiting for another package install (process ${holder.child.pid} holds ${file}), ` +
            'up to 600 s',
        );
        assert.deepEqual(await aptCalls(), runsFirst, 'nothing past the held lock ran while it was held');
        await release(holder);
        const running = installer.child;
        const [code] =
          running.exitCode === null ? ((await once(running, 'exit')) as [number | null]) : [running.exitCode];
        assert.equal(code, 0, installer.lines.join('\n'));
        assert.deepEqual(await aptCalls(), [
          'apt-get -o DPkg::Lock::Timeout=600 update -qq',
          'apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends curl ca-certificates',
        ]);
      });
    }

    it('gives up after PORTAL_APT_LOCK_TIMEOUT seconds with one line and exit 1, and refuses a bad one', async () => {
      const path = await pathToInstallCurl();
      const file = join(sandbox.dir, 'lists.lock');
      holder = await holdLock(file);
      const started = Date.now();
      const result = spawnSync(bash, [script], {
        env: { PATH: path, TEST_PREREQUISITES_LISTS_LOCK: file, PORTAL_APT_LOCK_TIMEOUT: '1' },
        encoding: 'utf8',
      });
      assert.equal(result.status, 1);
      assert.ok(Date.now() - started < 20_000, 'it gave up after its timeout, not later');
      assert.equal(
        result.stderr,
        `test-prerequisites: ${file} is still held by process ${holder.child.pid} after 1 s; ` +
          'let that install finish (or stop it) and run the tests again\n',
      );
      assert.deepEqual(await aptCalls(), [], 'apt-get never ran');
      const bad = spawnSync(bash, [script], { env: { PATH: path, PORTAL_APT_LOCK_TIMEOUT: 'soon' }, encoding: 'utf8' });
      assert.deepEqual(
        [bad.status, bad.stderr],
        [2, 'test-prerequisites: PORTAL_APT_LOCK_TIMEOUT=soon is not a number of seconds; give one, such as 600\n'],
      );
    });
  });

  it('wants make and g++ only with --toolchain (what npm ci needs to build the SQLite module)', async () => {
    const path = await pathWithout('make', 'g++');
    assert.deepEqual([run(path).status, run(path).stderr], [0, '']);
    const result = run(path, ['--toolchain']);
    assert.equal(result.status, 1);
    assert.match(
      result.stderr,
      /the tests need make, g\+\+, which this machine lacks; install the Debian packages make g\+\+ /,
    );
    const unknown = run(path, ['--everything']);
    assert.deepEqual(
      [unknown.status, unknown.stderr],
      [2, 'test-prerequisites: unknown option --everything (the only option is --toolchain)\n'],
    );
  });

  it('passes shellcheck, as does .ci/run that calls it', () => {
    for (const file of ['scripts/test-prerequisites.sh', '.ci/run']) {
      const result = spawnSync(
        'shellcheck',
        ['--severity=style', '--shell=bash', '--format=gcc', join(projectRoot, file)],
        { encoding: 'utf8' },
      );
      assert.equal(result.error, undefined, 'shellcheck is installed');
      assert.equal(result.stdout, '', file);
    }
  });
});
