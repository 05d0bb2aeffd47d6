import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startReleaseHost, version, type ReleaseHost } from '../support/release-host.ts';
import { artifactText, projectRoot } from '../support/usecases.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

/** The README's two install lines (step 2 of every guide), with the address compiled in: none, <install_url>. */
function installLines(): string[] {
  const guide = artifactText('postgres', 'README.md');
  const block = /## 2\. Install portal\n\n```sh\n([\s\S]*?)```/.exec(guide)?.[1];
  assert.ok(block, 'the guide has an install step');
  return block.trim().split('\n');
}

describe('install.sh: the one-line installer (spec section 1, step 2)', function () {
  this.timeout(60_000);
  let dir: string;
  let host: ReleaseHost;
  let home: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-install-'));
    host = await startReleaseHost(dir);
  });

  after(async () => {
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    home = await mkdtemp(join(dir, 'home-'));
  });

  /**
   * Runs bash lines in a fresh login-like environment: HOME, a PATH without portal, curl trusting the
   * release host. Asynchronous: the release host answers from this process.
   */
  function shell(
    lines: string,
    extra: Record<string, string> = {},
  ): Promise<{ status: number; stdout: string; stderr: string }> {
    const env = {
      HOME: home,
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      CURL_CA_BUNDLE: host.caFile,
      PORTAL_RELEASES_URL: `${host.base}/releases`,
      ...extra,
    };
    return new Promise((resolve) => {
      execFile('bash', ['-c', lines], { cwd: home, env, timeout: 45_000 }, (error, stdout, stderr) => {
        // A timed-out run has no exit code: -1, which no assertion expects.
        const code = (error as { code?: unknown } | null)?.code;
        resolve({ status: error ? (typeof code === 'number' ? code : -1) : 0, stdout, stderr });
      });
    });
  }

  /** The guide's lines, the compiled address replaced by the test host's, then whatever follows. */
  const guideInstall = (then: string) =>
    [...installLines().map((line) => line.replace("'<install_url>'", `${host.base}/install.sh`)), then].join('\n');

  it("installs into $HOME/.portal with the guide's own curl | sh line; the env file puts portal on PATH", async () => {
    assert.deepEqual(installLines(), [
      "curl --proto '=https' --tlsv1.2 -sSfL '<install_url>' | sh",
      'source "$HOME/.portal/env"',
    ]);
    const run = await shell(guideInstall('portal --version && command -v portal'));
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(-2), [version, join(home, '.portal/bin/portal')]);
    assert.ok(lines.includes(`portal-install: installed portal ${version} in ${join(home, '.portal')}`), run.stdout);
    assert.ok(
      !run.stdout.includes('building the controller'),
      "the release's own SQLite module loads: nothing is built",
    );
    assert.deepEqual(host.served.slice(-2), [
      '/install.sh',
      `/releases/portal-latest-${process.platform}-${process.arch}.tgz`,
    ]);
  });

  it(
    'is safe to run twice: the program is replaced, ' + 'the state beside it and the env file stay as they were',
    async () => {
      assert.equal((await shell(guideInstall('true'))).status, 0);
      assert.equal((await stat(join(home, '.portal'))).mode & 0o777, 0o700, "a new folder is the user's alone");
      // Opened for services that run as another user (docs/operating.md): an upgrade keeps it open.
      await chmod(join(home, '.portal'), 0o755);
      const env = await readFile(join(home, '.portal/env'), 'utf8');
      await mkdir(join(home, '.portal/node'));
      await writeFile(join(home, '.portal/node/identity.json'), '{"kept":true}');
      const again = await shell(guideInstall('portal --version; echo "$PATH"'));
      assert.equal(again.status, 0, again.stderr);
      const [printed, path] = again.stdout.trim().split('\n').slice(-2);
      assert.equal(printed, version);
      assert.equal(
        path?.split(':').filter((entry) => entry === join(home, '.portal/bin')).length,
        1,
        'sourcing twice adds bin to PATH once',
      );
      assert.equal(await readFile(join(home, '.portal/env'), 'utf8'), env);
      assert.equal(await readFile(join(home, '.portal/node/identity.json'), 'utf8'), '{"kept":true}');
      assert.deepEqual(
        await readdir(join(home, '.portal/lib')),
        ['portal'],
        'no staging folder or previous release is left behind',
      );
      assert.equal((await stat(join(home, '.portal'))).mode & 0o777, 0o755, 'the mode the operator gave it');
    },
  );

  it(
    'installs from a local tarball (the first argument) and the installed portal runs the ' +
      "administrator's workflow",
    async () => {
      const [tarball] = await readdir(join(dir, 'packed'));
      const run = await shell(
        [
          `sh ${join(projectRoot, 'install.sh')} file://${join(dir, 'packed', tarball as string)}`,
          'source "$HOME/.portal/env"',
          // Whatever happens, the embedded controller enroll starts is stopped.
          "trap 'portal reset --yes --delete-controller >/dev/null' EXIT",
          'portal enroll',
          'portal project ticket --expires-in 10h --usage-count 1 --attribute db-inlet > inlet.ticket',
        ].join(' && '),
        { PORTAL_RELEASES_URL: 'https://release-host.invalid/releases' },
      );
      assert.equal(run.status, 0, run.stderr);
      assert.match(
        run.stdout,
        /^Enrolled: administrator of project p[0-9a-f]+ on controller 127\.0\.0\.1:\d+\.$/m,
        'the embedded controller loads the SQLite module shipped in the release',
      );
      assert.ok((await readFile(join(home, 'inlet.ticket'), 'utf8')).trim().length > 100);
      assert.ok(!run.stdout.includes('building the controller'), run.stdout);
      assert.deepEqual(
        (await readdir(join(home, '.portal'))).sort(),
        ['bin', 'env', 'lib'],
        'reset keeps the installed program',
      );
      // The release's koffi, through which a node gives glibc's free pages back (src/shared/malloc-trim.ts).
      const bundle = join(home, '.portal/lib/portal/dist/portal.mjs');
      const probe =
        "require('node:module').createRequire(process.argv[1])('koffi').load('libc.so.6')" +
        ".func('int malloc_trim(size_t pad)'); console.log('malloc_trim found')";
      const found = await shell(`node -e ${JSON.stringify(probe)} ${bundle}`);
      assert.equal(found.stdout.trim(), 'malloc_trim found', found.stderr);
    },
  );

  it(
    'refuses what is not a release, a plain-http address and a download that fails, ' +
      'and leaves the installed program as it was',
    async () => {
      assert.equal((await shell(guideInstall('true'))).status, 0);
      const installed = await readFile(join(home, '.portal/lib/portal/dist/portal.mjs'));
      const cases: [Record<string, string>, RegExp][] = [
        [
          { PORTAL_RELEASE: `${host.base}/releases/not-a-release.tgz` },
          joinedRegExp(
            /portal-install: error: https:\/\/localhost:\d+\/releases\/not-a-release\.tgz /,
            /cannot be unpacked \(gzip: stdin: not in gzip format\); give a Portal release/,
          ),
        ],
        [
          { PORTAL_RELEASE: 'http://localhost:1/portal.tgz' },
          joinedRegExp(
            /portal-install: error: refusing http:\/\/localhost:1\/portal\.tgz: /,
            /a release is downloaded over https:\/\/ only/,
          ),
        ],
        [
          { PORTAL_VERSION: '9.9.9' },
          joinedRegExp(
            /portal-install: error: cannot download https:\/\/localhost:\d+\/releases\/portal-9\.9\.9-\w+-\w+\.tgz /,
            /\(The requested URL returned error: 404\); check the address/,
          ),
        ],
        [
          { PORTAL_RELEASE: join(dir, 'missing.tgz') },
          /portal-install: error: no release tarball at .*missing\.tgz; give a path or an https:\/\/ address/,
        ],
        [
          { PORTAL_NODE: '/nonexistent/node-22' },
          joinedRegExp(
            /portal-install: error: Portal runs on Node\.js 20\.19 or later, /,
            /and \/nonexistent\/node-22 is not there; install Node\.js/,
          ),
        ],
      ];
      for (const [extra, message] of cases) {
        const run = await shell(`curl --proto '=https' --tlsv1.2 -sSfL ${host.base}/install.sh | sh`, extra);
        assert.equal(run.status, 1, `${JSON.stringify(extra)}: ${run.stderr}`);
        assert.match(run.stderr, message);
        assert.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr}`);
      }
      assert.deepEqual(await readFile(join(home, '.portal/lib/portal/dist/portal.mjs')), installed);
      assert.deepEqual(await readdir(join(home, '.portal/lib')), ['portal']);
    },
  );

  it(
    "still installs a node when the release's SQLite module cannot load or be rebuilt here, " +
      'and says what enroll needs',
    async () => {
      const [tarball] = await readdir(join(dir, 'packed'));
      const unpacked = join(home, 'unpacked');
      await mkdir(unpacked);
      execFileSync('tar', ['-xzf', join(dir, 'packed', tarball as string), '-C', unpacked]);
      await writeFile(
        join(unpacked, 'package/node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
        'built for another platform',
      );
      execFileSync('tar', ['-czf', join(home, 'foreign.tgz'), '-C', unpacked, 'package']);
      // An npm that cannot fetch the module's sources, as on a machine without network.
      const bin = join(home, 'offline-npm');
      await mkdir(bin);
      await writeFile(join(bin, 'npm'), '#!/bin/sh\necho "npm ERR! network unreachable" >&2\nexit 1\n');
      await chmod(join(bin, 'npm'), 0o755);
      const run = await shell(
        `PATH=${bin}:$PATH sh ${join(projectRoot, 'install.sh')} ${join(home, 'foreign.tgz')} && . ` +
          '"$HOME/.portal/env" && portal --version',
      );
      assert.equal(run.status, 0, run.stderr);
      assert.match(
        run.stdout,
        joinedRegExp(
          /^portal-install: building the controller's SQLite module for /m,
          /Node\.js v\d+\.\d+\.\d+ \(needs npm, python3, make and g\+\+\)$/m,
        ),
      );
      assert.match(
        run.stdout,
        joinedRegExp(
          /^portal-install: warning: the SQLite module could not be built: nodes work, /m,
          /but portal enroll \(the embedded controller\) will not; /m,
          /install npm, python3, make and g\+\+, then run this again$/m,
        ),
      );
      assert.equal(run.stdout.trim().split('\n').at(-1), version);
    },
  );

  it('says which Node.js it needs when the one on PATH is too old', async () => {
    const bin = join(home, 'old-node');
    await mkdir(bin);
    await writeFile(join(bin, 'node'), '#!/bin/sh\n[ "$1" = --version ] && echo v18.20.4 && exit 0\nexit 1\n');
    await chmod(join(bin, 'node'), 0o755);
    const run = await shell(`curl --proto '=https' --tlsv1.2 -sSfL ${host.base}/install.sh | PATH=${bin}:$PATH sh`);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      new RegExp(
        `^portal-install: error: Portal needs Node\\.js 20\\.19 or later, and ${bin}/node is v18\\.20\\.4; ` +
          `upgrade Node\\.js, then run this again$`,
        'm',
      ),
    );
    assert.equal(existsSync(join(home, '.portal/lib/portal')), false, 'nothing is installed');
  });
});
