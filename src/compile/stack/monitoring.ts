/**
 * The status log group and the node-down alarm (spec 2.4). The node's machine appends a status line
 * per minute to the log group; a subscription filter hands the "node is UP" lines to a small function
 * that publishes them as a metric; the alarm is green while that metric keeps arriving.
 */
import { product } from '../../shared/product.ts';
import { renderTemplate } from '../templates.ts';
import { getAtt, ref, sub } from './intrinsics.ts';
import { ids } from './context.ts';
import { keepOnDeleteAndReplace, type CfnFragment } from './template.ts';

export const nodeUpMetric = 'NodeUp';

/** Minutes without a "node is UP" line before the alarm turns red. */
export const alarmMinutes = 5;

/** The alarm counts UP lines per minute: green with at least this many in a minute. */
export const alarmPeriodSeconds = 60;
export const alarmThreshold = 1;

/**
 * `replicas`: the nodes that report to the log group (an outlet pool's); the alarm turns red when any
 * of them has stopped reporting UP, not only when all have.
 */
export function monitoringFragment(replicas = 1): CfnFragment {
  const code = renderTemplate('status-metric.py.hbs', {
    nodeUpLine: product.nodeUpLine,
    namespace: product.metricNamespace,
    metricName: nodeUpMetric,
  });
  return {
    Resources: {
      [ids.logGroup]: {
        Type: 'AWS::Logs::LogGroup',
        ...keepOnDeleteAndReplace,
        Properties: { LogGroupName: sub('${AWS::StackName}-status-logs'), RetentionInDays: 30 },
      },
      StatusMetricFunctionRole: {
        Type: 'AWS::IAM::Role',
        Properties: {
          AssumeRolePolicyDocument: assumedBy('lambda.amazonaws.com'),
          ManagedPolicyArns: [sub('arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole')],
          Policies: [
            {
              PolicyName: 'publish-node-status',
              PolicyDocument: {
                Version: '2012-10-17',
                Statement: [
                  {
                    Effect: 'Allow',
                    Action: 'cloudwatch:PutMetricData',
                    Resource: '*',
                    Condition: { StringEquals: { 'cloudwatch:namespace': product.metricNamespace } },
                  },
                ],
              },
            },
          ],
        },
      },
      StatusMetricFunction: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Description: 'Turns node status lines into the NodeUp metric',
          Runtime: 'python3.12',
          Handler: 'index.handler',
          Timeout: 30,
          Role: getAtt('StatusMetricFunctionRole', 'Arn'),
          Environment: { Variables: { STACK_NAME: ref('AWS::StackName') } },
          Code: { ZipFile: code },
        },
      },
      StatusMetricPermission: {
        Type: 'AWS::Lambda::Permission',
        Properties: {
          Action: 'lambda:InvokeFunction',
          FunctionName: ref('StatusMetricFunction'),
          Principal: 'logs.amazonaws.com',
          SourceAccount: ref('AWS::AccountId'),
          SourceArn: getAtt(ids.logGroup, 'Arn'),
        },
      },
      StatusSubscriptionFilter: {
        Type: 'AWS::Logs::SubscriptionFilter',
        DependsOn: ['StatusMetricPermission'],
        Properties: {
          LogGroupName: ref(ids.logGroup),
          FilterPattern: `"${product.nodeUpLine}"`,
          DestinationArn: getAtt('StatusMetricFunction', 'Arn'),
        },
      },
      NodeDownAlarm: {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: {
          AlarmName: sub('${AWS::StackName}-NodeDownAlarm'),
          AlarmDescription:
            replicas === 1
              ? `Red when the node has reported no "${product.nodeUpLine}" line for ${alarmMinutes} minutes; ` +
                'green while it reports one a minute.'
              : `Red when fewer than the ${replicas} replicas of the pool have reported a "${product.nodeUpLine}" ` +
                `line a minute for ${alarmMinutes} minutes; green while each reports one a minute.`,
          Namespace: product.metricNamespace,
          MetricName: nodeUpMetric,
          Dimensions: [{ Name: 'StackName', Value: ref('AWS::StackName') }],
          Statistic: 'Sum',
          Period: alarmPeriodSeconds,
          EvaluationPeriods: alarmMinutes,
          DatapointsToAlarm: alarmMinutes,
          Threshold: alarmThreshold * replicas,
          ComparisonOperator: 'LessThanThreshold',
          TreatMissingData: 'breaching',
        },
      },
    },
    Outputs: {
      StatusLogGroupName: { Description: 'Log group with one status stream per instance', Value: ref(ids.logGroup) },
      NodeDownAlarmName: { Description: 'Alarm that is green while the node is up', Value: ref('NodeDownAlarm') },
    },
  };
}

export function assumedBy(service: string) {
  return {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { Service: service }, Action: 'sts:AssumeRole' }],
  };
}
