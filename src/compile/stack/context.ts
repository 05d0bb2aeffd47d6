/** What every stack fragment needs to know: which node the stack runs and for which use case. */
import type { EndpointManifest, UseCaseManifest } from '../../shared/types/manifest.ts';
import type { NodeConfig } from '../../shared/types/node-config.ts';
import { parseHostPort } from '../../shared/address.ts';

export type NodeRole = 'outlet' | 'inlet';

export interface StackContext {
  readonly manifest: UseCaseManifest;
  readonly role: NodeRole;
  readonly nodeConfig: NodeConfig;
  /** The private target's endpoint: outlets that have one. */
  readonly endpoint: EndpointManifest | undefined;
  /**
   * The fixed port of the inlet's direct path (tcp-inlet.direct), which outlets may be let in on; none for an
   * outlet or a system-chosen port.
   */
  readonly directPort: number | undefined;
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
];

/** The port a node configuration's direct path listens on, when it names one (host:port, not 0). */
export function directPortOf(nodeConfig: NodeConfig): number | undefined {
  const direct = nodeConfig['tcp-inlet']?.direct;
  if (typeof direct !== 'string') return undefined;
  const parsed = parseHostPort(direct);
  return parsed.ok ? parsed.address.port : undefined;
}

export function capitalized(role: NodeRole): string {
  return role === 'outlet' ? 'Outlet' : 'Inlet';
}
