import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimHome, runningHolder } from '../../src/node/home-claim.ts';
import { PortalError } from '../../src/shared/errors.ts';

describe('one process per identity directory', () => {
  let home: string;
  let file: string;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'portal-claim-'));
    file = join(home, 'node', 'runtime.json');
  });

  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('refuses a second claim while the holder runs, naming it', async () => {
    // The test runner's parent runs, and is not this process.
    const pid = process.ppid;
    await mkdir(join(home, 'node'), { recursive: true });
    await writeFile(file, JSON.stringify({ pid, startedAt: '2026-11-25T00:00:00.000Z', statusPort: 23345 }));
    await assert.rejects(claimHome({ file, what: 'a node', home }), (error: PortalError) => {
      assert.equal(error.code, 'ALREADY_RUNNING');
      assert.equal(
        error.message,
        `a node runs already with PORTAL_HOME=${home} ` +
          `(process ${pid}, started 2026-11-25T00:00:00.000Z, status on 127.0.0.1:23345)`,
      );
      assert.equal(error.hint, 'one node per PORTAL_HOME: stop that one first, or give this one another PORTAL_HOME');
      return true;
    });
    assert.equal((await runningHolder(file))?.pid, pid);
  });

  it('takes over a file left by a process that is gone, and releases only its own', async () => {
    await mkdir(join(home, 'node'), { recursive: true });
    // Above any pid_max: no such process.
    await writeFile(file, JSON.stringify({ pid: 2_000_000_000, startedAt: 'then' }));
    assert.equal(await runningHolder(file), undefined);
    const claim = await claimHome({ file, what: 'a node', home });
    await claim.update({ statusPort: 4242 });
    const record = JSON.parse(await readFile(file, 'utf8')) as { pid: number; statusPort: number };
    assert.deepEqual([record.pid, record.statusPort], [process.pid, 4242]);
    // Another process took the file over meanwhile: releasing leaves its record alone.
    await writeFile(file, JSON.stringify({ pid: 1, startedAt: 'other' }));
    await claim.release();
    assert.equal((JSON.parse(await readFile(file, 'utf8')) as { pid: number }).pid, 1);
  });

  it('does not take a reused pid for the process that wrote the file', async () => {
    await mkdir(join(home, 'node'), { recursive: true });
    // The parent runs, but started at another moment than the one recorded.
    await writeFile(file, JSON.stringify({ pid: process.ppid, processStart: 'another moment', startedAt: 'long ago' }));
    const claim = await claimHome({ file, what: 'a node', home });
    await claim.release();
  });
});
