/**
 * The control plane's controller boot script, as a machine receives it: clean under shellcheck (with the
 * relays' boot script), and run in the sandbox with stand-ins for aws, cfn-signal and systemd, for the
 * command line and files it produces. The relays' run: control-plane-relay-boot.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemdStandIn } from '../support/boot-script.ts';
import {
  awsStandIn,
  bootScript,
  hereDocument,
  mode,
  ownDatabase,
  password,
  rds,
  run,
  sealingKey,
  shellcheck,
  stopUnits,
  values,
  waitForCall,
} from '../support/control-plane-boot.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';
import { createSandbox, type Sandbox } from '../support/sandbox.ts';

describe('control plane boot scripts', () => {
  it('are clean under shellcheck, with the scripts they write (both databases)', () => {
    for (const database of [rds, ownDatabase]) {
      const controller = bootScript('ControllerLaunchTemplate', database);
      assert.equal(shellcheck(controller), '', 'controller boot script');
      assert.equal(shellcheck(hereDocument(controller, 'PORTAL_CONTROLLER_SECRETS')), '', 'portal-controller-secrets');
    }
    const relay = bootScript('RelayLaunchTemplate');
    assert.equal(shellcheck(relay), '', 'relay boot script');
    assert.equal(shellcheck(hereDocument(relay, 'PORTAL_RELAY_START')), '', 'portal-relay-start');
  });
});

describe('control plane controller boot script (sandbox)', () => {
  let sandbox: Sandbox;
  let units: string;

  beforeEach(async () => {
    sandbox = await createSandbox();
    units = join(sandbox.dir, 'units');
    await mkdir(units);
    for (const command of ['dnf', 'amazon-cloudwatch-agent-ctl', 'cfn-signal']) await sandbox.stub(command);
    await sandbox.stub('systemctl', systemdStandIn(units));
    await sandbox.stub('portal');
  });

  afterEach(async () => {
    await stopUnits(units);
    await sandbox.remove();
  });

  /** curl: the RDS authorities (written where -o says), and /healthz answering unless `healthy` is false. */
  const curl = (healthy = true) => `case "$*" in
  *truststore.pki.rds.amazonaws.com*) while [ "$1" != -o ]; do shift; done; echo CA > "$2" ;;
  *127.0.0.1:9460/healthz*) ${healthy ? 'exit 0' : 'exit 7'} ;;
  *) echo "unexpected curl $*" >&2; exit 22 ;;
esac`;

  it('starts the controller on the RDS database, secrets in memory, and signals once /healthz answers', async () => {
    await sandbox.stub('curl', curl());
    const master = join(sandbox.dir, 'master.json');
    await writeFile(master, `{"username": "portal", "password": "${password}"}\n`);
    await sandbox.stub(
      'aws',
      awsStandIn({ [values.ControllerSealingKeySecret]: sealingKey, [rds.DatabaseSecret]: `@${master}` }),
    );
    const result = await run(sandbox, bootScript('ControllerLaunchTemplate'), { PORTAL_BOOT_POLL_SECONDS: '0.01' });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trimEnd().split('\n').at(-1), 'Portal controller setup completed successfully');

    const run_ = join(sandbox.root, 'run/portal');
    const store =
      `postgres://portal@${rds.DatabaseHost}:5432/portal` + '?sslmode=verify-full&sslrootcert=/etc/portal/rds-ca.pem';
    const command =
      `controller start --listen 0.0.0.0:4000 --public-address ${values['ControllerLoadBalancer.DNSName']}:4000 ` +
      `--store ${store} --store-password-file ${run_}/database.password ` +
      `--sealing-key-file ${run_}/controller-seal.key --no-relay --status-listen 0.0.0.0:9460`;
    assert.equal(await waitForCall(sandbox, (call) => call.startsWith('portal controller')), `portal ${command}`);
    const unit = await readFile(join(sandbox.root, 'etc/systemd/system/portal-controller.service'), 'utf8');
    assert.match(
      unit,
      /^ExecStartPre=\/usr\/local\/bin\/portal-controller-secrets$/m,
      'secrets copied before every start',
    );
    assert.ok(
      unit.includes(`\nExecStart=${sandbox.bin}/portal ${command.replaceAll(`${sandbox.root}/`, '/')}\n`),
      unit,
    );
    assert.match(unit, /^StandardOutput=append:\/var\/log\/portal\/controller\.log$/m);

    assert.equal(await readFile(join(run_, 'controller-seal.key'), 'utf8'), `${sealingKey}\n`);
    assert.equal(await readFile(join(run_, 'database.password'), 'utf8'), `${password}\n`);
    for (const file of ['controller-seal.key', 'database.password'])
      assert.equal(await mode(join(run_, file)), 0o600, file);
    assert.equal(await mode(run_), 0o700);
    assert.equal(await readFile(join(sandbox.root, 'etc/portal/rds-ca.pem'), 'utf8'), 'CA\n');
    const calls = await sandbox.calls();
    const everything = [
      ...calls,
      unit,
      await readFile(join(sandbox.root, 'etc/portal/controller.env'), 'utf8'),
      result.stdout,
      result.stderr,
    ].join('\n');
    for (const secret of [password, sealingKey])
      assert.ok(!everything.includes(secret), 'on no command line, unit or log');
    assert.ok(calls.includes('systemctl enable --now portal-controller.service portal-password-watch.service'));
    assert.ok(calls.includes('curl -fsS --max-time 2 -o /dev/null http://127.0.0.1:9460/healthz'));
    assert.equal(
      calls.filter((call) => call.startsWith('cfn-signal')).join('\n'),
      'cfn-signal -e 0 --stack postgres-control-plane --resource ControllerGroup --region us-east-1',
    );
    const agent = JSON.parse(
      await readFile(join(sandbox.root, 'opt/aws/amazon-cloudwatch-agent/etc/portal-controller.json'), 'utf8'),
    ) as { logs: { logs_collected: { files: { collect_list: unknown } } } };
    assert.deepEqual(agent.logs.logs_collected.files.collect_list, [
      {
        file_path: '/var/log/portal/controller.log',
        log_group_name: 'postgres-control-plane-logs',
        log_stream_name: 'controller-{instance_id}',
      },
    ]);
  });

  it("takes a database of yours from its secret's url and password; refuses a URL that holds a password", async () => {
    await sandbox.stub('curl', curl());
    const secret = join(sandbox.dir, 'database.json');
    const url = 'postgres://portal@db.example.net:5432/portal?sslmode=verify-full&sslrootcert=system';
    await writeFile(secret, JSON.stringify({ url, password }));
    await sandbox.stub(
      'aws',
      awsStandIn({ [values.ControllerSealingKeySecret]: sealingKey, [ownDatabase.DatabaseSecret]: `@${secret}` }),
    );
    const script = bootScript('ControllerLaunchTemplate', ownDatabase);
    const good = await run(sandbox, script, { PORTAL_BOOT_POLL_SECONDS: '0.01' });
    assert.equal(good.code, 0, good.stderr);
    assert.match(
      await waitForCall(sandbox, (call) => call.startsWith('portal controller')),
      new RegExp(` --store ${url.replace(/[?.]/g, '\\$&')} `),
    );

    await stopUnits(units);
    await writeFile(secret, JSON.stringify({ url: 'postgres://portal:hunter2@db.example.net/portal', password }));
    const refused = await run(sandbox, script, { PORTAL_BOOT_POLL_SECONDS: '0.01' });
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^portal-boot: error: the URL in \S+ holds a password: keep it under the key password only$/m,
    );
    await writeFile(secret, JSON.stringify({ password }));
    const missing = await run(sandbox, script, { PORTAL_BOOT_POLL_SECONDS: '0.01' });
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /^portal-boot: error: no key url in arn:\S+my-database-AbCdEf \(see the control plane guide\)$/m,
    );
    const signals = (await sandbox.calls())
      .filter((call) => call.startsWith('cfn-signal'))
      .map((call) => call.split(' ')[2]);
    assert.deepEqual(signals, ['0', '1', '1']);
  });

  it('tells the stack of a failure: a controller that never answers /healthz, a key it cannot read', async () => {
    await sandbox.stub('curl', curl(false));
    const master = join(sandbox.dir, 'master.json');
    await writeFile(master, `{"username": "portal", "password": "${password}"}`);
    await sandbox.stub(
      'aws',
      awsStandIn({ [values.ControllerSealingKeySecret]: sealingKey, [rds.DatabaseSecret]: `@${master}` }),
    );
    const silent = await run(sandbox, bootScript('ControllerLaunchTemplate'), {
      PORTAL_BOOT_POLL_SECONDS: '0.01',
      PORTAL_BOOT_POLL_ATTEMPTS: '5',
    });
    assert.equal(silent.code, 1);
    assert.match(
      silent.stderr,
      joinedRegExp(
        /portal-boot: error: no answer from http:\/\/127\.0\.0\.1:9460\/healthz after 5 checks; /,
        /see \/var\/log\/portal\/controller\.log/,
      ),
    );
    await stopUnits(units);
    await sandbox.stub('aws', awsStandIn({ [rds.DatabaseSecret]: `@${master}` }));
    const keyless = await run(sandbox, bootScript('ControllerLaunchTemplate'));
    assert.equal(keyless.code, 1);
    assert.match(
      keyless.stderr,
      /^cannot read the sealing key from arn:\S+controller-seal-AbCdEf; check the machine role$/m,
    );
    const calls = await sandbox.calls();
    assert.deepEqual(
      calls.filter((call) => call.startsWith('cfn-signal')).map((call) => call.split(' ')[2]),
      ['1', '1'],
    );
  });

  it('copies the database password again when it changes in the secret (RDS rotates it), with no restart', async () => {
    await sandbox.stub('curl', curl());
    const master = join(sandbox.dir, 'master.json');
    await writeFile(master, `{"username": "portal", "password": "${password}"}`);
    await sandbox.stub(
      'aws',
      awsStandIn({ [values.ControllerSealingKeySecret]: sealingKey, [rds.DatabaseSecret]: `@${master}` }),
    );
    assert.equal(
      (await run(sandbox, bootScript('ControllerLaunchTemplate'), { PORTAL_BOOT_POLL_SECONDS: '0.01' })).code,
      0,
    );
    await stopUnits(units);
    const environment = Object.fromEntries(
      (await readFile(join(sandbox.root, 'etc/portal/controller.env'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => line.split(/=(.*)/).slice(0, 2) as [string, string])
        .map(([name, value]) => [name, value.startsWith('/run/') ? `${sandbox.root}${value}` : value]),
    );
    const watch = spawnSync(
      'bash',
      [
        '-c',
        // The watch runs until the rotation is seen (or 20 s pass): no fixed sleep for a loaded machine.
        `"$0" watch > "$1" & echo '{"password": "rotated"}' > '${master}'; ` +
          'for _ in $(seq 200); do grep -q changed "$1" && break; sleep 0.1; done; kill $!; cat "$1"',
        join(sandbox.root, 'usr/local/bin/portal-controller-secrets'),
        join(sandbox.dir, 'watch.log'),
      ],
      {
        env: { ...environment, PATH: `${sandbox.bin}:${sandbox.system}`, PASSWORD_CHECK_SECONDS: '0.05' },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    assert.match(watch.stdout, /the database password in \S+ changed: the controller takes it at its next connection/);
    assert.equal((await sandbox.calls()).includes('systemctl try-restart portal-controller.service'), false);
    assert.equal(
      await readFile(join(sandbox.root, 'run/portal/database.password'), 'utf8'),
      'rotated\n',
      'the watch copies the new one where the controller reads it',
    );
  });
});
