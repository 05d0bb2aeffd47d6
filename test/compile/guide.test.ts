import assert from 'node:assert/strict';
import { parse } from 'yaml';
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
});
