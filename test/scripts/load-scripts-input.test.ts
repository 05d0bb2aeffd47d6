import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runToEnd } from '../support/processes.ts';
import { projectRoot } from '../support/usecases.ts';

/** Runs one of the load scripts as npm runs it (tsx), with `env`; its exit code and what it printed. */
const runScript = (script: string, env: NodeJS.ProcessEnv) =>
  runToEnd(process.execPath, ['--import', 'tsx', join(projectRoot, 'scripts', script)], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
  });

describe('npm run chaos and npm run fleet: a bad setting is refused in one line, before anything starts', () => {
  it('refuses a CHAOS_SETTLE_SECONDS that is not a number of at least 0.5', async () => {
    for (const value of ['soon', '0.1']) {
      const { code, stdout, stderr } = await runScript('chaos.ts', { CHAOS_SETTLE_SECONDS: value });
      assert.equal(code, 2);
      assert.equal(stdout, '', 'nothing started');
      assert.equal(stderr, 'portal chaos: CHAOS_SETTLE_SECONDS must be a number of at least 0.5; unset it for 5\n');
    }
  });

  it('refuses a FLEET_NODES that is not a whole number of 10 or more', async () => {
    for (const value of ['many', '5', '12.5']) {
      const { code, stdout, stderr } = await runScript('fleet.ts', { FLEET_NODES: value });
      assert.equal(code, 2);
      assert.equal(stdout, '', 'nothing started');
      assert.equal(stderr, 'portal fleet: FLEET_NODES must be a whole number of 10 or more; unset it for 10000\n');
    }
  });
});
