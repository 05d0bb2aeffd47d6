import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPortal } from '../support/processes.ts';

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
    const controller = startPortal(join(dir, 'home'), ['controller', 'start', '--listen', '127.0.0.1:0', '--data-dir', join(dir, 'data'), '--ready-json', '--log-file', log]);
    try {
      await controller.waitFor(/^\{"pid"/);
      // The sealing key was made under PORTAL_HOME, which the controller warns about on its log.
      assert.match(await readFile(log, 'utf8'), /^\S+ WARN the sealing key of this controller is \S+controller-seal\.key, outside its data directory but on this machine/m);
      assert.equal((await stat(log)).mode & 0o777, 0o600);
    } finally {
      await controller.stop();
    }
    assert.deepEqual(controller.lines.filter((line) => !line.startsWith('{"pid"')), [], 'nothing else on its standard output or error');
  });
});
