/**
 * The README's quick start, run as written (see test/support/readme-walkthrough.ts): three homes on
 * loopback, a real PostgreSQL, real psql.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Running } from '../support/processes.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { bash, interrupt, resetAdministrator, startQuickStart } from '../support/readme-walkthrough.ts';

describe('the README quick start, as written, across three homes on loopback', function () {
  this.timeout(120_000);
  let dir: string;
  let postgres: Postgres;
  const running: Running[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-quick-start-'));
    postgres = await startPostgres();
  });

  after(async () => {
    for (const node of running) await node.stop();
    await postgres?.stop();
    await resetAdministrator(dir);
    await rm(dir, { recursive: true, force: true });
  });

  it('enrolls, issues private tickets, runs both nodes, shows UP and answers psql; both stop on Ctrl-C', async () => {
    const started = await startQuickStart(dir, postgres, running);
    const { homes, env, psqlEnv, onLoopback, steps } = started;
    assert.deepEqual(
      steps.map((step) => step.title.split(',')[0]),
      [
        "On the administrator's machine",
        "On the database's machine (it needs outbound network only):",
        "On the clients' machine",
      ],
    );
    const checks = steps[2]?.commands.slice(1) ?? [];
    const shown = await bash(onLoopback(checks[0] as string), homes.clients, env);
    assert.match(shown.stdout, /^The node is UP\n/);
    const answer = await bash(onLoopback(checks[1] as string), homes.clients, psqlEnv);
    assert.match(answer.stdout, /^\s*\?column\?\s*\n-+\n\s*1\n/);
    for (const node of [started.inlet, started.outlet]) await interrupt(node);
  });
});
