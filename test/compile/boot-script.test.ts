import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  bootScriptOfStack,
  fileSystemHost,
  installUrl,
  renderedBootScript,
  sealingKeyMaterial,
  sealingKeySecret,
  secretsStandIn,
  stubNameLookups,
  ticket,
  ticketSecret,
} from '../support/boot-script.ts';
import type { NodeConfig } from '../../src/shared/types/node-config.ts';
import { createSandbox, type Sandbox } from '../support/sandbox.ts';
import { allUseCases, loadManifest } from '../support/usecases.ts';
import { stackInletConfig } from '../../src/compile/node-config.ts';
import { resolveUseCase } from '../../src/compile/model.ts';
import { compileUseCase } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';

function parsedManifest(lines: readonly string[]): UseCaseManifest {
  const result = manifestProblems('m.yaml', `${lines.join('\n')}\n`);
  assert.deepEqual(result.problems, []);
  return result.manifest as UseCaseManifest;
}
import { endpointParameterValues } from './resolved-use-cases.ts';

interface BootRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the script in the sandbox; name lookups fail `failedLookups` times before they succeed. */
async function boot(
  sandbox: Sandbox,
  script: string,
  failedLookups: number,
  options: { portalOnPath?: boolean; aws?: string; curl?: string } = {},
): Promise<BootRun> {
  await stubNameLookups(sandbox, failedLookups);
  for (const command of ['mount', 'dnf', 'systemctl', 'amazon-cloudwatch-agent-ctl', 'cfn-signal'])
    await sandbox.stub(command);
  await sandbox.stub('aws', options.aws ?? secretsStandIn());
  if (options.portalOnPath ?? true) {
    await sandbox.stub('curl', options.curl ?? 'echo "curl must not be needed: portal is installed" >&2; exit 7');
    await sandbox.stub('portal', '[ "$1 $2" = "node show" ] && echo "The node is UP" && echo "home=$PORTAL_HOME"');
  }
  const path = join(sandbox.dir, 'boot.sh');
  await writeFile(path, script);
  const result = spawnSync('bash', [path], {
    env: {
      PATH: `${sandbox.bin}:${sandbox.system}`,
      PORTAL_BOOT_ROOT: sandbox.root,
      PORTAL_BOOT_RETRY_SECONDS: '0.01',
      PORTAL_BOOT_POLL_SECONDS: '0.01',
    },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('stack boot script (sandbox)', () => {
  let sandbox: Sandbox;

  beforeEach(async () => {
    sandbox = await createSandbox();
  });

  afterEach(async () => {
    await sandbox.remove();
  });

  for (const usecase of allUseCases) {
    for (const role of ['outlet', 'inlet'] as const) {
      it(`${usecase} ${role}: is valid bash after substitution`, () => {
        const script = renderedBootScript(usecase, role, endpointParameterValues);
        const result = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
        assert.equal(result.status, 0, result.stderr);
        assert.ok(!script.includes(ticket), 'the ticket is not in user data: the machine reads it from the secret');
      });
    }
  }

  it('waits for the file system name, mounts it as the state directory and starts the node', async () => {
    const run = await boot(
      sandbox,
      renderedBootScript('postgres', 'outlet', { PostgresEndpoint: 'db.internal.example' }),
      3,
    );
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    assert.equal(lines.at(-1), 'Portal node setup completed successfully');
    const retries = lines.filter((line) => line.includes('does not resolve yet'));
    assert.deepEqual(
      retries,
      [1, 2, 3].map(
        (n) => `portal-boot: ${fileSystemHost} does not resolve yet (attempt ${n} of 20); retrying in 0.01 s`,
      ),
    );

    const calls = await sandbox.calls();
    assert.equal(calls.filter((call) => call === `getent hosts ${fileSystemHost}`).length, 4);
    const stateDirectory = join(sandbox.root, 'var/lib/portal');
    assert.ok(
      calls.includes(
        'mount -t nfs4 -o nfsvers=4.1,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport ' +
          `${fileSystemHost}:/ ${stateDirectory}`,
      ),
      calls.join('\n'),
    );
    assert.ok(
      calls.indexOf(`getent hosts ${fileSystemHost}`) < calls.findIndex((call) => call.startsWith('mount ')),
      'mounts only after the name resolves',
    );
    assert.ok(calls.includes('systemctl enable --now portal-node.service portal-status.service'));
    assert.ok(
      calls.includes(
        `aws secretsmanager get-secret-value --secret-id ${ticketSecret} --region us-east-1 --query SecretString ` +
          '--output text',
      ),
    );
    assert.equal(
      calls.at(-1),
      'cfn-signal -e 0 --stack postgres-outlet --resource NodeAutoScalingGroup --region us-east-1',
      'the stack hears of success',
    );
    assert.ok(!calls.some((call) => call.startsWith('curl')), 'no installer when portal is present');
    assert.match(
      await readFile(join(sandbox.root, 'etc/fstab'), 'utf8'),
      new RegExp(`^${fileSystemHost}:/ /var/lib/portal nfs4 .*_netdev 0 0$`, 'm'),
    );
    assert.equal((await stat(stateDirectory)).mode & 0o777, 0o700);
  });

  it('substitutes the endpoint placeholder into the node configuration, kept private', async () => {
    const run = await boot(
      sandbox,
      renderedBootScript('postgres', 'outlet', { PostgresEndpoint: 'db.internal.example' }),
      0,
    );
    assert.equal(run.code, 0, run.stderr);
    const configPath = join(sandbox.root, 'etc/portal/node.json');
    const config = JSON.parse(await readFile(configPath, 'utf8')) as NodeConfig;
    assert.deepEqual(config, {
      'http-server-port': 23345,
      relay: 'postgres',
      'tcp-outlet': { allow: 'postgres-inlet', to: 'db.internal.example:5432' },
    });
    assert.equal((await stat(configPath)).mode & 0o777, 0o600);
    const environment = await readFile(join(sandbox.root, 'etc/portal/node.env'), 'utf8');
    assert.match(environment, new RegExp(`^ENROLLMENT_TICKET='${ticket}'$`, 'm'));
    assert.match(environment, /^PORTAL_HOME=\/var\/lib\/portal$/m);
    assert.equal(
      (await stat(join(sandbox.root, 'etc/portal/node.env'))).mode & 0o777,
      0o600,
      'the ticket is readable by root only',
    );
    const unit = await readFile(join(sandbox.root, 'etc/systemd/system/portal-node.service'), 'utf8');
    assert.match(
      unit,
      new RegExp(
        `^ExecStart=${sandbox.bin}/portal node create --foreground --configuration /etc/portal/node.json$`,
        'm',
      ),
    );
    assert.match(unit, /^EnvironmentFile=\/etc\/portal\/node\.env$/m);
    // systemctl reload portal-node: the node reads /etc/portal/node.json again (PORTAL_HOME from node.env).
    assert.match(unit, new RegExp(`^ExecReload=${sandbox.bin}/portal node reload$`, 'm'));
  });

  it(
    "copies the sealing key from the stack's secret to the machine's memory, never to the file system, " +
      'at every start of the node',
    async () => {
      const run = await boot(sandbox, renderedBootScript('webhook', 'outlet'), 0);
      assert.equal(run.code, 0, run.stderr);
      const keyFile = join(sandbox.root, 'run/portal/seal.key');
      assert.equal(await readFile(keyFile, 'utf8'), `${sealingKeyMaterial}\n`);
      assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
      assert.equal((await stat(join(sandbox.root, 'run/portal'))).mode & 0o777, 0o700);
      const calls = await sandbox.calls();
      assert.ok(
        calls.includes(
          `aws secretsmanager get-secret-value --secret-id ${sealingKeySecret} --region us-east-1 --query ` +
            'SecretString --output text',
        ),
      );
      assert.ok(!calls.some((call) => call.includes(sealingKeyMaterial)), 'the key is on no command line');
      const environment = await readFile(join(sandbox.root, 'etc/portal/node.env'), 'utf8');
      assert.match(environment, /^PORTAL_SEALING_KEY_FILE=\/run\/portal\/seal\.key$/m);
      assert.ok(!environment.includes(sealingKeyMaterial));
      const unit = await readFile(join(sandbox.root, 'etc/systemd/system/portal-node.service'), 'utf8');
      assert.match(
        unit,
        /^ExecStartPre=\/usr\/local\/bin\/portal-sealing-key$/m,
        'a reboot empties /run: each start fetches the key again',
      );
      assert.match(run.stdout, /^portal-boot: reading the sealing key into \/run\/portal\/seal\.key$/m);
    },
  );

  it('stops and tells the stack when the machine cannot read the sealing key', async () => {
    const aws = secretsStandIn().replace(`'${sealingKeySecret}')`, "'another-secret')");
    const failed = await boot(sandbox, renderedBootScript('webhook', 'outlet'), 0, { aws });
    assert.equal(failed.code, 1);
    assert.match(
      failed.stderr,
      new RegExp(
        'portal-boot: error: cannot read the sealing key from ' +
          `${sealingKeySecret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; check the machine role`,
      ),
    );
    assert.equal(
      (await sandbox.calls()).at(-1),
      'cfn-signal -e 1 --stack webhook-outlet --resource NodeAutoScalingGroup --region us-east-1',
    );
  });

  it('fills in the warehouse endpoint (host:port) and the runtime private endpoint name', async () => {
    const warehouse = await boot(
      sandbox,
      renderedBootScript('warehouse', 'outlet', { RedshiftEndpoint: 'wh.internal.example:5439' }),
      0,
    );
    assert.equal(warehouse.code, 0, warehouse.stderr);
    const warehouseConfig = JSON.parse(
      await readFile(join(sandbox.root, 'etc/portal/node.json'), 'utf8'),
    ) as NodeConfig;
    assert.equal(warehouseConfig['tcp-outlet']?.to, 'wh.internal.example:5439');

    const bedrock = await boot(sandbox, renderedBootScript('bedrock', 'outlet'), 0);
    assert.equal(bedrock.code, 0, bedrock.stderr);
    const bedrockConfig = JSON.parse(await readFile(join(sandbox.root, 'etc/portal/node.json'), 'utf8')) as NodeConfig;
    assert.deepEqual(bedrockConfig['tcp-outlet'], {
      allow: 'bedrock-inlet',
      tls: true,
      to: 'bedrock-runtime.us-east-1.amazonaws.com:443',
    });
  });

  it("writes the inlet stack's configuration unchanged", async () => {
    const run = await boot(sandbox, renderedBootScript('webhook', 'inlet'), 0);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      JSON.parse(await readFile(join(sandbox.root, 'etc/portal/node.json'), 'utf8')),
      JSON.parse(JSON.stringify(stackInletConfig(resolveUseCase(loadManifest('webhook'))))),
    );
  });

  it('ships the status log to <stack>-status-logs, one stream per instance', async () => {
    const run = await boot(sandbox, renderedBootScript('webhook', 'outlet'), 0);
    assert.equal(run.code, 0, run.stderr);
    const agentConfig = JSON.parse(
      await readFile(join(sandbox.root, 'opt/aws/amazon-cloudwatch-agent/etc/portal-status.json'), 'utf8'),
    ) as { logs: { logs_collected: { files: { collect_list: unknown } } } };
    assert.deepEqual(agentConfig.logs.logs_collected.files.collect_list, [
      {
        file_path: '/var/log/portal/status.log',
        log_group_name: 'webhook-outlet-status-logs',
        log_stream_name: '{instance_id}',
      },
    ]);
    const calls = await sandbox.calls();
    assert.ok(
      calls.includes(
        'amazon-cloudwatch-agent-ctl -a fetch-config -m ec2 -s -c ' +
          'file:/opt/aws/amazon-cloudwatch-agent/etc/portal-status.json',
      ),
    );
  });

  it('writes a status line per interval: UP while the node answers, DOWN when it does not', async () => {
    const run = await boot(sandbox, renderedBootScript('webhook', 'outlet'), 0);
    assert.equal(run.code, 0, run.stderr);
    const statusLog = join(sandbox.dir, 'status.log');
    const downMarker = join(sandbox.dir, 'node-is-down');
    await sandbox.stub('portal', `[ -e '${downMarker}' ] && exit 1; echo "The node is UP"; echo details`);
    const loop = spawn('bash', [join(sandbox.root, 'usr/local/bin/portal-status-loop')], {
      env: {
        PATH: `${sandbox.bin}:${sandbox.system}`,
        PORTAL_BIN: join(sandbox.bin, 'portal'),
        STATUS_LOG: statusLog,
        STATUS_INTERVAL: '0.02',
      },
      stdio: 'ignore',
    });
    try {
      await waitForLines(statusLog, (lines) => lines.length >= 2);
      await writeFile(downMarker, '');
      const lines = await waitForLines(statusLog, (all) => all.at(-1)?.endsWith('The node is DOWN') ?? false);
      assert.match(lines[0] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ The node is UP$/);
      assert.ok(
        lines.every((line) => /Z The node is (UP|DOWN)$/.test(line)),
        lines.join('\n'),
      );
    } finally {
      loop.kill();
    }
  });

  it('gives up after 10 minutes of retries when the name never resolves, and says what to check', async () => {
    const run = await boot(sandbox, renderedBootScript('webhook', 'outlet'), 1000);
    assert.equal(run.code, 1);
    assert.equal(run.stdout.split('\n').filter((line) => line.includes('does not resolve yet')).length, 19);
    assert.match(
      run.stderr,
      new RegExp(
        `portal-boot: error: ${fileSystemHost} did not resolve after 20 attempts; ` +
          'check that the VPC has DNS resolution and DNS host names enabled',
      ),
    );
    assert.ok(!run.stdout.includes('Portal node setup completed successfully'));
    const calls = await sandbox.calls();
    assert.ok(!calls.some((call) => call.startsWith('mount') || call.startsWith('systemctl')));
    assert.equal(
      calls.at(-1),
      'cfn-signal -e 1 --stack webhook-outlet --resource NodeAutoScalingGroup --region us-east-1',
      'the stack hears of the failure',
    );
  });

  it('installs portal from the InstallUrl parameter when the image has none', async () => {
    // The installer stand-in does what install.sh does: portal under $HOME/.portal/bin.
    const installer = join(sandbox.dir, 'install.sh');
    await writeFile(
      installer,
      [
        'mkdir -p "$HOME/.portal/bin"',
        'cat > "$HOME/.portal/bin/portal" <<\'PORTAL\'',
        '#!/bin/bash',
        '[ "$1 $2" = "node show" ] && echo "The node is UP"',
        'PORTAL',
        'chmod 755 "$HOME/.portal/bin/portal"',
        '',
      ].join('\n'),
    );
    await sandbox.stub('curl', `cat '${installer}'`);
    const run = await boot(sandbox, renderedBootScript('webhook', 'inlet'), 0, { portalOnPath: false });
    assert.equal(run.code, 0, run.stderr);
    const calls = await sandbox.calls();
    assert.ok(calls.includes(`curl --proto =https --tlsv1.2 -sSfL ${installUrl}`));
    assert.ok(
      calls.indexOf('dnf install -y nodejs24') < calls.findIndex((call) => call.startsWith('curl')),
      'Node.js is installed before portal',
    );
    const unit = await readFile(join(sandbox.root, 'etc/systemd/system/portal-node.service'), 'utf8');
    assert.match(
      unit,
      /^ExecStart=\/root\/\.portal\/bin\/portal node create --foreground --configuration \/etc\/portal\/node\.json$/m,
    );
    assert.match(run.stdout, /Portal node setup completed successfully\n$/);
  });

  it('stops with a clear error when the installer installs nothing', async () => {
    await sandbox.stub('curl', 'echo "echo installer did nothing"');
    const run = await boot(sandbox, renderedBootScript('webhook', 'inlet'), 0, { portalOnPath: false });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      new RegExp(
        `portal-boot: error: the installer from ${installUrl.replace(/\./g, '\\.')} did not install ` +
          `/root/\\.portal/bin/portal; check the InstallUrl parameter`,
      ),
    );
  });
  describe('a replica of an outlet pool (outlet.replicas: 3)', () => {
    const stackText = compileUseCase(
      parsedManifest([
        'usecase: db',
        'title: A database',
        'outlet: { to: db.internal:5432, replicas: 3 }',
        'inlet: { port: 15432 }',
      ]),
    ).find((artifact) => artifact.path === 'outlet.stack.yaml')?.content;
    /** The instance metadata service as a machine sees it (IMDSv2: a token first). */
    const metadata = `case "$*" in
  *'-X PUT http://169.254.169.254/latest/api/token'*) echo imds-token ;;
  *'X-aws-ec2-metadata-token: imds-token'*'/meta-data/instance-id') echo i-0123456789abcdef0 ;;
  *) echo "unexpected curl $*" >&2; exit 22 ;;
esac`;
    /** The API as a machine of replica `tag`'s group sees it, its tag there from the `tagged`-th call on. */
    const api = (tag: string, tagged = 1) => `${secretsStandIn()}
if [ "$1 $2" = "ec2 describe-tags" ]; then
  calls=$(($(cat "$0.count" 2>/dev/null || echo 0) + 1)); echo "$calls" > "$0.count"
  case "$*" in
    *'Name=resource-id,Values=i-0123456789abcdef0 Name=key,Values=PortalReplica'*)
      if [ "$calls" -ge ${tagged} ]; then echo '${tag}'; else echo None; fi ;;
    *) echo "unexpected aws $*" >&2; exit 254 ;;
  esac
fi`;

    it('takes its home on the file system and the group it signals from its replica tag', async () => {
      const script = bootScriptOfStack(stackText ?? '', 'db-outlet');
      const run = await boot(sandbox, script, 0, { curl: metadata, aws: api('2', 3) });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^portal-boot: outlet replica 2 of the pool$/m);
      const env = await readFile(join(sandbox.root, 'etc/portal/node.env'), 'utf8');
      assert.match(env, /^PORTAL_HOME=\/var\/lib\/portal\/replica-2$/m);
      assert.equal((await stat(join(sandbox.root, 'var/lib/portal/replica-2'))).mode & 0o777, 0o700);
      const calls = await sandbox.calls();
      assert.equal(calls.filter((call) => call.startsWith('aws ec2 describe-tags')).length, 3, 'waits for the tag');
      assert.equal(
        calls.at(-1),
        'cfn-signal -e 0 --stack db-outlet --resource NodeAutoScalingGroup2 --region us-east-1',
      );
    });

    it("keeps replica 1 in a single node's home, so that an outlet made into a pool keeps its identity", async () => {
      const run = await boot(sandbox, bootScriptOfStack(stackText ?? '', 'db-outlet'), 0, {
        curl: metadata,
        aws: api('1'),
      });
      assert.equal(run.code, 0, run.stderr);
      const env = await readFile(join(sandbox.root, 'etc/portal/node.env'), 'utf8');
      assert.match(env, /^PORTAL_HOME=\/var\/lib\/portal$/m);
      assert.equal(
        (await sandbox.calls()).at(-1),
        'cfn-signal -e 0 --stack db-outlet --resource NodeAutoScalingGroup --region us-east-1',
      );
    });

    it('stops with a clear error on a tag that is not a replica number', async () => {
      const run = await boot(sandbox, bootScriptOfStack(stackText ?? '', 'db-outlet'), 0, {
        curl: metadata,
        aws: api('2;x'),
      });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^portal-boot: error: the PortalReplica tag is not a replica number: 2;x$/m);
      assert.ok(!(await sandbox.calls()).some((call) => call.startsWith('systemctl')), 'no node starts');
    });
  });
});

/** Polls a file the loop appends to until `done` holds for its lines (bounded: 10 s). */
async function waitForLines(path: string, done: (lines: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = (await readFile(path, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    if (done(lines)) return lines;
    if (Date.now() > deadline) throw new Error(`timed out waiting on ${path}: ${lines.join(' | ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
