/**
 * The machine that runs the node (spec 2.4): a launch template whose user data is the boot script, an
 * autoscaling group that keeps one instance alive, and the role that session-manager access, log
 * shipping and the file-system mount need.
 */
import { product } from '../../shared/product.ts';
import { compileDefaults } from '../defaults.ts';
import { subLiteral } from '../quote.ts';
import { renderTemplate } from '../templates.ts';
import { base64, getAtt, ref, sub, subWith, type CfnValue } from './intrinsics.ts';
import { capitalized, ids, portalIds, type StackContext } from './context.ts';
import { assumedBy } from './monitoring.ts';
import { endpointValue } from './private-endpoint.ts';
import { statusChecks } from './status-checks.ts';
import { keepOnDeleteAndReplace, tags, type CfnFragment } from './template.ts';

/** The boot script waits up to 10 minutes for the file system's name: 20 tries, 30 s apart. */
export const fileSystemWait = { attempts: 20, seconds: 30 } as const;

/** Length of the generated sealing key material (letters and digits; the node needs at least 32). */
export const sealingKeyCharacters = 48;

/** How long the stack waits for the boot script's signal: the name wait plus installing and starting. */
export const bootTimeout = 'PT20M';

/**
 * Each outlet replica of a pool is a group of one machine of its own, which tags its machine with the
 * replica's number (replicaTag); the one launch template's boot script reads the tag to find its home on
 * the shared file system and the group it signals. Replica 1 keeps a single node's group and home.
 */
export const replicaGroup = (replica: number): string =>
  replica === 1 ? 'NodeAutoScalingGroup' : `NodeAutoScalingGroup${replica}`;

/** The instance tag that carries a pool replica's number, which the machine reads from its metadata. */
export const replicaTag = 'PortalReplica';

/** The boot script as a Fn::Sub template, and the variables it names beside the stack's own. */
export function bootScript(context: StackContext): { template: string; variables: Record<string, CfnValue> } {
  const variables: Record<string, CfnValue> = {};
  const endpoints = context.endpoints.map((endpoint) => {
    const value = endpointValue(endpoint);
    Object.assign(variables, value.variables);
    return { placeholder: endpoint.placeholder, value: value.text };
  });
  // Longest first, so that $DB_REPLICA is replaced before $DB, which begins it.
  endpoints.sort((a, b) => b.placeholder.length - a.placeholder.length);
  const template = renderTemplate('boot.sh.hbs', {
    role: context.role,
    // The script is a Fn::Sub template: the title must come out literally, whatever it holds.
    title: subLiteral(context.useCase.title),
    fileSystemHost: `\${${ids.fileSystem}}.efs.\${AWS::Region}.\${AWS::URLSuffix}`,
    logGroup: `\${${ids.logGroup}}`,
    ticketSecret: `\${${ids.ticketSecret}}`,
    sealingKeySecret: `\${${ids.sealingKeySecret}}`,
    sealingKeyFile: compileDefaults.stackSealingKeyFile,
    installUrl: `\${${ids.installUrl}}`,
    stateDirectory: compileDefaults.stateDirectory,
    pool: replicasOf(context) > 1,
    replicaTag,
    singleGroup: replicaGroup(1),
    retryAttempts: fileSystemWait.attempts,
    retrySeconds: fileSystemWait.seconds,
    endpoints,
    checks: context.role === 'inlet' ? statusChecks(context.useCase) : [],
    nodeUpLine: product.nodeUpLine,
    completionLine: product.setupCompletedLine,
  });
  return { template, variables };
}

