/**
 * The operations guide's walkthrough (docs/operating.md) of the quick start's project, run as written after the quick
 * start (see test/support/readme-walkthrough.ts): list the members, revoke the inlet while a real psql
 * transfers through it and time the close, read and verify the audit trail, and put a policy
 * expression on the outlet that admits a new inlet by its two attributes.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { until } from '../support/in-process.ts';
import { runToEnd, start, type Running } from '../support/processes.ts';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import {
  bash,
  interrupt,
  readOperatingGuide,
  resetAdministrator,
  startQuickStart,
  stepsOf,
  type Step,
} from '../support/readme-walkthrough.ts';

const run = promisify(execFile);

/** The most docs/operating.md promises between `revoke` returning and the client's connection closing. */
const closeWithinMs = 1000;

describe("docs/operating.md's walkthrough: expel the quick start's inlet, read the trail, write a policy", function () {
  this.timeout(180_000);
  let dir: string;
  let postgres: Postgres;
  const running: Running[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-walkthrough-'));
    postgres = await startPostgres();
  });

  after(async () => {
    for (const process of running) await process.stop();
    await postgres?.stop();
    await resetAdministrator(dir);
    await rm(dir, { recursive: true, force: true });
  });

  it('runs every step as written, with the close within a second and the trail whole', async () => {
    const quick = await startQuickStart(dir, postgres, running);
    const { homes, env, psqlEnv, onLoopback } = quick;
    const steps = stepsOf(await readOperatingGuide(), "## Try it: expel the quick start's inlet");
    assert.equal(steps.length, 8, steps.map((step) => step.title).join('\n'));
    const [members, client, revoke, audit, ticket, outletAgain, inletAgain, admitted] = steps as [
      Step,
      Step,
      Step,
      Step,
      Step,
      Step,
      Step,
      Step,
    ];
    // The administrator's terminal: what step 3 sets (INLET) holds in the steps after it.
    let shell: NodeJS.ProcessEnv = env;
    const asAdmin = (step: Step) => bash(step.commands.map(onLoopback).join('\n'), homes.admin, shell);

    // 1. Three members, all active.
    const listed = (await asAdmin(members)).stdout.trimEnd().split('\n');
    assert.match(listed[0] ?? '', /^ID +KIND +ATTRIBUTES .* SESSIONS +STATUS$/);
    assert.equal(listed.length, 4, listed.join('\n'));
    for (const row of listed.slice(1)) assert.match(row, /active$/);
    assert.ok(listed.some((row) => /^n[0-9a-f]+ +node +db-inlet /.test(row)));

    // 2. A client that keeps transferring: running once its COPY is active on the server.
    assert.equal(client.commands.length, 1);
    const psql = start('bash', ['-c', `exec ${onLoopback(client.commands[0] as string)}`], {
      cwd: homes.clients,
      env: { ...psqlEnv, HOME: homes.clients },
    });
    running.push(psql);
    const psqlExit = once(psql.child, 'exit').then(([code]) => ({
      code: code as number | null,
      at: performance.now(),
    }));
    await activeCopy(psqlEnv, postgres.port);

    // 3. Revoked while it runs: the client's connection closes within a second of revoke returning.
    const revoked = await asAdmin(revoke);
    const returnedAt = performance.now();
    assert.match(revoked.stdout, /^Revoked n[0-9a-f]+: its connections are closed/);
    const ended = await Promise.race([psqlExit, delay(10_000, undefined, { ref: false })]);
    assert.ok(ended, 'psql still runs 10 s after the revocation');
    const closedMs = Math.max(0, ended.at - returnedAt);
    assert.notEqual(ended.code, 0, 'the transfer did not complete: it was cut');
    assert.match(psql.lines.join('\n'), /server closed the connection unexpectedly|connection to server was lost/);
    assert.ok(closedMs < closeWithinMs, `psql's connection closed ${closedMs.toFixed(0)} ms after revoke returned`);
    const when = ended.at - returnedAt;
    console.log(
      `      the client's connection closed ${Math.abs(when).toFixed(0)} ms ` +
        `${when < 0 ? 'before' : 'after'} portal project revoke returned`,
    );
    // The inlet learns it, the next time it asks the controller for anything, and says so once.
    await quick.inlet.waitFor(/ERROR this node n[0-9a-f]+ was revoked from project p[0-9a-f]+ /, 10_000);

    // 4. The trail: the inlet's enrollment, its revocation and what it cut; then whole.
    const inletId = /^Revoked (n[0-9a-f]+):/.exec(revoked.stdout)?.[1] as string;
    shell = { ...env, INLET: inletId };
    const trail = (await asAdmin(audit)).stdout;
    assert.match(trail, /enrolled/);
    assert.match(trail, /session/);
    assert.match(trail, /revoked .*laptop lost/);
    assert.match(trail, /^the audit trail of project p[0-9a-f]+ is whole: \d+ records/m);
    // What the revocation cut, as the trail has it: the controller's relay's splices, or a peer's report.
    await until(async () => {
      const json = await bash(`portal project audit --json --member ${inletId}`, homes.admin, env);
      const records = json.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { event: string; details: Record<string, unknown> });
      const revocation = records.find((record) => record.event === 'revoked');
      const cut = records.filter((record) => record.event === 'revoked-cut');
      return Number(revocation?.details.splices_cut) > 0 || cut.some((record) => Number(record.details.connections) > 0)
        ? true
        : undefined;
    }, 'a record of what the revocation cut');

    // 5. and 6. The ticket of two attributes, and the outlet again with an expression as its allow.
    await asAdmin(ticket);
    await copyFile(join(homes.admin, 'ops-inlet.ticket'), join(homes.clients, 'ops-inlet.ticket'));
    await interrupt(quick.outlet);
    assert.equal(outletAgain.commands.length, 1);
    const outlet = quick.foreground(homes.database, outletAgain.commands[0] as string);
    await outlet.waitFor(/Portal node setup completed successfully/, 30_000);

    // 7. The revoked inlet stopped, the new one admitted by the policy: psql answers through it.
    await interrupt(quick.inlet);
    const [create, query] = inletAgain.commands as [string, string];
    const inlet = quick.foreground(homes.clients, create);
    await inlet.waitFor(/Portal node setup completed successfully/, 30_000);
    const answer = await bash(onLoopback(query), homes.clients, psqlEnv);
    assert.match(answer.stdout, /^\s*\?column\?\s*\n-+\n\s*1\n/);

    // 8. Whom the outlet's allow admits: the ops inlet only.
    const rows = (await asAdmin(admitted)).stdout.trimEnd().split('\n');
    assert.equal(rows.length, 2, rows.join('\n'));
    assert.match(rows[1] ?? '', /^n[0-9a-f]+ +node +team=ops,env=prod .* active$/);
    // A mistake in the expression: one located line, exit 2.
    const typo = await runToEnd('bash', ['-c', `portal project members --admitted-by 'team = ops'`], {
      cwd: homes.admin,
      env: { ...env, HOME: homes.admin },
    });
    assert.equal(typo.code, 2, typo.stderr);
    assert.equal(typo.stdout, '');
    assert.match(typo.stderr, /^portal: --admitted-by is not an allow expression: column 8: expected a quoted value/);
    assert.equal(typo.stderr.trim().split('\n').length, 1, typo.stderr);
    assert.match(typo.stderr, /; give an attribute name, or an expression such as /);
    for (const node of [inlet, outlet]) await interrupt(node);
  });
});

/** Waits until the server runs the walkthrough's COPY: bytes are flowing through the inlet. */
async function activeCopy(psqlEnv: NodeJS.ProcessEnv, port: number): Promise<void> {
  const query = "select count(*) from pg_stat_activity where state = 'active' and query like 'copy (select g%'";
  const started = Date.now();
  for (;;) {
    const { stdout } = await run('psql', ['-h', '127.0.0.1', '-p', String(port), '-Atc', query], { env: psqlEnv });
    if (Number(stdout.trim()) > 0) return;
    if (Date.now() - started > 20_000) throw new Error('the COPY did not start within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
