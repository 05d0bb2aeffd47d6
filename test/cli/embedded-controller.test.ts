import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processGone } from '../../src/shared/process-state.ts';
import { portal } from '../support/processes.ts';
import { acceptsConnections } from '../support/tcp.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';
import { removeAdminHome } from '../support/admin-home.ts';

const hostAndPort = (address: string): [string, number] => [
  address.slice(0, address.lastIndexOf(':')),
  Number(address.split(':').at(-1)),
];

describe('portal enroll with the embedded controller', function () {
  this.timeout(60_000);
  let home: string;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'portal-embedded-'));
  });

  after(() => removeAdminHome(home));

  it('starts a controller in the background, on loopback, and enrolls this machine as administrator', async () => {
    const enrolled = await portal(home, ['enroll']);
    assert.equal(enrolled.code, 0, enrolled.stderr);
    assert.match(
      enrolled.stdout,
      /^Enrolled: administrator of project p[0-9a-f]{16} on controller 127\.0\.0\.1:\d+\.$/m,
    );
    const log = join(home, 'controller', 'controller.log');
    assert.match(
      enrolled.stdout,
      new RegExp(
        `^The embedded controller runs in the background \\(pid \\d+, listening on 127\\.0\\.0\\.1:\\d+\\); ` +
          `it logs to ${log}\\.$`,
        'm',
      ),
    );
    const again = await portal(home, ['enroll']);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /^Already enrolled: administrator of project/);
    const shown = await portal(home, ['project', 'show', '--jq', '.network_domain']);
    assert.equal(shown.stdout, 'portal.example.net\n');
    const ca = await portal(home, ['project', 'ca']);
    assert.match(ca.stdout, /^-----BEGIN CERTIFICATE-----\n/);
  });

  it(
    'keeps the sealing keys under $PORTAL_HOME/keys, ' + 'never beside what they seal, with no setup and no warning',
    async () => {
      assert.deepEqual((await readdir(join(home, 'keys'))).sort(), ['admin-seal.key', 'controller-seal.key']);
      for (const name of ['admin-seal.key', 'controller-seal.key'])
        assert.equal((await stat(join(home, 'keys', name))).mode & 0o777, 0o600, name);
      assert.equal((await stat(join(home, 'keys'))).mode & 0o777, 0o700);
      assert.equal(existsSync(join(home, 'controller', 'seal.key')), false);
      assert.equal(existsSync(join(home, 'admin', 'seal.key')), false);
      assert.doesNotMatch(await readFile(join(home, 'controller', 'controller.log'), 'utf8'), / WARN /);
    },
  );

  it(
    'refuses, in an enrolled home, options it would ignore, ' + 'naming what the home administers and what to do',
    async () => {
      const project = (await portal(home, ['project', 'show', '--jq', '.id'])).stdout.trim();
      const controller = (await portal(home, ['project', 'show', '--jq', '.controller'])).stdout.trim();
      const second = await portal(home, ['enroll', '--project', 'second']);
      assert.deepEqual([second.code, second.stdout], [2, '']);
      assert.equal(
        second.stderr,
        `portal: ${home} already holds the administrator of project ${project} on controller ${controller}, ` +
          'so --project second would be ignored; run portal reset --yes first ' +
          `(it removes that project's state under ${home}), or set PORTAL_HOME to another directory; ` +
          `portal enroll with no options confirms the enrollment\n`,
      );
      const elsewhere = await portal(home, [
        'enroll',
        '--controller',
        'controller.example.net:4000',
        '--code',
        'pa1.x',
      ]);
      assert.equal(elsewhere.code, 2);
      assert.match(
        elsewhere.stderr,
        /so --controller controller\.example\.net:4000 --code pa1\.x would be ignored; run portal reset --yes first/,
      );
    },
  );

  it(
    'prints a ticket on a loopback address unchanged, ' +
      'and warns in one line on stderr that only this machine can use it',
    async () => {
      const run = await portal(home, ['project', 'ticket', '--attribute', 'db-inlet']);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /^pt1\.[A-Za-z0-9_-]+\n$/);
      const controller = (await portal(home, ['project', 'show', '--jq', '.controller'])).stdout.trim();
      assert.equal(
        run.stderr,
        `portal: warning: this ticket names the controller at ${controller}, a loopback address, ` +
          'so only nodes on this machine can use it; ' +
          'for nodes on other machines, run the controller where they reach it: portal enroll --listen 0.0.0.0:PORT ' +
          '--public-address HOST:PORT ' +
          '(in a new PORTAL_HOME, or after portal reset --yes), or portal controller start --listen 0.0.0.0:PORT ' +
          '--public-address HOST:PORT\n',
      );
    },
  );

  it('keeps its log in a bounded file under $PORTAL_HOME/controller', async () => {
    const runtime = JSON.parse(await readFile(join(home, 'controller', 'runtime.json'), 'utf8')) as { pid: number };
    const command = (await readFile(`/proc/${runtime.pid}/cmdline`, 'utf8')).split('\0');
    assert.equal(command[command.indexOf('--log-file') + 1], join(home, 'controller', 'controller.log'));
  });

  it('backs up while it runs, without its sealing key, which it names', async () => {
    const output = join(home, 'controller-backup.tar');
    const run = await portal(home, ['controller', 'backup', '--output', output]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      `Backed up the controller data in ${join(home, 'controller')} (1 project, 1 member) to ${output} (mode 0600).\n` +
        `The sealing key is not in the backup: it is ${join(home, 'keys', 'controller-seal.key')}, ` +
        'which opens it and authenticates it; ' +
        `keep a copy of it apart from the backup (restoring needs both).\n`,
    );
    assert.equal((await stat(output)).mode & 0o777, 0o600);
    await rm(output);
  });

  it('starts the controller again, on the same address, when it died', async () => {
    const runtime = JSON.parse(await readFile(join(home, 'controller', 'runtime.json'), 'utf8')) as {
      pid: number;
      address: string;
    };
    process.kill(runtime.pid, 'SIGKILL');
    const shown = await portal(home, ['project', 'show', '--jq', '.controller']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout, `${runtime.address}\n`);
  });

  it('says in one line why the controller cannot start again when its sealing key is gone', async () => {
    const runtime = JSON.parse(await readFile(join(home, 'controller', 'runtime.json'), 'utf8')) as { pid: number };
    process.kill(runtime.pid, 'SIGKILL');
    const keyFile = join(home, 'keys', 'controller-seal.key');
    await rename(keyFile, `${keyFile}.away`);
    try {
      const shown = await portal(home, ['project', 'show', '--jq', '.id']);
      assert.equal(shown.code, 1);
      assert.match(
        shown.stderr,
        new RegExp(
          `^portal: cannot start the embedded controller: the project CA keys in sqlite:.*controller\\.db are ` +
            `sealed, but the sealing key file ${keyFile} does not exist; [^\\n]*; see .*controller\\.log\\n$`,
        ),
      );
      assert.equal(existsSync(keyFile), false, 'no silent new key');
    } finally {
      await rename(`${keyFile}.away`, keyFile);
    }
    const again = await portal(home, ['project', 'show', '--jq', '.network_domain']);
    assert.equal(again.code, 0, again.stderr);
  });

  it('refuses a bad flag value with exit code 2', async () => {
    const run = await portal(home, ['project', 'ticket', '--attribute', 'x', '--expires-in', 'soon']);
    assert.equal(run.code, 2);
    const hint = 'give a whole number followed by ms, s, m, h or d (such as 10h or 1h30m), at most 30d';
    assert.equal(run.stderr, `portal: --expires-in soon is not a duration; ${hint}\n`);
    for (const [value, reason] of [
      ['0h', 'must be positive'],
      ['10', 'has no unit'],
      ['1w', 'has an unknown unit "w"'],
      ['400d', 'is longer than 30d'],
    ] as const) {
      const refused = await portal(home, ['project', 'ticket', '--attribute', 'x', '--expires-in', value]);
      assert.equal(refused.code, 2, value);
      assert.equal(refused.stderr, `portal: --expires-in ${value} ${reason}; ${hint}\n`);
    }
    const help = await portal(home, ['project', 'ticket', '--help']);
    assert.match(
      help.stdout.replace(/\s+/g, ' '),
      joinedRegExp(
        /--expires-in <duration> lifetime of the ticket: /,
        /a whole number followed by ms, s, m, h or d \(such as 10h or 1h30m\), at most 30d \(default: "10h"\)/,
      ),
    );
    const bare = await portal(home, ['project', 'ticket']);
    assert.equal(bare.code, 2);
    assert.equal(
      bare.stderr,
      'portal: no --attribute was given; give --attribute NAME or KEY=VALUE (peers match it with allow), ' +
        '--relay-node for a relay, or --admin for an administrator\n',
    );
    const mixed = await portal(home, ['project', 'ticket', '--relay-node', '--attribute', 'x']);
    assert.equal(mixed.code, 2);
    assert.equal(
      mixed.stderr,
      'portal: --relay-node is not valid; give it alone: a relay node has no attribute, ' +
        'relay name or TLS certificate\n',
    );
  });

  it('reset stops the controller, waiting for it to exit, and removes the state, keeping an installation', async () => {
    const runtime = JSON.parse(await readFile(join(home, 'controller', 'runtime.json'), 'utf8')) as {
      pid: number;
      address: string;
      listening: string;
      drainMs: number;
    };
    assert.deepEqual(
      [runtime.listening, runtime.drainMs],
      [runtime.address, 10_000],
      'where it listens and how long it drains, for whoever stops it',
    );
    // A ticket an earlier test issued is still unused: the controller serves someone to come, so --yes is not enough.
    const serving = await portal(home, ['reset', '--yes']);
    assert.equal(serving.code, 2);
    assert.match(
      serving.stderr,
      /and it hosts 1 unused ticket; nothing was removed; .*portal reset --yes --delete-controller/,
    );
    const [pending] = (await portal(home, ['project', 'tickets', '--json'])).stdout.trim().split('\n');
    const cancelled = await portal(home, [
      'project',
      'ticket',
      'cancel',
      (JSON.parse(pending ?? '{}') as { id: string }).id,
    ]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    const run = await portal(home, ['reset']);
    assert.equal(run.code, 2, 'asks for --yes when nobody can answer a prompt');
    assert.match(run.stderr, /add --yes to confirm/);
    const done = await portal(home, ['reset', '--yes']);
    assert.equal(done.code, 0, done.stderr);
    assert.equal(await acceptsConnections(...hostAndPort(runtime.address)), false, 'the controller is stopped');
    assert.equal(processGone(runtime.pid), true, 'the controller exited before its data was removed');
    assert.equal(existsSync(join(home, 'admin')), false);
    assert.equal(existsSync(join(home, 'keys')), false, 'the keys go with the state');
  });
});
