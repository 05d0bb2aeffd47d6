/** `npm test --checks`' lint and type check, run as npm scripts beside the lanes (scripts/test-run.mjs). */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck } from '../../scripts/test-run.mjs';

describe('npm test runs lint and the type check beside the lanes (--checks)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-checks-'));
    const scripts = { fails: 'echo "src/a.ts: 1 problem" && exit 1', passes: 'echo clean' };
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'checks', private: true, scripts }));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reports a failing check with its output, and a passing one as passed', async () => {
    const [failed, passed] = await Promise.all([runCheck('fails', dir, dir), runCheck('passes', dir, dir)]);
    assert.equal(failed.passed, false);
    assert.match(await readFile(failed.log, 'utf8'), /src\/a\.ts: 1 problem/);
    assert.equal(passed.passed, true);
    assert.equal(passed.name, 'passes');
  });
});
