/** What every stack fragment needs to know: which node the stack runs and for which use case. */
import { outletPoolMax } from '../../shared/limits.ts';
import type { NodeConfig } from '../../shared/types/node-config.ts';
import type { Endpoint, NodeRole, UseCase } from '../model.ts';

export type { NodeRole } from '../model.ts';

export interface StackContext {
  readonly useCase: UseCase;
  readonly role: NodeRole;
  readonly nodeConfig: NodeConfig;
  /** The private targets' endpoints, once per placeholder: an outlet's; none for an inlet. */
  readonly endpoints: readonly Endpoint[];
  /** The fixed ports of the inlets' direct paths (tcp-inlet.direct), which outlets may be let in on. */
  readonly directPorts: readonly number[];
}

/** Logical ids shared between fragments. */
export const ids = {
  vpc: 'VpcId',
  subnet: 'SubnetId',
  instanceType: 'InstanceType',
  ticket: 'EnrollmentTicket',
  nodeConfig: 'JSONNodeConfig',
  image: 'ImageId',
  installUrl: 'InstallUrl',
  clientCidr: 'ClientCidr',
  outletCidr: 'OutletCidr',
  ticketSecret: 'EnrollmentTicketSecret',
  sealingKeySecret: 'SealingKeySecret',
  nodeSecurityGroup: 'NodeSecurityGroup',
  fileSystem: 'StateFileSystem',
  mountTarget: 'StateMountTarget',
  logGroup: 'StatusLogGroup',
  runtimeEndpoint: 'RuntimeEndpoint',
  launchTemplate: 'NodeLaunchTemplate',
} as const;

/**
 * Every logical id a node stack defines besides the endpoint parameter, which must not reuse one.
 * A test keeps this list in step with the templates.
 */
export const builtInLogicalIds: readonly string[] = [
  ...Object.values(ids),
  'NodeAutoScalingGroup',
  'NodeClientIngress',
  'NodeDirectIngress',
  'NodeInstanceProfile',
  'NodeRole',
  'NodeSecurityGroupSelfIngress',
  'StateMountTargetSecurityGroup',
  'StatusMetricFunction',
  'StatusMetricFunctionRole',
  'StatusMetricPermission',
  'StatusSubscriptionFilter',
  'NodeDownAlarm',
  // The groups of outlet replicas 2 and on (compute.ts replicaGroup).
  ...Array.from({ length: outletPoolMax - 1 }, (_, index) => `NodeAutoScalingGroup${index + 2}`),
];

/** Logical ids a stack defines once per portal; a single portal's idPart is '', which gives the names above. */
export const portalIds = {
  clientIngress: (idPart: string) => `NodeClientIngress${idPart}`,
  privateEndpoint: (idPart: string) => `${ids.runtimeEndpoint}${idPart}`,
  privateEndpointOutput: (idPart: string) => `${ids.runtimeEndpoint}${idPart}Id`,
} as const;

export function capitalized(role: NodeRole): string {
  return role === 'outlet' ? 'Outlet' : 'Inlet';
}
