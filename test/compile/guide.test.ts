import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createSandbox } from '../support/sandbox.ts';
import { parseKubernetesFile, type KubernetesObjectLike } from '../support/k8s-api-check.ts';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { parseCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import type { NodeShowRunning } from '../../src/node/show.ts';
import { allUseCases, artifactText, containerUseCases, loadManifest, projectRoot } from '../support/usecases.ts';
import { compileUseCase } from '../../src/compile/compile.ts';

interface AlarmProperties {
  Namespace: string;
  MetricName: string;
  Statistic: string;
  Period: number;
  EvaluationPeriods: number;
  DatapointsToAlarm: number;
  Threshold: number;
  ComparisonOperator: string;
  TreatMissingData: string;
}

/** An `aws` that answers describe-stacks with ids made of the stack's name, and records every call. */
const awsStub = `if [ "$1 $2" = "cloudformation describe-stacks" ]; then
  case "$6" in
    *StateFileSystemId*) echo "fs-of-$4" ;;
    *SealingKeySecretArn*) echo "arn:secret:sealing-key-of-$4" ;;
  esac
fi`;

/** The calls that remove one stack and what it keeps, with awsStub's ids. */
const removals = (stack: string) => [
  `aws cloudformation describe-stacks --stack-name ${stack} --query ` +
    `Stacks[0].Outputs[?OutputKey=='StateFileSystemId'].OutputValue --output text`,
  `aws cloudformation describe-stacks --stack-name ${stack} --query ` +
    `Stacks[0].Outputs[?OutputKey=='SealingKeySecretArn'].OutputValue --output text`,
  `aws cloudformation delete-stack --stack-name ${stack}`,
  `aws cloudformation wait stack-delete-complete --stack-name ${stack}`,
  `aws efs delete-file-system --file-system-id fs-of-${stack}`,
  `aws secretsmanager delete-secret --secret-id arn:secret:sealing-key-of-${stack} --recovery-window-in-days 7`,
  `aws logs delete-log-group --log-group-name ${stack}-status-logs`,
];

describe('the compiled guide (README.md)', () => {
  for (const usecase of allUseCases) {
    it(`${usecase}: explains the node-down alarm with the stack's own metric, period, threshold and minutes`, () => {
      const guide = artifactText(usecase, 'README.md');
      for (const role of ['outlet', 'inlet']) {
        const stack = parseCfnYaml(artifactText(usecase, `${role}.stack.yaml`)) as {
          Resources: { NodeDownAlarm: { Properties: AlarmProperties } };
        };
        const alarm = stack.Resources.NodeDownAlarm.Properties;
        assert.equal(alarm.ComparisonOperator, 'LessThanThreshold');
        assert.equal(alarm.DatapointsToAlarm, alarm.EvaluationPeriods, 'red only when every minute of the window is');
        assert.ok(
          guide.includes(`| Metric | \`${alarm.Namespace}/${alarm.MetricName}\`, dimension \`StackName=<stack_name>\``),
          `${role}: the metric`,
        );
        assert.ok(
          guide.includes(`| Statistic | ${alarm.Statistic} over ${alarm.Period} seconds |`),
          `${role}: statistic and period`,
        );
        assert.ok(
          guide.includes(`at least ${alarm.Threshold} such line, within the last ${alarm.EvaluationPeriods} minutes`),
          `${role}: what turns it green`,
        );
        assert.ok(
          guide.includes(
            `none in ${alarm.EvaluationPeriods} consecutive minutes (each minute's sum below ${alarm.Threshold})`,
          ),
          `${role}: what turns it red`,
        );
        assert.equal(alarm.TreatMissingData, 'breaching');
        assert.ok(guide.includes('a minute with no data counts as red'));
      }
      assert.ok(guide.includes('aws cloudwatch describe-alarms --alarm-names <stack_name>-NodeDownAlarm'));
    });
  }

  for (const usecase of containerUseCases) {
    it(`${usecase}: names the image the compose file runs and how to build it`, () => {
      const image = (parse(artifactText(usecase, 'inlet.compose.yaml')) as { services: { node: { image: string } } })
        .services.node.image;
      const guide = artifactText(usecase, 'README.md').replace(/\s+/g, ' ');
      assert.ok(guide.includes(`The compose files run the image \`${image}\``), guide);
      assert.ok(guide.includes('`docker build -t portal-node .`'));
    });
  }

  it('removes what each stack keeps with the commands it gives, for each stack by name', async () => {
    const guide = artifactText('postgres', 'README.md');
    const section = guide.slice(guide.indexOf('#### What a deleted stack keeps'));
    const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    assert.ok(script, 'the section has its commands');
    const kept = Object.entries(
      (
        parseCfnYaml(artifactText('postgres', 'inlet.stack.yaml')) as {
          Resources: Record<string, { Type: string; DeletionPolicy?: string }>;
        }
      ).Resources,
    )
      .filter(([, resource]) => resource.DeletionPolicy === 'Retain')
      .map(([, resource]) => resource.Type);
    const sandbox = await createSandbox();
    try {
      await sandbox.stub('aws', awsStub);
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
        env: { PATH: `${sandbox.bin}:${sandbox.system}` },
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(await sandbox.calls(), [...removals('postgres-inlet'), ...removals('postgres-outlet')]);
      // One removal command per kind of resource the stack keeps.
      const removes: Record<string, string> = {
        'AWS::EFS::FileSystem': 'aws efs delete-file-system',
        'AWS::Logs::LogGroup': 'aws logs delete-log-group',
        'AWS::SecretsManager::Secret': 'aws secretsmanager delete-secret',
      };
      for (const type of kept)
        assert.ok(script.includes(removes[type] ?? `no removal known for ${type}`), `${type} is removed`);
    } finally {
      await sandbox.remove();
    }
  });

  it('docs/cloud-stacks.md removes a stack and what it keeps with the block it shows, run as written', async () => {
    const document = await readFile(join(projectRoot, 'docs/cloud-stacks.md'), 'utf8');
    const script = /```sh\n([\s\S]*?)```/.exec(
      document.slice(document.indexOf('removes a stack with what it keeps')),
    )?.[1];
    assert.ok(script, 'docs/cloud-stacks.md shows the removal commands');
    const sandbox = await createSandbox();
    try {
      await sandbox.stub('aws', awsStub);
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
        env: { PATH: `${sandbox.bin}:${sandbox.system}` },
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(await sandbox.calls(), removals('postgres-inlet'));
    } finally {
      await sandbox.remove();
    }
  });

  for (const usecase of allUseCases) {
    it(
      `${usecase}: launches the stacks with the ticket in a private parameters file, ` + 'never on a command line',
      async () => {
        const guide = artifactText(usecase, 'README.md');
        const section = guide.slice(guide.indexOf('With the AWS CLI'));
        const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
        assert.ok(script);
        const sandbox = await createSandbox();
        try {
          await sandbox.stub('aws');
          await sandbox.stub('cat', 'exec /bin/cat "$@"');
          await writeFile(join(sandbox.dir, 'outlet.ticket'), 'pt1_outlet-ticket\n');
          await writeFile(join(sandbox.dir, 'inlet.ticket'), 'pt1_inlet-ticket\n');
          const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
            cwd: sandbox.dir,
            env: { PATH: `${sandbox.bin}:${sandbox.system}` },
            encoding: 'utf8',
          });
          assert.equal(run.status, 0, run.stderr);
          const calls = await sandbox.calls();
          assert.ok(!calls.some((call) => call.includes('pt1_')), calls.join('\n'));
          assert.ok(
            calls.includes(
              `aws cloudformation create-stack --stack-name ${usecase}-outlet --template-body ` +
                'file://outlet.stack.yaml --capabilities CAPABILITY_IAM --parameters file://outlet.parameters.json',
            ),
          );
          for (const role of ['outlet', 'inlet']) {
            const file = join(sandbox.dir, `${role}.parameters.json`);
            const parameters = JSON.parse(await readFile(file, 'utf8')) as {
              ParameterKey: string;
              ParameterValue: string;
            }[];
            assert.equal(
              parameters.find((parameter) => parameter.ParameterKey === 'EnrollmentTicket')?.ParameterValue,
              `pt1_${role}-ticket`,
            );
            assert.equal((await stat(file)).mode & 0o777, 0o600, 'readable by its owner only');
            const stack = parseCfnYaml(artifactText(usecase, `${role}.stack.yaml`)) as {
              Parameters: Record<string, { Default?: string }>;
            };
            const required = Object.entries(stack.Parameters)
              .filter(([, parameter]) => parameter.Default === undefined)
              .map(([id]) => id);
            assert.deepEqual(
              parameters.map((parameter) => parameter.ParameterKey).sort(),
              required.sort(),
              `${role}: every parameter without a default`,
            );
          }
        } finally {
          await sandbox.remove();
        }
      },
    );
  }

  describe('the direct path', () => {
    const section = (usecase: string) => {
      const guide = artifactText(usecase, 'README.md');
      const start = guide.indexOf('#### The direct path');
      assert.ok(start > 0, `${usecase}: the guide has the section`);
      return guide.slice(start, guide.indexOf('#### The node-down alarm', start));
    };
    type InletStack = {
      Parameters: Record<string, { Default?: string }>;
      Resources: Record<string, { Condition?: string; Properties: Record<string, unknown> }>;
    };
    const inletStack = (usecase: string) => parseCfnYaml(artifactText(usecase, 'inlet.stack.yaml')) as InletStack;

    for (const usecase of allUseCases.filter((name) => name !== 'shop')) {
      it(
        `${usecase}: says what it is, the port the stack opens, the parameter, ` +
          'the fallback and how to see the path',
        () => {
          const text = section(usecase).replace(/\s+/g, ' ');
          const rule = inletStack(usecase).Resources.NodeDirectIngress;
          const port = Number(rule?.Properties.FromPort);
          assert.equal(port, 4200);
          assert.ok(
            text.includes(
              `the inlet stack's node listens for it on TCP ${port} ` +
                `(\`"direct": "0.0.0.0:${port}"\` in the stack's configuration)`,
            ),
            text,
          );
          assert.ok(text.includes('the outlet dials them, so it still needs only outbound network'));
          assert.ok(text.includes('If the dial does not connect within 250 ms, the relay carries the portal'));
          assert.ok(
            text.includes(
              `The inlet stack opens TCP ${port} only to the network of its **Outlet network** parameter ` +
                `(\`OutletCidr\`)`,
            ),
          );
          assert.equal(rule?.Condition, 'HasOutletNetwork');
          assert.equal(inletStack(usecase).Parameters.OutletCidr?.Default, '');
          assert.ok(
            text.includes(
              "Left empty (the default), nothing is opened: the outlet's dials fail and everything works through " +
                'the relay as before.',
            ),
          );
          assert.ok(text.includes(`controller gives only to the outlets registered as \`${usecase}\``));
          assert.ok(
            text.includes('`portal node show` says `session open (direct)` or `session open (relay <relay_id>)`'),
          );
          assert.ok(text.includes(`curl -s http://localhost:23345/show | jq -r '.inlets[0].path'`));
          // The field the guide reads is the one /show gives (a type error here if it is renamed).
          const path: NodeShowRunning['inlets'][number]['path'] = 'direct';
          assert.equal(path, 'direct');
        },
      );
    }

    it('names the port of each portal of several, and the rule that opens them all', () => {
      const text = section('shop').replace(/\s+/g, ' ');
      assert.ok(
        text.includes('listens for it on TCP 4200 (the first portal; each further one on the next port, up to 4202)'),
      );
      assert.ok(
        text.includes('The inlet stack opens TCP 4200–4202 only to the network of its **Outlet network** parameter'),
      );
      const rule = inletStack('shop').Resources.NodeDirectIngress;
      assert.deepEqual([rule?.Properties.FromPort, rule?.Properties.ToPort], [4200, 4202]);
    });

    it('opens it at creation with one line in the inlet parameters file, which create-stack then passes', async () => {
      const guide = artifactText('postgres', 'README.md');
      const line = /```\n( {2}\{"ParameterKey": "OutletCidr"[^\n]*\n)```/.exec(section('postgres'))?.[1];
      assert.equal(line, '  {"ParameterKey": "OutletCidr", "ParameterValue": "<outlet_cidr>"},\n');
      const launch = /```sh\n([\s\S]*?)```/.exec(guide.slice(guide.indexOf('With the AWS CLI')))?.[1] ?? '';
      const ticketLine = '  {"ParameterKey": "EnrollmentTicket", "ParameterValue": "$(cat inlet.ticket)"}\n';
      assert.ok(launch.includes(ticketLine), 'the line goes above the inlet ticket, as the guide says');
      const script = launch.replace(ticketLine, `${line}${ticketLine}`);
      const sandbox = await createSandbox();
      try {
        await sandbox.stub('aws');
        await sandbox.stub('cat', 'exec /bin/cat "$@"');
        await writeFile(join(sandbox.dir, 'outlet.ticket'), 'pt1_outlet-ticket\n');
        await writeFile(join(sandbox.dir, 'inlet.ticket'), 'pt1_inlet-ticket\n');
        const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
          cwd: sandbox.dir,
          env: { PATH: `${sandbox.bin}:${sandbox.system}` },
          encoding: 'utf8',
        });
        assert.equal(run.status, 0, run.stderr);
        const parameters = JSON.parse(await readFile(join(sandbox.dir, 'inlet.parameters.json'), 'utf8')) as {
          ParameterKey: string;
          ParameterValue: string;
        }[];
        assert.deepEqual(
          parameters.map((parameter) => parameter.ParameterKey),
          ['VpcId', 'SubnetId', 'InstallUrl', 'OutletCidr', 'EnrollmentTicket'],
        );
        assert.equal(parameters[3]?.ParameterValue, '<outlet_cidr>');
        for (const { ParameterKey } of parameters)
          assert.ok(ParameterKey in inletStack('postgres').Parameters, ParameterKey);
        assert.ok(
          (await sandbox.calls()).includes(
            'aws cloudformation create-stack --stack-name postgres-inlet --template-body file://inlet.stack.yaml ' +
              '--capabilities CAPABILITY_IAM --parameters file://inlet.parameters.json',
          ),
        );
      } finally {
        await sandbox.remove();
      }
    });

    for (const usecase of allUseCases) {
      it(`${usecase}: opens it on a running stack with an update that keeps every other parameter`, async () => {
        const script = /```sh\n([\s\S]*?)```/.exec(section(usecase))?.[1];
        assert.ok(script);
        const sandbox = await createSandbox();
        try {
          await sandbox.stub('aws', `printf '%s\\n' "$@" > ${JSON.stringify(join(sandbox.dir, 'arguments'))}`);
          const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
            cwd: sandbox.dir,
            env: { PATH: `${sandbox.bin}:${sandbox.system}` },
            encoding: 'utf8',
          });
          assert.equal(run.status, 0, run.stderr);
          assert.equal((await sandbox.calls()).length, 1);
          const words = (await readFile(join(sandbox.dir, 'arguments'), 'utf8')).split('\n').slice(0, -1);
          const parametersAt = words.indexOf('--parameters');
          assert.deepEqual(words.slice(0, parametersAt), [
            'cloudformation',
            'update-stack',
            '--stack-name',
            `${usecase}-inlet`,
            '--use-previous-template',
            '--capabilities',
            'CAPABILITY_IAM',
          ]);
          const given = words.slice(parametersAt + 1);
          assert.equal(
            given[0],
            'ParameterKey=OutletCidr,ParameterValue=<outlet_cidr>',
            'the one value that changes, passed as one word',
          );
          const others = Object.keys(inletStack(usecase).Parameters).filter((id) => id !== 'OutletCidr');
          assert.deepEqual(
            given.slice(1),
            others.map((id) => `ParameterKey=${id},UsePreviousValue=true`),
            'update-stack would reset a parameter it is not told to keep',
          );
        } finally {
          await sandbox.remove();
        }
      });
    }

    for (const usecase of containerUseCases) {
      it(`${usecase}: says the container inlet's direct path is off, and how to turn it on`, () => {
        const text = artifactText(usecase, 'README.md').replace(/\s+/g, ' ');
        const bridge =
          (parse(artifactText(usecase, 'inlet.compose.yaml')) as { services: { node: { network_mode: string } } })
            .services.node.network_mode === 'bridge';
        assert.ok(text.includes("The container inlet's direct path is off (`direct: false` in its configuration)"));
        assert.ok(text.includes('in `inlet.compose.yaml` change `direct: false` to `direct: 0.0.0.0:4200`'));
        assert.equal(
          text.includes('add `"4200:4200"` to the node\'s `ports`'),
          bridge,
          'only a bridge container publishes the port',
        );
        assert.ok(text.includes('add `PORTAL_DIRECT_ADVERTISE: <host_address>:4200` to its `environment`'));
        assert.ok(text.includes("let TCP 4200 in from the outlet's network in the host's firewall"));
      });
    }
  });

  describe('the targets, the controller and the installer', () => {
    for (const usecase of allUseCases) {
      it(`${usecase}: has a section per target, and hands no node a loopback controller or a made-up installer`, () => {
        const guide = artifactText(usecase, 'README.md');
        const headings = [
          '### On AWS, with CloudFormation',
          '### With Docker Compose',
          '### In a terminal',
          '### With systemd',
          '### On Kubernetes',
        ];
        for (const heading of headings) {
          assert.ok(guide.includes(`\n${heading}\n`), `${usecase}: ${heading}`);
        }
        assert.ok(!guide.includes('portal.example.net/install.sh'), 'no placeholder presented as real');
        assert.ok(guide.includes('this guide was compiled without `--install-url`, and\nthe address of your'));
        assert.ok(guide.includes("curl --proto '=https' --tlsv1.2 -sSfL '<install_url>' | sh"));
        assert.ok(
          guide.includes('portal controller start --listen 0.0.0.0:4000 --public-address <controller_host>:4000'),
        );
        assert.ok(guide.includes('portal enroll --controller <controller_host>:4000 --code <admin_code>'));
        assert.ok(!/^portal enroll$/m.test(guide), 'the plain loopback enrollment is for one machine only');
        assert.ok(!guide.includes('{{'), 'no template text left');
      });
    }

    it('writes the controller and the installer it is given into the guide, tickets.sh and the stacks', () => {
      const settings = {
        installUrl: 'https://downloads.example.net/portal/install.sh',
        controller: 'ctl.example.net:4443',
      };
      const artifacts = new Map(
        compileUseCase(loadManifest('redis'), settings).map((artifact) => [artifact.path, artifact.content]),
      );
      const guide = artifacts.get('README.md') ?? '';
      assert.ok(
        guide.includes("curl --proto '=https' --tlsv1.2 -sSfL https://downloads.example.net/portal/install.sh | sh"),
      );
      assert.ok(guide.includes('portal controller start --listen 0.0.0.0:4443 --public-address ctl.example.net:4443'));
      assert.ok(guide.includes('portal enroll --controller ctl.example.net:4443 --code <admin_code>'));
      assert.ok(!guide.includes('<install_url>'));
      const tickets = artifacts.get('tickets.sh') ?? '';
      assert.ok(tickets.includes('CONTROLLER=ctl.example.net:4443\n'));
      assert.ok(tickets.includes('INSTALL_URL=https://downloads.example.net/portal/install.sh\n'));
      for (const role of ['outlet', 'inlet']) {
        const stack = parseCfnYaml(artifacts.get(`${role}.stack.yaml`) ?? '') as {
          Parameters: Record<string, { Default?: string }>;
        };
        assert.equal(stack.Parameters.InstallUrl?.Default, settings.installUrl, role);
      }
    });

    it('installs each node as a systemd service with its configuration, ticket and endpoint', async () => {
      const guide = artifactText('redis', 'README.md');
      const section = guide.slice(guide.indexOf('### With systemd'), guide.indexOf('### On Kubernetes'));
      const scripts = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
      assert.equal(scripts.length, 2, 'one command on each machine');
      const sandbox = await createSandbox();
      try {
        await sandbox.stub('portal');
        for (const script of scripts) {
          const filled = script.replace('<REDIS_ENDPOINT>', 'cache.internal.example');
          const run = spawnSync('bash', ['-euo', 'pipefail', '-c', filled], {
            cwd: sandbox.dir,
            env: { PATH: `${sandbox.bin}:${sandbox.system}` },
            encoding: 'utf8',
          });
          assert.equal(run.status, 0, run.stderr);
        }
        assert.deepEqual(await sandbox.calls(), [
          'portal service install node --name portal-redis-outlet --home /var/lib/portal/redis-outlet ' +
            '--configuration outlet.json --enrollment-ticket-file outlet.ticket ' +
            '--env REDIS_ENDPOINT=cache.internal.example',
          'portal service install node --name portal-redis-inlet --home /var/lib/portal/redis-inlet ' +
            '--configuration inlet.json --enrollment-ticket-file inlet.ticket',
        ]);
      } finally {
        await sandbox.remove();
      }
    });

    it(
      'runs each node in a terminal from its file, the ticket from its file, in a PORTAL_HOME of its own, ' +
        'and says how two share a machine',
      async () => {
        const guide = artifactText('redis', 'README.md');
        const section = guide.slice(guide.indexOf('### In a terminal'), guide.indexOf('### With systemd'));
        const scripts = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
        assert.equal(scripts.length, 2, 'one command on each machine');
        const sandbox = await createSandbox();
        try {
          await sandbox.stub('portal', 'echo "PORTAL_HOME=$PORTAL_HOME REDIS_ENDPOINT=${REDIS_ENDPOINT:-}"');
          const homes: string[] = [];
          for (const script of scripts) {
            const filled = script.replace('<REDIS_ENDPOINT>', 'cache.internal.example');
            const run = spawnSync('bash', ['-euo', 'pipefail', '-c', filled], {
              cwd: sandbox.dir,
              env: { PATH: `${sandbox.bin}:${sandbox.system}`, HOME: sandbox.dir },
              encoding: 'utf8',
            });
            assert.equal(run.status, 0, run.stderr);
            homes.push(run.stdout.trim());
          }
          assert.deepEqual(homes, [
            `PORTAL_HOME=${sandbox.dir}/.portal-redis-outlet REDIS_ENDPOINT=cache.internal.example`,
            `PORTAL_HOME=${sandbox.dir}/.portal-redis-inlet REDIS_ENDPOINT=`,
          ]);
          assert.deepEqual(await sandbox.calls(), [
            'portal node create --foreground --configuration outlet.json --enrollment-ticket-file outlet.ticket',
            'portal node create --foreground --configuration inlet.json --enrollment-ticket-file inlet.ticket',
          ]);
        } finally {
          await sandbox.remove();
        }
        const text = section.replace(/\s+/g, ' ');
        assert.ok(text.includes('each needs its own `PORTAL_HOME` and its own status port'), text);
        assert.ok(text.includes('change it in `inlet.json` (to 23346, say, or `0`'), text);
        assert.ok(!section.includes('--enrollment-ticket '), 'the ticket never on a command line');
      },
    );

    it('creates on Kubernetes the Secrets, by name and key, that the compiled Deployments read', async () => {
      const guide = artifactText('shop', 'README.md');
      const section = guide.slice(guide.indexOf('### On Kubernetes'), guide.indexOf('## 6. Verify'));
      const scripts = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
      assert.equal(scripts.length, 3, 'the outlet, the inlet, and the port-forward');
      const sandbox = await createSandbox();
      try {
        await sandbox.stub('kubectl', 'cat > /dev/null');
        await sandbox.stub('openssl', 'echo c2VhbGluZy1rZXk=');
        for (const script of scripts) {
          const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
            cwd: sandbox.dir,
            env: { PATH: `${sandbox.bin}:${sandbox.system}` },
            encoding: 'utf8',
          });
          assert.equal(run.status, 0, run.stderr);
        }
        const created = (await sandbox.calls()).flatMap((call) => {
          const match = /^kubectl create secret generic (\S+) --from-file=([^=\s]+)=(\S+)$/.exec(call);
          return match ? [`${match[1]} ${match[2]}`] : [];
        });
        const read = ['outlet', 'inlet'].flatMap((role) =>
          secretsReadBy(parseKubernetesFile(artifactText('shop', `k8s/${role}.yaml`))),
        );
        assert.deepEqual(created.sort(), read.sort());
        assert.deepEqual(created.sort(), [
          'shop-inlet-sealing-key node-seal.key',
          'shop-inlet-ticket ticket',
          'shop-outlet-sealing-key node-seal.key',
          'shop-outlet-ticket ticket',
        ]);
        const calls = await sandbox.calls();
        assert.ok(calls.includes('kubectl apply -f k8s/outlet.yaml'));
        assert.ok(calls.includes('kubectl port-forward service/shop-inlet 15432:15432 16379:16379 18080:18080'));
      } finally {
        await sandbox.remove();
      }
    });

    it('verifies each portal of several by its own kind, and shows the commands tickets.sh runs', () => {
      const guide = artifactText('shop', 'README.md');
      const verify = guide.slice(guide.indexOf('## 6. Verify'), guide.indexOf('## 7. Clean up'));
      assert.deepEqual(
        [...verify.matchAll(/^#### Portal (.*)$/gm)].map((match) => match[1]),
        ['orders-db', 'cache', 'api'],
      );
      assert.ok(verify.includes('sends `PING\\r\\n` and expects a reply that begins with `+PONG`'));
      assert.ok(
        verify.includes(`curl -sS -o /dev/null -w '%{http_code}' -X GET http://"$INLET_HOST":"$INLET_PORT"/health`),
      );
      const api = artifactText('api', 'README.md');
      assert.ok(
        api.includes('--cacert "$PROJECT_CA" --connect-to "$INLET_NAME":"$INLET_PORT":"$INLET_HOST":"$INLET_PORT"'),
      );
      assert.ok(
        api.includes('INLET_NAME=api."$(portal project show --jq .id).$(portal project show --jq .network_domain)"'),
      );
    });
  });
});

/** "<secret> <key>" of every Secret a file's Deployments read: an environment variable's, or a volume's. */
function secretsReadBy(objects: readonly KubernetesObjectLike[]): string[] {
  return objects
    .filter((object) => object.kind === 'Deployment')
    .flatMap((object) => {
      const pod = (object as unknown as IDeployment).spec?.template.spec;
      const fromEnv = (pod?.containers ?? []).flatMap((container) =>
        (container.env ?? []).flatMap((variable) => {
          const ref = variable.valueFrom?.secretKeyRef;
          return ref ? [`${ref.name} ${ref.key}`] : [];
        }),
      );
      const fromVolumes = (pod?.volumes ?? []).flatMap((volume) =>
        (volume.secret?.items ?? []).map((item) => `${volume.secret?.secretName} ${item.key}`),
      );
      return [...fromEnv, ...fromVolumes];
    });
}
