/**
 * The node's security group (spec 2.4): egress to the internet; for a private-endpoint outlet, ingress
 * within the group; for an inlet, its port opened to the client network when one is given, and its
 * direct path opened to the outlet's network when one is given (else the relay carries the portal).
 */
import { equals, not, ref, sub, type CfnValue } from './intrinsics.ts';
import { capitalized, ids, portalIds, type StackContext } from './context.ts';
import { tags, type CfnFragment, type CfnResource } from './template.ts';

export function networkFragment(context: StackContext): CfnFragment {
  const resources: Record<string, CfnResource> = {
    [ids.nodeSecurityGroup]: {
      Type: 'AWS::EC2::SecurityGroup',
      Properties: {
        GroupDescription: `Portal ${context.role} node: outbound only`,
        VpcId: ref(ids.vpc),
        SecurityGroupEgress: [
          { IpProtocol: '-1', CidrIp: '0.0.0.0/0', Description: 'The node dials out to the controller and its target' },
        ],
        Tags: tags({ Name: sub(`\${AWS::StackName}-${context.role}`) }),
      },
    },
  };
  if (context.endpoints.some((endpoint) => endpoint.source === 'vpc-endpoint')) {
    // The private endpoint shares the node's group; members must reach each other on 443.
    resources.NodeSecurityGroupSelfIngress = {
      Type: 'AWS::EC2::SecurityGroupIngress',
      Properties: {
        GroupId: ref(ids.nodeSecurityGroup),
        IpProtocol: '-1',
        SourceSecurityGroupId: ref(ids.nodeSecurityGroup),
        Description: `${capitalized(context.role)} node and private endpoint reach each other`,
      },
    };
  }
  if (context.role === 'inlet') {
    for (const portal of context.useCase.portals) {
      resources[portalIds.clientIngress(portal.idPart)] = {
        Type: 'AWS::EC2::SecurityGroupIngress',
        Condition: 'HasClientNetwork',
        Properties: {
          GroupId: ref(ids.nodeSecurityGroup),
          IpProtocol: 'tcp',
          FromPort: portal.inlet.port,
          ToPort: portal.inlet.port,
          CidrIp: ref(ids.clientCidr),
          Description: context.useCase.listed ? `Clients of the inlet of ${portal.name}` : 'Clients of the inlet',
        },
      };
    }
  }
  const conditions: Record<string, CfnValue> = {};
  if (context.role === 'inlet') conditions.HasClientNetwork = not(equals(ref(ids.clientCidr), ''));
  if (context.directPorts.length > 0) {
    conditions.HasOutletNetwork = not(equals(ref(ids.outletCidr), ''));
    resources.NodeDirectIngress = {
      Type: 'AWS::EC2::SecurityGroupIngress',
      Condition: 'HasOutletNetwork',
      Properties: {
        GroupId: ref(ids.nodeSecurityGroup),
        IpProtocol: 'tcp',
        FromPort: Math.min(...context.directPorts),
        ToPort: Math.max(...context.directPorts),
        CidrIp: ref(ids.outletCidr),
        Description: `Outlets dialling the direct path of the inlet${context.directPorts.length > 1 ? 's' : ''}`,
      },
    };
  }
  return {
    ...(Object.keys(conditions).length > 0 ? { Conditions: conditions } : {}),
    Resources: resources,
    Outputs: { NodeSecurityGroupId: { Description: 'Security group of the node', Value: ref(ids.nodeSecurityGroup) } },
  };
}
