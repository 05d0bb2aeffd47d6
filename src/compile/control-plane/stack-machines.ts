/**
 * What the controllers' and the relays' machines share: a role (session-manager access, its own log
 * streams, and what the policies given add), a launch template (IMDSv2 only) whose user data is a boot
 * script, and the log group both ship their services' output to.
 */
import { assumedBy } from '../stack/monitoring.ts';
import { base64, getAtt, ref, sub, subWith, type CfnValue } from '../stack/intrinsics.ts';
import { tags, type CfnFragment, type CfnResource } from '../stack/template.ts';
import { planeIds, planeOutputs, planeTimings } from './stack-names.ts';

/** One statement of a role's policy: `actions` on `resource`. */
export const allow = (actions: string | readonly string[], resource: CfnValue): CfnValue => ({
  Effect: 'Allow',
  Action: actions,
  Resource: resource,
});

/**
 * A machine's role and the instance profile that carries it: its own log streams, and what `statements`
 * allow (one policy, named `policyName`).
 */
export function machineRole(
  ids: { readonly role: string; readonly profile: string },
  policyName: string,
  statements: readonly CfnValue[],
): Record<string, CfnResource> {
  return {
    [ids.role]: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: assumedBy('ec2.amazonaws.com'),
        ManagedPolicyArns: [sub('arn:${AWS::Partition}:iam::aws:policy/AmazonSSMManagedInstanceCore')],
        Policies: [
          {
            PolicyName: policyName,
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                allow(
                  ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
                  getAtt(planeIds.logGroup, 'Arn'),
                ),
                ...statements,
              ],
            },
          },
        ],
      },
    },
    [ids.profile]: { Type: 'AWS::IAM::InstanceProfile', Properties: { Roles: [ref(ids.role)] } },
  };
}

export interface LaunchTemplateOptions {
  readonly instanceType: string;
  readonly profile: string;
  /** What the machine is, in its Name tag: <stack>-<name>. */
  readonly name: string;
  /** SecurityGroupIds, or NetworkInterfaces for a machine that needs a public address of its own. */
  readonly network: Readonly<Record<string, CfnValue>>;
  /** The boot script as a Fn::Sub template, and the variables it names beside the stack's own. */
  readonly boot: { readonly template: string; readonly variables: Readonly<Record<string, CfnValue>> };
}

export function launchTemplate(options: LaunchTemplateOptions): CfnResource {
  return {
    Type: 'AWS::EC2::LaunchTemplate',
    Properties: {
      LaunchTemplateData: {
        ImageId: ref(planeIds.image),
        InstanceType: ref(options.instanceType),
        IamInstanceProfile: { Arn: getAtt(options.profile, 'Arn') },
        ...options.network,
        MetadataOptions: { HttpTokens: 'required' },
        TagSpecifications: [
          { ResourceType: 'instance', Tags: tags({ Name: sub(`\${AWS::StackName}-${options.name}`) }) },
        ],
        UserData: base64(subWith(options.boot.template, options.boot.variables)),
      },
    },
  };
}

/**
 * Where the controllers and the relays write their output, one stream per machine: the first start of a
 * controller on an empty database prints the one-time admin code there.
 */
export function planeLogFragment(): CfnFragment {
  return {
    Resources: {
      [planeIds.logGroup]: {
        Type: 'AWS::Logs::LogGroup',
        Properties: { LogGroupName: sub('${AWS::StackName}-logs'), RetentionInDays: planeTimings.logRetentionDays },
      },
    },
    Outputs: {
      [planeOutputs.logGroup]: {
        Description: 'Log group of the controllers (controller-<instance>) and the relays (relay-<n>-<instance>)',
        Value: ref(planeIds.logGroup),
      },
    },
  };
}
