/**
 * The private (VPC interface) endpoints through which an outlet reaches AWS PrivateLink services: one
 * per endpoint of source vpc-endpoint, in the node's subnet and security group.
 */
import type { Endpoint } from '../model.ts';
import { getAtt, ref, select, split, sub, type CfnValue } from './intrinsics.ts';
import { ids, portalIds, type StackContext } from './context.ts';
import type { CfnFragment, CfnOutput, CfnResource } from './template.ts';

/** The three ways a manifest names a PrivateLink service. */
export type PrivateLinkService =
  | { readonly form: 'short'; readonly service: string }
  | { readonly form: 'regional'; readonly region: string; readonly service: string }
  | { readonly form: 'endpoint-service'; readonly name: string };

const regional = /^com\.amazonaws\.([a-z]{2}(?:-[a-z]+)+-[0-9]{1,2})\.(.+)$/;
const endpointService = /^com\.amazonaws\.vpce\.[a-z]{2}(?:-[a-z]+)+-[0-9]{1,2}\.vpce-svc-[0-9a-f]{17}$/;

export function privateLinkService(text: string): PrivateLinkService {
  if (endpointService.test(text)) return { form: 'endpoint-service', name: text };
  const match = regional.exec(text);
  if (match) return { form: 'regional', region: match[1] as string, service: match[2] as string };
  return { form: 'short', service: text };
}

export function privateEndpointFragment(context: StackContext): CfnFragment {
  const resources: Record<string, CfnResource> = {};
  const outputs: Record<string, CfnOutput> = {};
  for (const endpoint of context.endpoints) {
    if (endpoint.source !== 'vpc-endpoint' || !endpoint.service) continue;
    const service = privateLinkService(endpoint.service);
    const id = portalIds.privateEndpoint(endpoint.idPart);
    resources[id] = {
      Type: 'AWS::EC2::VPCEndpoint',
      Properties: {
        VpcId: ref(ids.vpc),
        ServiceName: serviceName(service),
        VpcEndpointType: 'Interface',
        // An AWS service's public name resolves to the endpoint inside the network, and its certificate
        // matches. An endpoint service of another account may have no private name: its own is used.
        PrivateDnsEnabled: service.form !== 'endpoint-service',
        SubnetIds: [ref(ids.subnet)],
        SecurityGroupIds: [ref(ids.nodeSecurityGroup)],
      },
    };
    outputs[portalIds.privateEndpointOutput(endpoint.idPart)] = {
      Description: `Private endpoint of ${endpoint.service}`,
      Value: ref(id),
    };
  }
  return { Resources: resources, Outputs: outputs };
}

function serviceName(service: PrivateLinkService): CfnValue {
  switch (service.form) {
    case 'short':
      return sub(`com.amazonaws.\${AWS::Region}.${service.service}`);
    case 'regional':
      return `com.amazonaws.${service.region}.${service.service}`;
    case 'endpoint-service':
      return service.name;
  }
}

/** The endpoint's value inside the boot script's Fn::Sub: a text, or a variable defined beside it. */
export interface EndpointValue {
  readonly text: string;
  readonly variables: Readonly<Record<string, CfnValue>>;
}

/** The expression (inside the boot script's Fn::Sub) that gives the endpoint's value at boot. */
export function endpointValue(endpoint: Endpoint): EndpointValue {
  if (endpoint.source === 'parameter') return { text: `\${${endpoint.parameter}}`, variables: {} };
  const service = privateLinkService(endpoint.service as string);
  switch (service.form) {
    case 'short':
      return { text: `${service.service}.\${AWS::Region}.\${AWS::URLSuffix}`, variables: {} };
    case 'regional':
      return { text: `${service.service}.${service.region}.\${AWS::URLSuffix}`, variables: {} };
    case 'endpoint-service': {
      // DnsEntries lists "<hosted zone>:<name>" pairs, the endpoint's regional name first.
      const variable = `${portalIds.privateEndpoint(endpoint.idPart)}DnsName`;
      const first = select(0, getAtt(portalIds.privateEndpoint(endpoint.idPart), 'DnsEntries'));
      return { text: `\${${variable}}`, variables: { [variable]: select(1, split(':', first)) } };
    }
  }
}
