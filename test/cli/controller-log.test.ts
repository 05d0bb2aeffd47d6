import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { portal, startPortal } from '../support/processes.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

describe('portal controller start --log-file', function () {
  this.timeout(30_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-controller-log-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes what it would print on standard error to the file (0600), and nothing to standard error', async () => {
    const log = join(dir, 'controller.log');
    const controller = startPortal(join(dir, 'home'), [
      'controller',
      'start',
      '--listen',
      '127.0.0.1:0',
      '--data-dir',
      join(dir, 'data'),
      '--ready-json',
      '--log-file',
      log,
    ]);
    try {
      await controller.waitFor(/^\{"pid"/);
      // The sealing key was made under PORTAL_HOME, which the controller warns about on its log.
      assert.match(
        await readFile(log, 'utf8'),
        joinedRegExp(
          /^\S+ WARN the sealing key of this controller is \S+controller-seal\.key, /m,
          /outside its data directory but on this machine/m,
        ),
      );
      assert.equal((await stat(log)).mode & 0o777, 0o600);
    } finally {
      await controller.stop();
    }
    assert.deepEqual(
      controller.lines.filter((line) => !line.startsWith('{"pid"')),
      [],
      'nothing else on its standard output or error',
    );
  });

  it('refuses, with exit code 2, a log file in a directory that does not exist, naming it and what to do', async () => {
    const missing = join(dir, 'missing');
    const run = await portal(join(dir, 'home'), [
      'controller',
      'start',
      '--listen',
      '127.0.0.1:0',
      '--data-dir',
      join(dir, 'data'),
      '--log-file',
      join(missing, 'controller.log'),
    ]);
    assert.deepEqual([run.code, run.stdout], [2, '']);
    assert.equal(
      run.stderr,
      `portal: --log-file ${join(missing, 'controller.log')}: the directory ${missing} does not exist; ` +
        `create it first (mkdir -p ${missing}), or give a file in a directory that exists\n`,
    );
  });

  it(
    'keeps running when its log file refuses a write, logging to standard error from then on, ' +
      'after one line that says so',
    async () => {
      // /dev/full refuses every write with ENOSPC, as a full disk does.
      const controller = startPortal(join(dir, 'home'), [
        'controller',
        'start',
        '--listen',
        '127.0.0.1:0',
        '--data-dir',
        join(dir, 'data-full'),
        '--ready-json',
        '--log-file',
        '/dev/full',
      ]);
      let code: number | null;
      try {
        const ready = JSON.parse(await controller.waitFor(/^\{"pid"/)) as { address: string; adminCode: string };
        await controller.waitFor(
          /^\S+ WARN cannot write the log file \/dev\/full \(ENOSPC\): logging to standard error from now on$/,
        );
        await controller.waitFor(/^\S+ WARN the sealing key of this controller is /);
        // It still serves.
        const enrolled = await portal(join(dir, 'admin'), [
          'enroll',
          '--controller',
          ready.address,
          '--code',
          ready.adminCode,
        ]);
        assert.equal(enrolled.code, 0, enrolled.stderr);
      } finally {
        code = await controller.stop();
      }
      assert.equal(code, 0, controller.lines.join('\n'));
      assert.equal(
        controller.lines.filter((line) => / WARN cannot write the log file /.test(line)).length,
        1,
        'said once',
      );
      assert.match(controller.lines.at(-1) ?? '', /the controller stopped on SIGTERM/);
    },
  );
});
