import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
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
    await sandbox.stub('apt-get', `if [ "$1" = install ]; then\n:\n${links}\nfi`);
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

  it('installs the missing Debian packages with apt-get, says so in one line, and checks again', async () => {
    const path = await pathWithout('curl', 'shellcheck');
    await standInInstaller(['curl', 'shellcheck']);
    const result = run(path);
    assert.deepEqual([result.status, result.stderr], [0, '']);
    assert.equal(
      result.stdout,
      'test-prerequisites: installing curl ca-certificates shellcheck with apt-get (for curl shellcheck)\n',
    );
    assert.deepEqual(await aptCalls(), [
      'apt-get update -qq',
      'apt-get install -y -qq --no-install-recommends curl ca-certificates shellcheck',
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
    assert.equal(result.stdout, 'test-prerequisites: installing docker-compose with apt-get (for docker-compose)\n');
    assert.match(
      result.stderr,
      joinedRegExp(
        /^test-prerequisites: the tests need docker-compose, which this machine lacks; /,
        /install the Debian packages docker-compose \(as root: apt-get install docker-compose\) /,
        /and run the tests again\n$/,
      ),
    );
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
