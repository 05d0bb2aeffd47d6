/**
 * `portal controller stop`: the embedded controller `portal enroll` started is stopped, as `portal reset`
 * stops it, with all it holds kept. Real processes: the bundled CLI and the controller it starts.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
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
});
