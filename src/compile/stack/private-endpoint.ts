/** The private (VPC) endpoint through which a foundation-model outlet reaches the runtime API. */
import { ref, sub } from './intrinsics.ts';
import { ids, type StackContext } from './context.ts';
import type { CfnFragment } from './template.ts';

export function privateEndpointFragment(context: StackContext): CfnFragment {
  const endpoint = context.endpoint;
  if (endpoint?.source !== 'vpc-endpoint' || !endpoint.service) return {};
  return {
    Resources: {
      [ids.runtimeEndpoint]: {
        Type: 'AWS::EC2::VPCEndpoint',
        Properties: {
          VpcId: ref(ids.vpc),
          ServiceName: sub(`com.amazonaws.\${AWS::Region}.${endpoint.service}`),
          VpcEndpointType: 'Interface',
          // The service's public name resolves to the endpoint inside the network, and its certificate matches.
          PrivateDnsEnabled: true,
          SubnetIds: [ref(ids.subnet)],
          SecurityGroupIds: [ref(ids.nodeSecurityGroup)],
        },
      },
    },
    Outputs: {
      RuntimeEndpointId: { Description: `Private endpoint of ${endpoint.service}`, Value: ref(ids.runtimeEndpoint) },
    },
  };
}

/** The expression (inside the boot script's Fn::Sub) that gives the endpoint's value at boot. */
export function endpointValueExpression(context: StackContext): string | undefined {
  const endpoint = context.endpoint;
  if (!endpoint) return undefined;
  if (endpoint.source === 'parameter') return `\${${endpoint.parameter}}`;
  return `${endpoint.service}.\${AWS::Region}.\${AWS::URLSuffix}`;
}
