import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postgresBinaries, startPostgres, type Postgres } from '../support/postgres.ts';
import { runUseCase, type UseCaseRun } from '../support/usecase-run.ts';
import { projectRoot } from '../support/usecases.ts';

const execFileAsync = promisify(execFile);

/** pgbench's select-only run: transactions per second and failed transactions, from its report. */
function readPgbench(report: string): { tps: number; failed: number } {
  const tps = /^tps = ([\d.]+)/m.exec(report)?.[1];
  const failed = /^number of failed transactions: (\d+)/m.exec(report)?.[1] ?? '0';
  assert.ok(tps, `no tps in pgbench's report:\n${report}`);
  return { tps: Number(tps), failed: Number(failed) };
}

describe('end to end: the data warehouse use case (PostgreSQL standing in for the warehouse)', function () {
  this.timeout(120_000);
  let run: UseCaseRun;
  let warehouse: Postgres;
  let port: number;

  before(async () => {
    warehouse = await startPostgres();
    run = await runUseCase('warehouse');
    // As the stack does: the placeholder becomes the endpoint parameter, host:port without a database.
    const started = await run.startPortal((to) => to.replace('$REDSHIFT_ENDPOINT', `127.0.0.1:${warehouse.port}`));
    assert.equal(started.compiledTarget, '$REDSHIFT_ENDPOINT');
    port = started.inletPort;
  });

  after(async () => {
    await run?.close();
    await warehouse?.stop();
  });

  const environment = (pgPort = port) => warehouse.clientEnvironment(pgPort);

  it("runs the guide's statements with real psql through the inlet, PGPORT set", () => {
    const verify = spawnSync('bash', [join(projectRoot, 'out/warehouse/tickets.sh'), 'verify'], {
      env: environment(),
      encoding: 'utf8',
    });
    assert.equal(verify.status, 0, verify.stderr);
    assert.match(verify.stdout, /CREATE TABLE/);
    assert.match(verify.stdout, /INSERT 0 1/);
    assert.match(verify.stdout, /^ *portal *\| *it works *$/m);
    assert.match(verify.stdout, /DROP TABLE/);
  });

  it('carries 50 concurrent psql sessions through one inlet', async () => {
    const sessions = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        execFileAsync('psql', ['-tA', '-c', `SELECT ${index} + 1000, pg_sleep(0.3)`], { env: environment() }).then(
          ({ stdout }) => stdout.trim().split('|')[0],
        ),
      ),
    );
    assert.deepEqual(
      sessions,
      Array.from({ length: 50 }, (_, index) => String(index + 1000)),
    );
  });

  it('runs pgbench (select-only, 8 clients, 10 s) through the portal with no errors', async () => {
    const pgbench = join(postgresBinaries(), 'pgbench');
    await execFileAsync(pgbench, ['-i', '-s', '1', '-q'], { env: environment(warehouse.port) });
    const bench = async (pgPort: number) => {
      const { stdout } = await execFileAsync(pgbench, ['-S', '-c', '8', '-j', '2', '-T', '10', '-n'], {
        env: environment(pgPort),
      });
      return readPgbench(stdout);
    };
    const direct = await bench(warehouse.port);
    const portal = await bench(port);
    assert.equal(portal.failed, 0);
    assert.ok(portal.tps > 0, 'the portal carried transactions');
    process.stdout.write(
      `      pgbench -S -c 8 -T 10: direct ${direct.tps.toFixed(0)} tps, ` +
        `through the portal ${portal.tps.toFixed(0)} tps (${(portal.tps / direct.tps).toFixed(2)}x)\n`,
    );
  });
});
