/**
 * npm test's docker-compose imported once (test/support/compose-zygote.py, started by
 * scripts/test-run.mjs): what a command prints and its exit code are the real program's, and with the
 * zygote stopped the `docker-compose` on the lanes' PATH runs the real program.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startComposeZygote } from '../../scripts/test-run.mjs';

const composeFile = `services:
  node:
    image: "portal:test"
    environment:
      TICKET: "\${ENROLLMENT_TICKET:?give the ticket in ENROLLMENT_TICKET}"
`;

/** PATH without the folders of the run this test runs in (whose docker-compose is the run's own). */
const realPath = (process.env.PATH ?? '')
  .split(':')
  .filter((dir) => !process.env.PORTAL_TEST_RUN_DIR || !dir.startsWith(process.env.PORTAL_TEST_RUN_DIR))
  .join(':');

describe("npm test's docker-compose, imported once", function () {
  this.timeout(60_000);
  let dir: string;
  let compose: ReturnType<typeof startComposeZygote>;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-compose-zygote-'));
    await writeFile(join(dir, 'compose.yaml'), composeFile);
    compose = startComposeZygote(dir, realPath);
  });
  after(async () => {
    await compose?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** `docker-compose -f compose.yaml config` by `program`, with or without the ticket. */
  const config = (program: string, ticket?: string) => {
    const run = spawnSync(program, ['-f', 'compose.yaml', 'config'], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: realPath, HOME: dir, ...(ticket ? { ENROLLMENT_TICKET: ticket } : {}) },
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  };

  it('answers as the real program does, through the zygote and after it stopped', async () => {
    assert.ok(compose, 'docker-compose is installed (Debian package docker-compose; .ci/run installs it)');
    const shim = join(compose.bin, 'docker-compose');
    const real = { with: config('docker-compose', 'pt1_secret'), without: config('docker-compose') };
    assert.equal(real.with.status, 0, real.with.stderr);
    assert.match(real.with.stdout, /TICKET: pt1_secret/);
    assert.equal(real.without.status, 1);
    assert.match(real.without.stderr, /give the ticket in ENROLLMENT_TICKET/);
    // The zygote listens once it has imported docker-compose; before, the shim would run the real program.
    const socket = join(dir, 'compose.sock');
    for (let waited = 0; waited < 100 && !existsSync(socket); waited += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(existsSync(socket), 'the zygote listens');
    assert.deepEqual(config(shim, 'pt1_secret'), real.with);
    assert.deepEqual(config(shim), real.without);
    await compose.stop();
    assert.deepEqual(config(shim, 'pt1_secret'), real.with, 'the real program, once the zygote is away');
  });
});
