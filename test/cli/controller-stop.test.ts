/**
 * `portal controller stop`: the embedded controller `portal enroll` started is stopped, as `portal reset`
 * stops it, with all it holds kept. Real processes: the bundled CLI and the controller it starts.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processGone } from '../../src/shared/process-state.ts';
import { removeAdminHome } from '../support/admin-home.ts';
import { portal } from '../support/processes.ts';

describe('portal controller stop: the embedded controller of a PORTAL_HOME', function () {
  this.timeout(60_000);
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'portal-controller-stop-'));
  });
  after(() => removeAdminHome(home));

  it('stops a running embedded controller and keeps its state, and says so when none runs', async () => {
    const none = await portal(home, ['controller', 'stop']);
    assert.deepEqual(none, {
      code: 0,
      stdout: `The embedded controller of PORTAL_HOME=${home} is not running.\n`,
      stderr: '',
    });
    const enrolled = await portal(home, ['enroll']);
    assert.equal(enrolled.code, 0, enrolled.stderr);
    const { pid } = JSON.parse(await readFile(join(home, 'controller', 'runtime.json'), 'utf8')) as { pid: number };
    assert.equal(existsSync(join(home, 'controller', 'controller.db.holder')), true);
    const stopped = await portal(home, ['controller', 'stop']);
    assert.deepEqual(stopped, {
      code: 0,
      stdout: `Stopped the embedded controller of PORTAL_HOME=${home} (process ${pid}); its state is kept.\n`,
      stderr: '',
    });
    assert.ok(processGone(pid));
    // Stopped gracefully: it closed its store, and let go of it.
    assert.equal(existsSync(join(home, 'controller', 'controller.db.holder')), false);
    const again = await portal(home, ['controller', 'stop']);
    assert.equal(again.stdout, `The embedded controller of PORTAL_HOME=${home} is not running.\n`);
    // Kept: the next administrator command starts it again, with the project as it was.
    const shown = await portal(home, ['project', 'show', '--jq', '.id']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^p[0-9a-f]{16}\n$/);
  });

  it('takes no other listener on its port for it, once its process is gone', async () => {
    const other = await mkdtemp(join(tmpdir(), 'portal-controller-stop-killed-'));
    try {
      const enrolled = await portal(other, ['enroll']);
      assert.equal(enrolled.code, 0, enrolled.stderr);
      const runtime = JSON.parse(await readFile(join(other, 'controller', 'runtime.json'), 'utf8')) as {
        pid: number;
        listening: string;
      };
      // Killed: its runtime file stays behind, naming the port that something else now listens on.
      process.kill(runtime.pid, 'SIGKILL');
      while (!processGone(runtime.pid)) await new Promise((resolve) => setTimeout(resolve, 20));
      // On its port (let go of as the process dies: tried again for a moment while it is not yet free).
      const squatter = createServer((socket) => socket.destroy());
      const port = Number(runtime.listening.split(':').at(-1));
      for (let attempt = 0; ; attempt += 1) {
        const error = await new Promise<Error | undefined>((resolve) => {
          squatter.once('error', resolve);
          squatter.listen(port, '127.0.0.1', () => resolve(undefined));
        });
        if (!error) break;
        if (attempt === 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      try {
        const stopped = await portal(other, ['controller', 'stop']);
        assert.deepEqual(stopped, {
          code: 0,
          stdout: `The embedded controller of PORTAL_HOME=${other} is not running.\n`,
          stderr: '',
        });
      } finally {
        await new Promise((resolve) => squatter.close(resolve));
      }
    } finally {
      await removeAdminHome(other);
    }
  });
});
