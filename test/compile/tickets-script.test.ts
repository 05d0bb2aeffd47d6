import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSandbox, type Sandbox } from '../support/sandbox.ts';
import { allUseCases, artifactText } from '../support/usecases.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

/**
 * A portal stand-in that remembers its enrollment (a file beside it): project show fails until portal
 * enroll ran, then names the controller the enrollment gave (loopback for a plain portal enroll).
 */
const fakePortal = `state="$(dirname "$0")/../enrolled"
case "$1 $2" in
  "enroll "*)
    case "$*" in
      *--controller*) echo "$3" > "$state" ;;
      *--public-address*) echo "$5" > "$state" ;;
      *) echo "127.0.0.1:41234" > "$state" ;;
    esac ;;
  "project ticket") echo "pt1_ticket_for_$(echo "$*" | sed 's/.*--attribute \\([a-z-]*\\).*/\\1/')" ;;
  "project show")
    [ -f "$state.down" ] && { echo "portal: cannot reach the controller" >&2; exit 1; }
    [ -f "$state" ] || { echo "portal: not enrolled" >&2; exit 2; }
    case "$4" in
      .network_domain) echo tunnels.test ;;
      .controller) cat "$state" ;;
      *) echo p0123456789 ;;
    esac ;;
  "project ca") echo "-----BEGIN CERTIFICATE-----" ;;
esac`;

const controllerFlags = ['--controller', 'ctl.example.net:4000', '--code', 'pa1_admin_code'];

