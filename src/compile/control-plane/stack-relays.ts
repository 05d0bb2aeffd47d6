/**
 * The relays: plane.relays machines in the public subnets, each in an autoscaling group of one tagged with
 * its number (as the replicas of an outlet pool are), running `portal relay start` on its own public
 * address. Each enrolls once, with the relay ticket the administrator stores in the stack's secret, and
 * keeps its identity on a file system of the stack (relay-<n>), sealed under a key from another secret of
 * the stack that never touches it: a replaced machine is the same relay, with no new ticket.
 */
import { subLiteral } from '../quote.ts';
import { fileSystemWait, replicaTag, sealingKeyCharacters } from '../stack/compute.ts';
import { getAtt, ref, select, sub, type CfnValue } from '../stack/intrinsics.ts';
import { keepOnDeleteAndReplace, tags, type CfnFragment, type CfnResource } from '../stack/template.ts';
import { renderTemplate } from '../templates.ts';
import type { UseCase } from '../model.ts';
import { controlPlaneNames, numbered, type ControlPlane } from './model.ts';
import { allow, launchTemplate, machineRole } from './stack-machines.ts';
import {
  planeIds,
  planeLines,
  planeOutputs,
  planePaths,
  planeTimings,
  relayGroup,
  relayGroupPrefix,
  relayMountTarget,
  relaySubnetIndexes,
  relayTicketPlaceholder,
  ticketPattern,
} from './stack-names.ts';

const relaySubnets: CfnValue[] = relaySubnetIndexes.map((index) => select(index, ref(planeIds.publicSubnets)));

/** The relays' boot script as a Fn::Sub template. */
export function relayBootScript(plane: ControlPlane, useCase: UseCase): string {
  return renderTemplate('control-plane-relay.sh.hbs', {
    // The script is a Fn::Sub template: the title must come out literally, whatever it holds.
    title: subLiteral(useCase.title),
    relays: plane.relays,
    logGroup: `\${${planeIds.logGroup}}`,
    ticketSecret: `\${${planeIds.relayTicketSecret}}`,
    sealingKeySecret: `\${${planeIds.relaySealingKeySecret}}`,
    fileSystemHost: `\${${planeIds.relayFileSystem}}.efs.\${AWS::Region}.\${AWS::URLSuffix}`,
    installUrl: `\${${planeIds.installUrl}}`,
    relayPort: plane.relayPort,
    relayStatusPort: controlPlaneNames.relayStatusPort,
    replicaTag,
    groupPrefix: relayGroupPrefix,
    paths: planePaths,
    retryAttempts: fileSystemWait.attempts,
    retrySeconds: fileSystemWait.seconds,
    ticketAttempts: planeTimings.ticketAttempts,
    ticketSeconds: planeTimings.ticketSeconds,
    ticketPattern,
    waitingLine: planeLines.relayWaiting,
    completionLine: planeLines.relayReady,
  });
}

