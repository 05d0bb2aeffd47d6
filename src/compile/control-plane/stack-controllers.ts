/**
 * The controllers: an autoscaling group of plane.replicas machines in the private subnets behind the load
 * balancer, each running `portal controller start` on the one database with the one sealing key, which a
 * secret the stack generates holds (never the database, never the user data).
 */
import { subLiteral } from '../quote.ts';
import { sealingKeyCharacters } from '../stack/compute.ts';
import { getAtt, ref, sub, type CfnValue } from '../stack/intrinsics.ts';
import { keepOnDeleteAndReplace, type CfnFragment } from '../stack/template.ts';
import { renderTemplate } from '../templates.ts';
import type { UseCase } from '../model.ts';
import { controlPlaneNames, type ControlPlane } from './model.ts';
import { databaseHost, databaseSecret } from './stack-database.ts';
import { allow, launchTemplate, machineRole } from './stack-machines.ts';
import { planeDatabase, planeIds, planeLines, planeOutputs, planePaths, planeTimings } from './stack-names.ts';

/** Variables of the boot script's Fn::Sub that a reference cannot name (they depend on the condition). */
const variables = { DatabaseHost: databaseHost, DatabaseSecret: databaseSecret } as const;

/** The controllers' boot script as a Fn::Sub template, and the variables it names beside the stack's own. */
export function controllerBootScript(
  plane: ControlPlane,
  useCase: UseCase,
): { template: string; variables: Record<string, CfnValue> } {
  const template = renderTemplate('control-plane-controller.sh.hbs', {
    // The script is a Fn::Sub template: the title must come out literally, whatever it holds.
    title: subLiteral(useCase.title),
    logGroup: `\${${planeIds.logGroup}}`,
    sealingKeySecret: `\${${planeIds.sealingKeySecret}}`,
    databaseSecret: '${DatabaseSecret}',
    databaseHost: '${DatabaseHost}',
    publicAddress: `\${${planeIds.loadBalancer}.DNSName}:${plane.port}`,
    installUrl: `\${${planeIds.installUrl}}`,
    group: planeIds.controllerGroup,
    port: plane.port,
    statusPort: controlPlaneNames.statusPort,
    database: planeDatabase,
    databaseUser: controlPlaneNames.databaseUser,
    databaseName: controlPlaneNames.databaseName,
    paths: planePaths,
    passwordCheckSeconds: planeTimings.passwordCheckSeconds,
    completionLine: planeLines.controllerReady,
  });
  return { template, variables: { ...variables } };
}

export function planeControllersFragment(plane: ControlPlane, useCase: UseCase): CfnFragment {
  return {
    Resources: {
      // Seals the project CA keys and the controllers' TLS key in the database. Kept like the database's
      // snapshot, which nothing opens without it.
      [planeIds.sealingKeySecret]: {
        Type: 'AWS::SecretsManager::Secret',
        ...keepOnDeleteAndReplace,
        Properties: {
          Description: sub('Sealing key of the Portal controllers of ${AWS::StackName}'),
          GenerateSecretString: { PasswordLength: sealingKeyCharacters, ExcludePunctuation: true },
        },
      },
      // The only role that may read the sealing key (and the database's secret).
      ...machineRole({ role: planeIds.controllerRole, profile: planeIds.controllerProfile }, 'portal-controller', [
        allow('secretsmanager:GetSecretValue', [ref(planeIds.sealingKeySecret), databaseSecret]),
      ]),
      [planeIds.controllerLaunchTemplate]: launchTemplate({
        instanceType: planeIds.controllerInstanceType,
        profile: planeIds.controllerProfile,
        name: 'controller',
        network: { SecurityGroupIds: [getAtt(planeIds.controllerSecurityGroup, 'GroupId')] },
        boot: controllerBootScript(plane, useCase),
      }),
      [planeIds.controllerGroup]: {
        Type: 'AWS::AutoScaling::AutoScalingGroup',
        // Health checks run once the target group has a listener; the log group takes the first lines.
        DependsOn: [planeIds.listener, planeIds.logGroup],
        // Each boot script signals once its controller answers /healthz.
        CreationPolicy: {
          ResourceSignal: { Count: plane.replicas, Timeout: planeTimings.controllerBootTimeout },
        },
        // An update (another InstallUrl, image or type) replaces one controller at a time.
        UpdatePolicy: {
          AutoScalingRollingUpdate: {
            MinInstancesInService: plane.replicas - 1,
            MaxBatchSize: 1,
            WaitOnResourceSignals: true,
            PauseTime: planeTimings.controllerBootTimeout,
          },
        },
        Properties: {
          MinSize: String(plane.replicas),
          MaxSize: String(plane.replicas),
          DesiredCapacity: String(plane.replicas),
          VPCZoneIdentifier: ref(planeIds.privateSubnets),
          LaunchTemplate: {
            LaunchTemplateId: ref(planeIds.controllerLaunchTemplate),
            Version: getAtt(planeIds.controllerLaunchTemplate, 'LatestVersionNumber'),
          },
          TargetGroupARNs: [ref(planeIds.targetGroup)],
          // The machine's own checks, not the load balancer's: /healthz asks the database, so a database
          // failover would fail every controller at once, and the group would replace them all (each new
          // machine installing Portal again) for a blip the controllers ride out. systemd restarts a
          // controller that exits; the load balancer only stops sending to one that does not answer.
          HealthCheckType: 'EC2',
          HealthCheckGracePeriod: planeTimings.healthCheckGraceSeconds,
          Tags: [{ Key: 'portal:role', Value: 'Controller', PropagateAtLaunch: true }],
        },
      },
    },
    Outputs: {
      [planeOutputs.sealingKeySecret]: {
        Description: 'Secret holding the sealing key of the controllers (keep it: the database is sealed with it)',
        Value: ref(planeIds.sealingKeySecret),
      },
    },
  };
}
