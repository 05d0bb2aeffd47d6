import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSandbox, type Sandbox } from '../support/sandbox.ts';
import { allUseCases, artifactText } from '../support/usecases.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

const fakePortal = `case "$1 $2" in
  "project ticket") echo "pt1_ticket_for_$(echo "$*" | sed 's/.*--attribute \\([a-z-]*\\).*/\\1/')" ;;
  "project show") [ "$4" = ".network_domain" ] && echo tunnels.test || echo p0123456789 ;;
  "project ca") echo "-----BEGIN CERTIFICATE-----" ;;
esac`;

function runTickets(sandbox: Sandbox, usecase: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync('bash', [join(sandbox.dir, 'tickets.sh'), ...args], {
    cwd: sandbox.dir,
    env: { PATH: `${sandbox.bin}:/usr/bin:/bin`, HOME: sandbox.root, ...env },
    encoding: 'utf8',
  });
}

describe('tickets.sh (administrator workflow)', () => {
  let sandbox: Sandbox;

  beforeEach(async () => {
    sandbox = await createSandbox();
    await sandbox.stub('portal', fakePortal);
  });

  afterEach(async () => {
    await sandbox.remove();
  });

  async function install(usecase: string) {
    await writeFile(join(sandbox.dir, 'tickets.sh'), artifactText(usecase, 'tickets.sh'), { mode: 0o755 });
  }

  for (const usecase of allUseCases) {
    it(`${usecase}: is valid bash`, () => {
      const result = spawnSync('bash', ['-n'], { input: artifactText(usecase, 'tickets.sh'), encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
    });
  }

  it('enrolls and issues the two tickets with the spec flags, into private files', async () => {
    await install('bedrock');
    const run = runTickets(sandbox, 'bedrock', []);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(await sandbox.calls(), [
      'portal enroll',
      'portal project ticket --expires-in 10h --usage-count 1 --attribute bedrock-outlet --relay bedrock',
      'portal project ticket --expires-in 10h --usage-count 1 --attribute bedrock-inlet --tls',
    ]);
    assert.equal(await readFile(join(sandbox.dir, 'outlet.ticket'), 'utf8'), 'pt1_ticket_for_bedrock-outlet\n');
    assert.equal(await readFile(join(sandbox.dir, 'inlet.ticket'), 'utf8'), 'pt1_ticket_for_bedrock-inlet\n');
    assert.equal((await stat(join(sandbox.dir, 'outlet.ticket'))).mode & 0o777, 0o600);
  });

  it('installs portal with the secure download command when it is missing, then loads its environment', async () => {
    await install('webhook');
    const portalHome = join(sandbox.root, '.portal');
    // The installer stand-in puts a recording portal under $HOME/.portal/bin, as the real one does.
    const installer =
      `mkdir -p '${portalHome}/bin'; cp '${join(sandbox.bin, 'portal')}' '${portalHome}/bin/portal'; ` +
      `echo 'export PATH="$HOME/.portal/bin:$PATH"' > '${portalHome}/env'`;
    await sandbox.stub('curl', `cat <<'INSTALLER'\n${installer}\nINSTALLER`);
    const pathWithoutPortal = join(sandbox.dir, 'tools');
    spawnSync('bash', ['-c', `mkdir -p '${pathWithoutPortal}' && cp '${sandbox.bin}/curl' '${pathWithoutPortal}/'`]);
    const run = spawnSync('bash', [join(sandbox.dir, 'tickets.sh')], {
      cwd: sandbox.dir,
      env: { PATH: `${pathWithoutPortal}:/usr/bin:/bin`, HOME: sandbox.root },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    const calls = await sandbox.calls();
    assert.equal(calls[0], 'curl --proto =https --tlsv1.2 -sSfL https://portal.example.net/install.sh');
    assert.deepEqual(calls.slice(1), [
      'portal enroll',
      'portal project ticket --expires-in 10h --usage-count 1 --attribute webhook-outlet --relay webhook',
      'portal project ticket --expires-in 10h --usage-count 1 --attribute webhook-inlet',
    ]);
  });

  it('verifies PostgreSQL through the inlet port with the spec statements', async () => {
    await install('postgres');
    await sandbox.stub('psql', 'echo "env $PGHOST:$PGPORT $PGUSER/$PGDATABASE" >> "$(dirname "$0")/../psql.env"');
    const run = runTickets(sandbox, 'postgres', ['verify'], {
      PGUSER: 'app',
      PGPASSWORD: 'secret',
      PGDATABASE: 'appdb',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(await sandbox.calls(), [
      'psql -c \\dt',
      'psql -c CREATE TABLE portal_check (key VARCHAR(255), value VARCHAR(255));',
      "psql -c INSERT INTO portal_check (key, value) VALUES ('portal', 'it works');",
      'psql -c SELECT * FROM portal_check;',
      'psql -c DROP TABLE IF EXISTS portal_check;',
    ]);
    const environments = (await readFile(join(sandbox.dir, 'psql.env'), 'utf8')).trim().split('\n');
    assert.deepEqual(new Set(environments), new Set(['env localhost:15432 app/appdb']));
  });

  it('verifies the warehouse on 15439, and asks for the database credentials when they are missing', async () => {
    await install('warehouse');
    await sandbox.stub('psql', 'echo "$PGPORT" >> "$(dirname "$0")/../psql.port"');
    const missing = runTickets(sandbox, 'warehouse', ['verify']);
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /set PGUSER, PGPASSWORD and PGDATABASE/);
    const run = runTickets(sandbox, 'warehouse', ['verify'], { PGUSER: 'a', PGPASSWORD: 'b', PGDATABASE: 'c' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal((await readFile(join(sandbox.dir, 'psql.port'), 'utf8')).trim().split('\n')[0], '15439');
  });

  it('verifies the webhook with a JSON POST to the inlet', async () => {
    await install('webhook');
    await sandbox.stub('curl', 'echo "answer from the stand-in"');
    const run = runTickets(sandbox, 'webhook', ['verify']);
    assert.equal(run.status, 0, run.stderr);
    const [call] = await sandbox.calls();
    const hostname = spawnSync('hostname', { encoding: 'utf8' }).stdout.trim();
    assert.equal(
      call,
      'curl -sS --fail-with-body -X POST http://localhost:17777/webhook ' +
        `-H Content-Type: application/json -d {"from": "${hostname}"}`,
    );
    assert.equal(run.stdout, 'answer from the stand-in\n\n', 'the answer is shown');
  });

  it('invokes the model at https://<label>.<project_id>.<network_domain>', async () => {
    await install('bedrock');
    await sandbox.stub(
      'aws',
      'echo "region=$AWS_REGION ca=$AWS_CA_BUNDLE" >> "$(dirname "$0")/../aws.env"; echo "{}" > output.json',
    );
    await sandbox.stub('getent', '[ "$2" = bedrock.p0123456789.tunnels.test ]');
    const run = runTickets(sandbox, 'bedrock', ['verify']);
    assert.equal(run.status, 0, run.stderr);
    const invoke = (await sandbox.calls()).find((call) => call.startsWith('aws '));
    assert.match(
      invoke ?? '',
      joinedRegExp(
        /^aws bedrock-runtime invoke-model --endpoint-url https:\/\/bedrock\.p0123456789\.tunnels\.test /,
        /--model-id amazon\.titan-text-express-v1 --body /,
        /\{"inputText":"[^"]+","textGenerationConfig":\{"maxTokenCount":256,"temperature":0\.5,"topP":0\.9\}\} /,
        /--cli-binary-format raw-in-base64-out output\.json$/,
      ),
    );
    assert.equal(
      await readFile(join(sandbox.dir, 'aws.env'), 'utf8'),
      `region=us-east-1 ca=${join(sandbox.dir, 'project-ca.pem')}\n`,
    );
    assert.equal(await readFile(join(sandbox.dir, 'project-ca.pem'), 'utf8'), '-----BEGIN CERTIFICATE-----\n');
  });

  it('stops the model check with the fix when the inlet name does not resolve', async () => {
    await install('bedrock');
    await sandbox.stub('aws');
    await sandbox.stub('getent', 'exit 2');
    const run = runTickets(sandbox, 'bedrock', ['verify']);
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      'bedrock.p0123456789.tunnels.test does not resolve: add a DNS record or a hosts entry pointing at the inlet ' +
        '(README.md, step 6)\n',
    );
    assert.ok(!(await sandbox.calls()).some((call) => call.startsWith('aws ')));
  });

  it('cleans up both stacks and resets portal', async () => {
    await install('postgres');
    await sandbox.stub('aws');
    const run = runTickets(sandbox, 'postgres', ['cleanup']);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(await sandbox.calls(), [
      'aws cloudformation delete-stack --stack-name postgres-inlet',
      'aws cloudformation delete-stack --stack-name postgres-outlet',
      'portal reset --yes',
    ]);
  });

  it('refuses an unknown step with its usage and exit code 2', async () => {
    await install('postgres');
    const run = runTickets(sandbox, 'postgres', ['launch']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /usage: .*tickets\.sh \[tickets\|verify\|cleanup\]/);
  });
});
