import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { startPostgres, type Postgres } from '../support/postgres.ts';
import { runUseCase, type UseCaseRun } from '../support/usecase-run.ts';
import { projectRoot } from '../support/usecases.ts';

const execFileAsync = promisify(execFile);

describe('end to end: the PostgreSQL use case', function () {
  this.timeout(90_000);
  let run: UseCaseRun;
  let database: Postgres;
  let port: number;

  before(async () => {
    database = await startPostgres();
    run = await runUseCase('postgres');
    // As the stack does: the placeholder becomes the database host; the test database has its own port.
    const started = await run.startPortal((to) =>
      to.replace('$POSTGRES_ENDPOINT', '127.0.0.1').replace(/:5432$/, `:${database.port}`),
    );
    assert.equal(started.compiledTarget, '$POSTGRES_ENDPOINT:5432');
    port = started.inletPort;
  });

  after(async () => {
    await run?.close();
    await database?.stop();
  });

  const environment = () => database.clientEnvironment(port);

  it("runs the guide's verification statements with real psql through the inlet", () => {
    const verify = spawnSync('bash', [join(projectRoot, 'out/postgres/tickets.sh'), 'verify'], {
      env: environment(),
      encoding: 'utf8',
    });
    assert.equal(verify.status, 0, verify.stderr);
    const out = verify.stdout;
    assert.match(out, /CREATE TABLE/);
    assert.match(out, /INSERT 0 1/);
    assert.match(out, /^ *key *\| *value *$/m);
    assert.match(out, /^ *portal *\| *it works *$/m);
    assert.match(out, /DROP TABLE/);
    assert.match(verify.stderr + out, /Did not find any relations/);
  });

  it('carries many concurrent psql sessions', async () => {
    const sessions = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        execFileAsync('psql', ['-tA', '-c', `SELECT ${index} * 2, pg_sleep(0.2)`], { env: environment() }).then(
          ({ stdout }) => stdout.trim().split('|')[0],
        ),
      ),
    );
    assert.deepEqual(
      sessions,
      Array.from({ length: 20 }, (_, index) => String(index * 2)),
    );
  });
});
