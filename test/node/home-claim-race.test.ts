import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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
});
