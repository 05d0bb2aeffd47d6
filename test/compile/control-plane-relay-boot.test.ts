/**
 * The control plane's relay boot script, run in the sandbox with stand-ins for the instance metadata, aws,
 * cfn-signal and systemd: the relay it starts, its wait for the ticket, and a replaced machine.
 */
import assert from 'node:assert/strict';
import { lstat, mkdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stubNameLookups, systemdStandIn } from '../support/boot-script.ts';
import {
  awsStandIn,
  bootScript,
  mode,
  publicAddress,
  relayKey,
  run,
  stopUnits,
  ticket,
  values,
  waitForCall,
} from '../support/control-plane-boot.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';
import { createSandbox, type Sandbox } from '../support/sandbox.ts';

describe('control plane relay boot script (sandbox)', () => {
  let sandbox: Sandbox;
  let units: string;
  let ticketReads: string;

  beforeEach(async () => {
    sandbox = await createSandbox();
    units = join(sandbox.dir, 'units');
    ticketReads = join(sandbox.dir, 'ticket-reads');
    await mkdir(units);
    for (const command of ['dnf', 'mount', 'amazon-cloudwatch-agent-ctl', 'cfn-signal']) await sandbox.stub(command);
    await sandbox.stub('systemctl', systemdStandIn(units));
    await sandbox.stub('portal');
    await stubNameLookups(sandbox, 1);
    await sandbox.stub(
      'curl',
      `case "$*" in
  *'-X PUT http://169.254.169.254/latest/api/token'*) echo imds-token ;;
  *'X-aws-ec2-metadata-token: imds-token'*/meta-data/instance-id) echo i-0123456789abcdef0 ;;
  *'X-aws-ec2-metadata-token: imds-token'*/meta-data/public-ipv4) echo ${publicAddress} ;;
  *) echo "unexpected curl $*" >&2; exit 22 ;;
esac`,
    );
  });

  afterEach(async () => {
    await stopUnits(units);
    await sandbox.remove();
  });

  /** aws: relay 2's tag, the relays' key, and the ticket secret holding a sentence for `waits` reads. */
  const aws = (waits: number) => {
    const placeholder = 'no relay ticket yet: store one with aws secretsmanager put-secret-value';
    return awsStandIn(
      { [values.RelaySealingKeySecret]: relayKey },
      `if [ "$1 $2" = "ec2 describe-tags" ]; then echo 2; exit 0; fi
if [ "$4" = '${values.RelayTicketSecret}' ]; then
  n=$(($(cat '${ticketReads}' 2>/dev/null || echo 0) + 1)); echo "$n" > '${ticketReads}'
  if [ "$n" -le ${waits} ]; then echo '${placeholder}'; else echo '${ticket}'; fi
  exit 0
fi`,
    );
  };

  it('waits for the ticket, then enrolls relay 2 on its public address, identity on EFS, key in memory', async () => {
    await sandbox.stub('aws', aws(3));
    const result = await run(sandbox, bootScript('RelayLaunchTemplate'), {
      PORTAL_BOOT_RETRY_SECONDS: '0.01',
      PORTAL_BOOT_TICKET_SECONDS: '0.01',
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      joinedRegExp(
        /^portal-boot: relay 2 of 2, its home \/var\/lib\/portal\/relay-2 /m,
        /on fs-0123456789abcdef0\.efs\.us-east-1\.amazonaws\.com$/m,
      ),
    );
    assert.equal(result.stdout.trimEnd().split('\n').at(-1), 'Portal relay setup completed successfully');
    const home = join(sandbox.root, 'var/lib/portal/relay-2');
    const run_ = join(sandbox.root, 'run/portal');
    const started = await waitForCall(sandbox, (call) => call.startsWith('portal relay'));
    assert.equal(
      started,
      `portal relay start --listen 0.0.0.0:4100 --public-address ${publicAddress}:4100 ` +
        '--status-listen 127.0.0.1:9470 ' +
        `--enrollment-ticket-file ${run_}/relay.ticket`,
    );
    const log = await readFile(join(units, 'portal-relay.service.log'), 'utf8');
    assert.deepEqual(
      log.split('\n').filter((line) => line.includes('waiting for a relay ticket')),
      [1, 2, 3].map(
        (n) =>
          `portal-relay: waiting for a relay ticket in ${values.RelayTicketSecret} (check ${n} of 60, every 0.01 s)`,
      ),
    );
    assert.match(log, /^portal-relay: enrolling with the relay ticket from arn:\S+relay-ticket-AbCdEf$/m);
    assert.equal(await readFile(join(run_, 'relay.ticket'), 'utf8'), `${ticket}\n`);
    assert.equal(await mode(join(run_, 'relay.ticket')), 0o600);
    assert.equal(await readFile(join(run_, 'relay-keys/relay-seal.key'), 'utf8'), `${relayKey}\n`);
    assert.equal(await mode(join(run_, 'relay-keys/relay-seal.key')), 0o600);
    assert.ok((await lstat(join(home, 'keys'))).isSymbolicLink(), 'the key is behind a link into memory');
    assert.equal(await readlink(join(home, 'keys')), join(run_, 'relay-keys'));
    assert.equal(await mode(home), 0o700);
    const env = await readFile(join(sandbox.root, 'etc/portal/relay.env'), 'utf8');
    assert.match(env, /^PORTAL_HOME=\/var\/lib\/portal\/relay-2$/m);
    const calls = await sandbox.calls();
    assert.ok(
      calls.includes(
        'mount -t nfs4 -o nfsvers=4.1,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport ' +
          `fs-0123456789abcdef0.efs.us-east-1.amazonaws.com:/ ${sandbox.root}/var/lib/portal`,
      ),
    );
    assert.ok(!calls.some((call) => call.includes(relayKey) || call.includes(ticket)), 'no secret on a command line');
    assert.deepEqual(
      calls.filter((call) => call.startsWith('cfn-signal')),
      ['cfn-signal -e 0 --stack postgres-control-plane --resource RelayGroup2 --region us-east-1'],
    );
  });

  it('starts a replaced machine as the same relay, with no ticket, from the identity on the file system', async () => {
    await sandbox.stub('aws', aws(1_000));
    await mkdir(join(sandbox.root, 'var/lib/portal/relay-2/relay'), { recursive: true });
    await writeFile(join(sandbox.root, 'var/lib/portal/relay-2/relay/identity.json'), '{}\n');
    const result = await run(sandbox, bootScript('RelayLaunchTemplate'), { PORTAL_BOOT_RETRY_SECONDS: '0.01' });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!result.stdout.includes('enrolls once a relay ticket'));
    assert.equal(
      await waitForCall(sandbox, (call) => call.startsWith('portal relay')),
      `portal relay start --listen 0.0.0.0:4100 --public-address ${publicAddress}:4100 --status-listen 127.0.0.1:9470`,
    );
    assert.ok(
      !(await sandbox.calls()).some((call) => call.includes(values.RelayTicketSecret)),
      'the ticket is not read',
    );
  });

  it('stops waiting for a ticket after 60 checks with a clear line, for systemd to start it over', async () => {
    await sandbox.stub('aws', aws(1_000));
    const result = await run(sandbox, bootScript('RelayLaunchTemplate'), {
      PORTAL_BOOT_RETRY_SECONDS: '0.01',
      PORTAL_BOOT_TICKET_SECONDS: '0.001',
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /relay 2 enrolls once a relay ticket is in \S+; until then its log says waiting for a relay ticket/,
    );
    const log = join(units, 'portal-relay.service.log');
    const deadline = Date.now() + 10_000;
    while (!(await readFile(log, 'utf8').catch(() => '')).includes('starting over') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    assert.equal(lines.filter((line) => line.includes('waiting for a relay ticket')).length, 59);
    assert.equal(
      lines.at(-1),
      `portal-relay: no relay ticket in ${values.RelayTicketSecret} after 60 checks; starting over`,
    );
    assert.ok(!(await sandbox.calls()).some((call) => call.startsWith('portal ')), 'no relay starts without a ticket');
    const unit = await readFile(join(sandbox.root, 'etc/systemd/system/portal-relay.service'), 'utf8');
    assert.match(unit, /^Restart=always\nRestartSec=30$/m);
  });
});
