import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { claimHome } from '../../src/node/home-claim.ts';
import { processGone, processStart } from '../../src/shared/process-state.ts';
import { helperProgram } from '../support/helper-program.ts';

/** Starts `count` starters at once; resolves with each one's first line, and the processes. */
async function race(file: string, count: number): Promise<{ answers: string[]; starters: ChildProcess[] }> {
  const starters = Array.from({ length: count }, () =>
    spawn(process.execPath, [helperProgram('test/support/claim-home.ts')], {
      env: { ...process.env, CLAIM_FILE: file },
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const answers = await Promise.all(
    starters.map(
      async (starter) =>
        (await once(createInterface({ input: starter.stdout as NodeJS.ReadableStream }), 'line'))[0] as string,
    ),
  );
  return { answers, starters };
}

async function release(starters: ChildProcess[]): Promise<void> {
  await Promise.all(
    starters.map(async (starter) => {
      if (starter.exitCode !== null) return;
      const exited = once(starter, 'exit');
      starter.stdin?.end();
      await exited;
    }),
  );
}

describe('one process per identity directory, with starters racing', function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-claim-race-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lets exactly one of 8 simultaneous starters claim a home with no runtime file', async () => {
    const { answers, starters } = await race(join(dir, 'node', 'runtime.json'), 8);
    try {
      assert.equal(answers.filter((answer) => answer === 'won').length, 1, answers.join(', '));
      assert.ok(
        answers.filter((answer) => answer !== 'won').every((answer) => answer === 'refused ALREADY_RUNNING'),
        answers.join(', '),
      );
    } finally {
      await release(starters);
    }
  });

  it('lets exactly one of 8 simultaneous starters take over a stale runtime file', async () => {
    await mkdir(join(dir, 'node'));
    const file = join(dir, 'node', 'runtime.json');
    await writeFile(file, JSON.stringify({ pid: 2_000_000_000, startedAt: 'before a crash', statusPort: 1 }));
    const { answers, starters } = await race(file, 8);
    try {
      assert.equal(answers.filter((answer) => answer === 'won').length, 1, answers.join(', '));
    } finally {
      await release(starters);
    }
  });

  it('takes over a file left by a process killed where nothing reaps it (a zombie)', async () => {
    // sh starts a child that exits at once, then becomes `sleep`, which never waits for it: a zombie.
    const parent = spawn('sh', ['-c', 'sh -c "echo \\$\\$" & exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [line] = (await once(createInterface({ input: parent.stdout as NodeJS.ReadableStream }), 'line')) as [
        string,
      ];
      const pid = Number(line);
      // Gone, yet still in /proc: exited and not reaped.
      await until(() => processGone(pid) && processStart(pid) !== undefined, 'the child to be a zombie');
      await mkdir(join(dir, 'node'));
      const file = join(dir, 'node', 'runtime.json');
      await writeFile(file, JSON.stringify({ pid, processStart: processStart(pid), startedAt: 'before the kill' }));
      const claim = await claimHome({ file, what: 'a node', home: dir });
      await claim.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5000; !check(); await new Promise((resolve) => setTimeout(resolve, 10)))
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
}
