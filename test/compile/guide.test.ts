import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createSandbox } from '../support/sandbox.ts';
import { parseCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { allUseCases, artifactText, containerUseCases } from '../support/usecases.ts';

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

describe('the compiled guide (README.md)', () => {
  for (const usecase of allUseCases) {
    it(`${usecase}: explains the node-down alarm with the stack's own metric, period, threshold and minutes`, () => {
      const guide = artifactText(usecase, 'README.md');
      for (const role of ['outlet', 'inlet']) {
        const stack = parseCfnYaml(artifactText(usecase, `${role}.stack.yaml`)) as { Resources: { NodeDownAlarm: { Properties: AlarmProperties } } };
        const alarm = stack.Resources.NodeDownAlarm.Properties;
        assert.equal(alarm.ComparisonOperator, 'LessThanThreshold');
        assert.equal(alarm.DatapointsToAlarm, alarm.EvaluationPeriods, 'red only when every minute of the window is');
        assert.ok(guide.includes(`| Metric | \`${alarm.Namespace}/${alarm.MetricName}\`, dimension \`StackName=<stack_name>\``), `${role}: the metric`);
        assert.ok(guide.includes(`| Statistic | ${alarm.Statistic} over ${alarm.Period} seconds |`), `${role}: statistic and period`);
        assert.ok(guide.includes(`at least ${alarm.Threshold} such line, within the last ${alarm.EvaluationPeriods} minutes`), `${role}: what turns it green`);
        assert.ok(guide.includes(`none in ${alarm.EvaluationPeriods} consecutive minutes (each minute's sum below ${alarm.Threshold})`), `${role}: what turns it red`);
        assert.equal(alarm.TreatMissingData, 'breaching');
        assert.ok(guide.includes('a minute with no data counts as red'));
      }
      assert.ok(guide.includes('aws cloudwatch describe-alarms --alarm-names <stack_name>-NodeDownAlarm'));
    });
  }

  for (const usecase of containerUseCases) {
    it(`${usecase}: names the image the compose file runs and how to build it`, () => {
      const image = (parse(artifactText(usecase, 'inlet.compose.yaml')) as { services: { node: { image: string } } }).services.node.image;
      const guide = artifactText(usecase, 'README.md').replace(/\s+/g, ' ');
      assert.ok(guide.includes(`The compose file runs the image \`${image}\``), guide);
      assert.ok(guide.includes('`docker build -t portal-node .`'));
    });
  }

  it('removes what each stack keeps with the commands it gives, for each stack by name', async () => {
    const guide = artifactText('postgres', 'README.md');
    const section = guide.slice(guide.indexOf('#### What a deleted stack keeps'));
    const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    assert.ok(script, 'the section has its commands');
    const kept = Object.entries((parseCfnYaml(artifactText('postgres', 'inlet.stack.yaml')) as { Resources: Record<string, { Type: string; DeletionPolicy?: string }> }).Resources)
      .filter(([, resource]) => resource.DeletionPolicy === 'Retain')
      .map(([, resource]) => resource.Type);
    const sandbox = await createSandbox();
    try {
      await sandbox.stub('aws', `if [ "$1 $2" = "cloudformation describe-stacks" ]; then
  case "$6" in
    *StateFileSystemId*) echo "fs-of-$4" ;;
    *SealingKeySecretArn*) echo "arn:secret:sealing-key-of-$4" ;;
  esac
fi`);
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { env: { PATH: `${sandbox.bin}:/usr/bin:/bin` }, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const removals = (stack: string) => [
        `aws cloudformation describe-stacks --stack-name ${stack} --query Stacks[0].Outputs[?OutputKey=='StateFileSystemId'].OutputValue --output text`,
        `aws cloudformation describe-stacks --stack-name ${stack} --query Stacks[0].Outputs[?OutputKey=='SealingKeySecretArn'].OutputValue --output text`,
        `aws cloudformation delete-stack --stack-name ${stack}`,
        `aws cloudformation wait stack-delete-complete --stack-name ${stack}`,
        `aws efs delete-file-system --file-system-id fs-of-${stack}`,
        `aws secretsmanager delete-secret --secret-id arn:secret:sealing-key-of-${stack} --recovery-window-in-days 7`,
        `aws logs delete-log-group --log-group-name ${stack}-status-logs`,
      ];
      assert.deepEqual(await sandbox.calls(), [...removals('postgres-inlet'), ...removals('postgres-outlet')]);
      // One removal command per kind of resource the stack keeps.
      const removes: Record<string, string> = { 'AWS::EFS::FileSystem': 'aws efs delete-file-system', 'AWS::Logs::LogGroup': 'aws logs delete-log-group', 'AWS::SecretsManager::Secret': 'aws secretsmanager delete-secret' };
      for (const type of kept) assert.ok(script.includes(removes[type] ?? `no removal known for ${type}`), `${type} is removed`);
    } finally {
      await sandbox.remove();
    }
  });

  for (const usecase of allUseCases) {
    it(`${usecase}: launches the stacks with the ticket in a private parameters file, never on a command line`, async () => {
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
        const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: sandbox.dir, env: { PATH: `${sandbox.bin}:/usr/bin:/bin` }, encoding: 'utf8' });
        assert.equal(run.status, 0, run.stderr);
        const calls = await sandbox.calls();
        assert.ok(!calls.some((call) => call.includes('pt1_')), calls.join('\n'));
        assert.ok(calls.includes(`aws cloudformation create-stack --stack-name ${usecase}-outlet --template-body file://outlet.stack.yaml --capabilities CAPABILITY_IAM --parameters file://outlet.parameters.json`));
        for (const role of ['outlet', 'inlet']) {
          const file = join(sandbox.dir, `${role}.parameters.json`);
          const parameters = JSON.parse(await readFile(file, 'utf8')) as { ParameterKey: string; ParameterValue: string }[];
          assert.equal(parameters.find((parameter) => parameter.ParameterKey === 'EnrollmentTicket')?.ParameterValue, `pt1_${role}-ticket`);
          assert.equal((await stat(file)).mode & 0o777, 0o600, 'readable by its owner only');
          const stack = parseCfnYaml(artifactText(usecase, `${role}.stack.yaml`)) as { Parameters: Record<string, { Default?: string }> };
          const required = Object.entries(stack.Parameters).filter(([, parameter]) => parameter.Default === undefined).map(([id]) => id);
          assert.deepEqual(parameters.map((parameter) => parameter.ParameterKey).sort(), required.sort(), `${role}: every parameter without a default`);
        }
      } finally {
        await sandbox.remove();
      }
    });
  }
});
