/**
 * The control plane as one CloudFormation stack (control-plane/stack.yaml): plane.replicas controllers
 * behind an internet-facing network load balancer, on Amazon RDS for PostgreSQL (or a database of yours),
 * their sealing key in a secret the stack generates; plane.relays relays in the public subnets, which
 * enroll with the relay ticket the administrator stores in the stack's secret. Pure: fragments merged.
 */
import type { UseCase } from '../model.ts';
import { mergeFragments, type CfnTemplate } from '../stack/template.ts';
import { controlPlaneNames, type ControlPlane } from './model.ts';
import { planeControllersFragment } from './stack-controllers.ts';
import { planeDatabaseFragment } from './stack-database.ts';
import { planeLogFragment } from './stack-machines.ts';
import {
  planeDatabase,
  planeIds,
  planeLines,
  planeOutputs,
  planePaths,
  planeStackName,
  planeTimings,
  relayTicketPlaceholder,
} from './stack-names.ts';
import { planeLoadBalancerFragment, planeSecurityGroupsFragment } from './stack-network.ts';
import { planeParameterInterface, planeParametersFragment } from './stack-parameters.ts';
import { planeRelaysFragment } from './stack-relays.ts';

export function controlPlaneStack(plane: ControlPlane, useCase: UseCase): CfnTemplate {
  const { Parameters, Conditions, Resources, Outputs } = mergeFragments([
    planeParametersFragment(useCase),
    planeLogFragment(),
    planeSecurityGroupsFragment(plane),
    planeLoadBalancerFragment(plane),
    planeDatabaseFragment(),
    planeControllersFragment(plane, useCase),
    planeRelaysFragment(plane, useCase),
  ]);
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description:
      `Portal control plane: ${useCase.title} (${plane.replicas} controllers, ${plane.relays} relays; ` +
      `stack name suggestion: ${planeStackName(useCase.usecase)})`,
    Metadata: planeParameterInterface(),
    Parameters,
    Conditions,
    Resources,
    Outputs,
  };
}

/** What the guide's stack section (templates/control-plane-cloudformation.md.hbs) names. */
export function stackGuideFacts(plane: ControlPlane, useCase: UseCase): Record<string, unknown> {
  const template = controlPlaneStack(plane, useCase);
  const parameter = (id: string) => template.Parameters[id];
  return {
    stackName: planeStackName(useCase.usecase),
    ids: planeIds,
    outputs: planeOutputs,
    lines: planeLines,
    paths: planePaths,
    database: planeDatabase,
    names: controlPlaneNames,
    installUrl: useCase.settings.installUrl ?? '',
    defaults: {
      controllerInstanceType: parameter(planeIds.controllerInstanceType)?.Default,
      relayInstanceType: parameter(planeIds.relayInstanceType)?.Default,
      databaseInstanceClass: parameter(planeIds.databaseInstanceClass)?.Default,
    },
    ticketSeconds: planeTimings.ticketSeconds,
    ticketWaitMinutes: (planeTimings.ticketAttempts * planeTimings.ticketSeconds) / 60,
    passwordCheckSeconds: planeTimings.passwordCheckSeconds,
    controllerBootMinutes: Number(/^PT(\d+)M$/.exec(planeTimings.controllerBootTimeout)?.[1]),
    backupRetentionDays: planeDatabase.backupRetentionDays,
    relayTicketPlaceholder,
    exampleUrl:
      `postgres://${controlPlaneNames.databaseUser}@db.example.net:${planeDatabase.port}/` +
      `${controlPlaneNames.databaseName}?sslmode=verify-full&sslrootcert=${planeDatabase.caBundleFile}`,
  };
}