export function planeRelaysFragment(plane: ControlPlane, useCase: UseCase): CfnFragment {
  const resources: Record<string, CfnResource> = {
    // Written by the administrator once the controllers run (put-secret-value); until then the relays wait.
    [planeIds.relayTicketSecret]: {
      Type: 'AWS::SecretsManager::Secret',
      Properties: {
        Description: sub('Relay ticket (portal project ticket --relay-node) of the Portal relays of ${AWS::StackName}'),
        SecretString: relayTicketPlaceholder,
      },
    },
    // Seals each relay's identity on the file system; kept with it, since losing either loses the relays.
    [planeIds.relaySealingKeySecret]: {
      Type: 'AWS::SecretsManager::Secret',
      ...keepOnDeleteAndReplace,
      Properties: {
        Description: sub('Sealing key of the Portal relay identities of ${AWS::StackName}'),
        GenerateSecretString: { PasswordLength: sealingKeyCharacters, ExcludePunctuation: true },
      },
    },
    [planeIds.relayFileSystem]: {
      Type: 'AWS::EFS::FileSystem',
      ...keepOnDeleteAndReplace,
      Properties: {
        Encrypted: true,
        PerformanceMode: 'generalPurpose',
        FileSystemTags: tags({ Name: sub('${AWS::StackName}-relays') }),
      },
    },
    ...Object.fromEntries(
      relaySubnetIndexes.map((index) => [
        relayMountTarget(index),
        {
          Type: 'AWS::EFS::MountTarget',
          Properties: {
            FileSystemId: ref(planeIds.relayFileSystem),
            SubnetId: relaySubnets[index] as CfnValue,
            SecurityGroups: [getAtt(planeIds.relayStateSecurityGroup, 'GroupId')],
          },
        },
      ]),
    ),
    ...machineRole({ role: planeIds.relayRole, profile: planeIds.relayProfile }, 'portal-relay', [
      allow('secretsmanager:GetSecretValue', [ref(planeIds.relayTicketSecret), ref(planeIds.relaySealingKeySecret)]),
      // A relay reads its number from its own tags (DescribeTags takes no resource).
      allow('ec2:DescribeTags', '*'),
      allow(
        ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
        getAtt(planeIds.relayFileSystem, 'Arn'),
      ),
    ]),
    [planeIds.relayLaunchTemplate]: launchTemplate({
      instanceType: planeIds.relayInstanceType,
      profile: planeIds.relayProfile,
      name: 'relay',
      // A public address of its own, whatever the subnet's default: nodes dial each relay directly.
      network: {
        NetworkInterfaces: [
          {
            DeviceIndex: 0,
            AssociatePublicIpAddress: true,
            Groups: [getAtt(planeIds.relaySecurityGroup, 'GroupId')],
          },
        ],
      },
      boot: { template: relayBootScript(plane, useCase), variables: {} },
    }),
  };
  for (const relay of numbered(plane.relays)) {
    resources[relayGroup(relay)] = {
      Type: 'AWS::AutoScaling::AutoScalingGroup',
      // After the relay before it: an update replaces one relay at a time, the others carrying the portals.
      DependsOn: [...relaySubnetIndexes.map(relayMountTarget), ...(relay > 1 ? [relayGroup(relay - 1)] : [])],
      // The boot script signals once the relay's service runs (waiting for its ticket on a first start).
      CreationPolicy: { ResourceSignal: { Count: 1, Timeout: planeTimings.relayBootTimeout } },
      // Another InstallUrl, image or type replaces the machine, which comes back as the same relay.
      UpdatePolicy: {
        AutoScalingRollingUpdate: {
          MinInstancesInService: 0,
          MaxBatchSize: 1,
          WaitOnResourceSignals: true,
          PauseTime: planeTimings.relayBootTimeout,
        },
      },
      Properties: {
        MinSize: '1',
        MaxSize: '1',
        DesiredCapacity: '1',
        VPCZoneIdentifier: relaySubnets,
        LaunchTemplate: {
          LaunchTemplateId: ref(planeIds.relayLaunchTemplate),
          Version: getAtt(planeIds.relayLaunchTemplate, 'LatestVersionNumber'),
        },
        Tags: [{ Key: replicaTag, Value: String(relay), PropagateAtLaunch: true }],
      },
    };
  }
  return {
    Resources: resources,
    Outputs: {
      [planeOutputs.relayTicketSecret]: {
        Description: 'Secret the relays read their ticket from (aws secretsmanager put-secret-value)',
        Value: ref(planeIds.relayTicketSecret),
      },
      [planeOutputs.relaySealingKeySecret]: {
        Description: 'Secret holding the sealing key of the relay identities',
        Value: ref(planeIds.relaySealingKeySecret),
      },
      [planeOutputs.relayFileSystem]: {
        Description: 'File system holding the relay identities (relay-<n>)',
        Value: ref(planeIds.relayFileSystem),
      },
    },
  };
}