export function computeFragment(context: StackContext): CfnFragment {
  const dependsOn: string[] = [ids.mountTarget, ids.logGroup];
  for (const endpoint of context.endpoints) {
    if (endpoint.source === 'vpc-endpoint') dependsOn.push(portalIds.privateEndpoint(endpoint.idPart));
  }
  return {
    Resources: {
      // The ticket reaches the machine through the secret, not through user data, which anyone who may
      // describe the launch template can read.
      [ids.ticketSecret]: {
        Type: 'AWS::SecretsManager::Secret',
        Properties: {
          Description: sub(`Enrollment ticket of the Portal ${context.role} node of \${AWS::StackName}`),
          SecretString: ref(ids.ticket),
        },
      },
      // The node's identity on the file system is sealed with this key, which must never sit beside it:
      // the machine copies it to its own memory at each start. Kept like the file system: losing it
      // loses the identity.
      [ids.sealingKeySecret]: {
        Type: 'AWS::SecretsManager::Secret',
        ...keepOnDeleteAndReplace,
        Properties: {
          Description: sub(`Sealing key of the Portal ${context.role} node identity of \${AWS::StackName}`),
          GenerateSecretString: { PasswordLength: sealingKeyCharacters, ExcludePunctuation: true },
        },
      },
      NodeRole: {
        Type: 'AWS::IAM::Role',
        Properties: {
          AssumeRolePolicyDocument: assumedBy('ec2.amazonaws.com'),
          ManagedPolicyArns: [sub('arn:${AWS::Partition}:iam::aws:policy/AmazonSSMManagedInstanceCore')],
          Policies: [
            {
              PolicyName: 'ship-status-logs',
              PolicyDocument: {
                Version: '2012-10-17',
                Statement: [
                  {
                    Effect: 'Allow',
                    Action: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
                    Resource: getAtt(ids.logGroup, 'Arn'),
                  },
                ],
              },
            },
            {
              PolicyName: 'read-enrollment-ticket',
              PolicyDocument: {
                Version: '2012-10-17',
                Statement: [
                  { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: ref(ids.ticketSecret) },
                ],
              },
            },
            {
              PolicyName: 'read-sealing-key',
              PolicyDocument: {
                Version: '2012-10-17',
                Statement: [
                  { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: ref(ids.sealingKeySecret) },
                ],
              },
            },
            ...(replicasOf(context) > 1
              ? [
                  {
                    // A pool's machine reads its replica's number from its own tags (DescribeTags takes no
                    // resource: it answers for the instance the filter names).
                    PolicyName: 'read-replica-tag',
                    PolicyDocument: {
                      Version: '2012-10-17',
                      Statement: [{ Effect: 'Allow', Action: 'ec2:DescribeTags', Resource: '*' }],
                    },
                  },
                ]
              : []),
            {
              PolicyName: 'mount-node-state',
              PolicyDocument: {
                Version: '2012-10-17',
                Statement: [
                  {
                    Effect: 'Allow',
                    Action: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
                    Resource: getAtt(ids.fileSystem, 'Arn'),
                  },
                ],
              },
            },
          ],
        },
      },
      NodeInstanceProfile: {
        Type: 'AWS::IAM::InstanceProfile',
        Properties: { Roles: [ref('NodeRole')] },
      },
      ...replicaResources(context, dependsOn),
    },
    Outputs: {
      ...groupOutputs(context),
      SealingKeySecretArn: {
        Description: "Secret holding the sealing key of the node's identity",
        Value: ref(ids.sealingKeySecret),
      },
    },
  };
}

/** An outlet's replicas (outlet.replicas); an inlet is one node. */
const replicasOf = (context: StackContext): number => (context.role === 'outlet' ? context.useCase.outletReplicas : 1);

/** The launch template every machine boots from, and for each replica the group that keeps it running. */
function replicaResources(context: StackContext, dependsOn: readonly string[]): Record<string, unknown> {
  const boot = bootScript(context);
  const replicas = replicasOf(context);
  const resources: Record<string, unknown> = {
    [ids.launchTemplate]: {
      Type: 'AWS::EC2::LaunchTemplate',
      Properties: {
        LaunchTemplateData: {
          ImageId: ref(ids.image),
          InstanceType: ref(ids.instanceType),
          IamInstanceProfile: { Arn: getAtt('NodeInstanceProfile', 'Arn') },
          SecurityGroupIds: [ref(ids.nodeSecurityGroup)],
          MetadataOptions: { HttpTokens: 'required' },
          TagSpecifications: [
            { ResourceType: 'instance', Tags: tags({ Name: sub(`\${AWS::StackName}-${context.role}`) }) },
          ],
          UserData: base64(subWith(boot.template, boot.variables)),
        },
      },
    },
  };
  for (let replica = 1; replica <= replicas; replica++) {
    resources[replicaGroup(replica)] = {
      Type: 'AWS::AutoScaling::AutoScalingGroup',
      DependsOn: dependsOn,
      // The boot script signals its outcome: the stack is complete only once the node is up.
      CreationPolicy: { ResourceSignal: { Count: 1, Timeout: bootTimeout } },
      Properties: {
        MinSize: '1',
        MaxSize: '1',
        DesiredCapacity: '1',
        VPCZoneIdentifier: [ref(ids.subnet)],
        LaunchTemplate: {
          LaunchTemplateId: ref(ids.launchTemplate),
          Version: getAtt(ids.launchTemplate, 'LatestVersionNumber'),
        },
        Tags: [
          { Key: 'portal:role', Value: capitalized(context.role), PropagateAtLaunch: true },
          ...(replicas > 1 ? [{ Key: replicaTag, Value: String(replica), PropagateAtLaunch: true }] : []),
        ],
      },
    };
  }
  return resources;
}

function groupOutputs(context: StackContext): Record<string, { Description: string; Value: CfnValue }> {
  const outputs: Record<string, { Description: string; Value: CfnValue }> = {};
  const replicas = replicasOf(context);
  for (let replica = 1; replica <= replicas; replica++) {
    const group = replicaGroup(replica);
    outputs[`${group}Name`] = {
      Description:
        replicas === 1
          ? 'Autoscaling group that keeps the node running'
          : `Autoscaling group that keeps outlet replica ${replica} of ${replicas} running`,
      Value: ref(group),
    };
  }
  return outputs;
}