function runTickets(sandbox: Sandbox, usecase: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync('bash', [join(sandbox.dir, 'tickets.sh'), ...args], {
    cwd: sandbox.dir,
    env: { PATH: `${sandbox.bin}:${sandbox.system}`, HOME: sandbox.root, ...env },
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

  it('enrolls with the controller it is given, issues the two tickets with the spec flags, privately', async () => {
    await install('bedrock');
    const run = runTickets(sandbox, 'bedrock', controllerFlags);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(await sandbox.calls(), [
      'portal project show --jq .controller',
      'portal enroll --controller ctl.example.net:4000 --code pa1_admin_code',
      'portal project show --jq .controller',
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
    const env = { PATH: `${pathWithoutPortal}:${sandbox.system}`, HOME: sandbox.root };
    const unset = spawnSync('bash', [join(sandbox.dir, 'tickets.sh'), '--local'], {
      cwd: sandbox.dir,
      env,
      encoding: 'utf8',
    });
    assert.equal(unset.status, 2, 'no installer address was compiled in or given');
    assert.equal(
      unset.stderr,
      'portal is not installed: install it from a release (README.md, step 2), ' +
        'or set PORTAL_INSTALL_URL to the address of your install.sh\n',
    );
    const run = spawnSync('bash', [join(sandbox.dir, 'tickets.sh'), '--local'], {
      cwd: sandbox.dir,
      env: { ...env, PORTAL_INSTALL_URL: 'https://downloads.example.test/install.sh' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    const calls = await sandbox.calls();
    assert.equal(calls[0], 'curl --proto =https --tlsv1.2 -sSfL https://downloads.example.test/install.sh');
    assert.deepEqual(calls.slice(1), [
      'portal project show --jq .controller',
      'portal enroll',
      'portal project show --jq .controller',
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
    await writeFile(join(sandbox.dir, 'enrolled'), 'ctl.example.net:4000\n');
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
    await writeFile(join(sandbox.dir, 'enrolled'), 'ctl.example.net:4000\n');
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

  describe('cleanup', () => {
    const reason = '--reason use case postgres: ./tickets.sh cleanup';
    const retireLines = [
      `portal project retire --attribute postgres-outlet --relay postgres ${reason}`,
      `portal project retire --attribute postgres-inlet ${reason}`,
    ];

    it("deletes both stacks, retires this use case's tickets and nodes, then resets portal", async () => {
      await install('postgres');
      await writeFile(join(sandbox.dir, 'enrolled'), 'ctl.example.net:4000\n');
      await sandbox.stub('aws');
      const run = runTickets(sandbox, 'postgres', ['cleanup']);
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(await sandbox.calls(), [
        'aws cloudformation delete-stack --stack-name postgres-inlet',
        'aws cloudformation delete-stack --stack-name postgres-outlet',
        'portal project show --jq .id',
        ...retireLines,
        'portal reset --yes',
      ]);
    });

    it('passes --delete-controller on to portal reset, and only then', async () => {
      await install('postgres');
      await writeFile(join(sandbox.dir, 'enrolled'), 'ctl.example.net:4000\n');
      const run = runTickets(sandbox, 'postgres', ['cleanup', '--delete-controller']);
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual((await sandbox.calls()).at(-1), 'portal reset --yes --delete-controller');
    });

    it('on a machine that administers no project, retires nothing and resets', async () => {
      await install('postgres');
      const run = runTickets(sandbox, 'postgres', ['cleanup']);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, 'This machine administers no project: no node or ticket to take out.\n');
      assert.deepEqual(await sandbox.calls(), ['portal project show --jq .id', 'portal reset --yes']);
    });

    it('keeps the configuration when the controller does not answer: nobody could revoke the nodes after', async () => {
      await install('postgres');
      await writeFile(join(sandbox.dir, 'enrolled'), 'ctl.example.net:4000\n');
      await writeFile(join(sandbox.dir, 'enrolled.down'), '');
      const run = runTickets(sandbox, 'postgres', ['cleanup']);
      assert.equal(run.status, 1);
      assert.match(
        run.stderr,
        /^the controller does not answer \(portal project show\), so this use case's nodes cannot be revoked; /,
      );
      assert.deepEqual(await sandbox.calls(), ['portal project show --jq .id']);
    });
  });

  it('refuses an unknown step with its usage and exit code 2', async () => {
    await install('postgres');
    const run = runTickets(sandbox, 'postgres', ['launch']);
    assert.equal(run.status, 2);
    assert.match(
      run.stderr,
      new RegExp(
        String.raw`^usage: .*tickets\.sh \[tickets\] ` +
          String.raw`\[--controller HOST:PORT --code CODE \| --public-address HOST:PORT \| --local\]\n`,
      ),
    );
    assert.match(run.stderr, /\n {7}.*tickets\.sh verify \| cleanup \[--delete-controller\]\n$/);
  });

  describe('the controller the nodes enroll with', () => {
    it('is asked for: with none given, nothing is enrolled and the usage says what to give', async () => {
      await install('postgres');
      const run = runTickets(sandbox, 'postgres', []);
      assert.equal(run.status, 2);
      assert.match(
        run.stderr,
        /^say where the nodes enroll: --controller HOST:PORT --code CODE, --public-address HOST:PORT, or --local /,
      );
      assert.deepEqual(await sandbox.calls(), ['portal project show --jq .controller']);
      assert.ok(!existsSync(join(sandbox.dir, 'outlet.ticket')));
    });

    it('takes the controller and its admin code from the environment too', async () => {
      await install('postgres');
      const run = runTickets(sandbox, 'postgres', [], {
        PORTAL_CONTROLLER: 'ctl.example.net:4000',
        PORTAL_ADMIN_CODE: 'pa1_from_env',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.ok(
        (await sandbox.calls()).includes('portal enroll --controller ctl.example.net:4000 --code pa1_from_env'),
      );
    });

    it('wants the admin code with the controller', async () => {
      await install('postgres');
      const run = runTickets(sandbox, 'postgres', ['--controller', 'ctl.example.net:4000']);
      assert.equal(run.status, 2);
      assert.match(run.stderr, /^--controller ctl\.example\.net:4000 needs --code CODE \(or PORTAL_ADMIN_CODE\)/);
    });

    it('starts the embedded controller where the nodes reach it with --public-address', async () => {
      await install('postgres');
      const run = runTickets(sandbox, 'postgres', ['--public-address', 'admin.example.net:4000']);
      assert.equal(run.status, 0, run.stderr);
      assert.ok(
        (await sandbox.calls()).includes('portal enroll --listen 0.0.0.0:4000 --public-address admin.example.net:4000'),
      );
    });

    it('refuses tickets that would name a loopback controller, unless --local says every node is here', async () => {
      await install('postgres');
      await writeFile(join(sandbox.dir, 'enrolled'), '127.0.0.1:41234\n');
      const refused = runTickets(sandbox, 'postgres', []);
      assert.equal(refused.status, 2);
      assert.match(
        refused.stderr,
        /^the tickets would name the controller at 127\.0\.0\.1:41234, which only this machine reaches/,
      );
      assert.ok(!existsSync(join(sandbox.dir, 'outlet.ticket')), 'no ticket was issued');
      const local = runTickets(sandbox, 'postgres', ['--local']);
      assert.equal(local.status, 0, local.stderr);
      assert.ok(existsSync(join(sandbox.dir, 'outlet.ticket')));
    });

    it('issues tickets from the controller a machine enrolled with already, without enrolling again', async () => {
      await install('postgres');
      await writeFile(join(sandbox.dir, 'enrolled'), 'ctl.example.net:4000\n');
      const run = runTickets(sandbox, 'postgres', []);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /^Enrolled already: the tickets come from the controller at ctl\.example\.net:4000\.$/m);
      assert.ok(!(await sandbox.calls()).some((call) => call.startsWith('portal enroll')));
    });

    it('names every relay of several portals on the outlet ticket', async () => {
      await install('shop');
      const run = runTickets(sandbox, 'shop', controllerFlags);
      assert.equal(run.status, 0, run.stderr);
      assert.ok(
        (await sandbox.calls()).includes(
          'portal project ticket --expires-in 10h --usage-count 1 --attribute shop-outlet ' +
            '--relay orders-db --relay cache --relay api',
        ),
      );
    });
  });
});
