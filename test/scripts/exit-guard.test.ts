import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd } from '../support/processes.ts';
import { projectRoot } from '../support/usecases.ts';

describe('a test run that outlives its tests', function () {
  this.timeout(30_000);
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-exit-guard-'));
    await writeFile(join(dir, 'lingers.test.mjs'), "it('leaves a timer', () => { setInterval(() => {}, 1000); });\n");
    await writeFile(join(dir, 'ends.test.mjs'), "it('leaves nothing', () => {});\n");
  });

  after(() => rm(dir, { recursive: true, force: true }));

  for (const reporter of ['summary-reporter.cjs', 'lane-reporter.cjs']) {
    const mocha = (file: string) =>
      runToEnd(
        process.execPath,
        [
          join(projectRoot, 'node_modules/mocha/bin/mocha.js'),
          '--no-config',
          '--reporter',
          join(projectRoot, 'test/support', reporter),
          join(dir, file),
        ],
        { env: { ...process.env, PORTAL_TEST_LINGER_MS: '300' } },
      );

    it(`fails, saying why, instead of hanging (${reporter})`, async () => {
      const run = await mocha('lingers.test.mjs');
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stderr, /the tests ended 0\.3 s ago, but their process has not: a test left a timer/);
      assert.match(run.stderr, /still open: (.*, )?1 Timeout; run its files alone/, 'names what it left: the interval');
    });

    it(`lets a run that leaves nothing open end as it did (${reporter})`, async () => {
      const run = await mocha('ends.test.mjs');
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.doesNotMatch(run.stderr, /has not/);
    });
  }
});
