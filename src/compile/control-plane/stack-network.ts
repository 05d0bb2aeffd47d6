/**
 * Who may reach what: the controllers only through their internet-facing network load balancer, on the
 * controllers' port (their status port only from the load balancer's health checks); the database only
 * from the controllers; the relays on the relays' port from anywhere, their status port on loopback.
 */
import { getAtt, ref, sub, type CfnValue } from '../stack/intrinsics.ts';
import { tags, type CfnFragment, type CfnResource } from '../stack/template.ts';
import { controlPlaneNames, type ControlPlane } from './model.ts';
import { planeDatabase, planeIds, planeOutputs } from './stack-names.ts';

const anywhere = '0.0.0.0/0';
const nfsPort = 2049;

const tcpFrom = (port: number, source: Readonly<Record<string, CfnValue>>, why: string): CfnValue => ({
  IpProtocol: 'tcp',
  FromPort: port,
  ToPort: port,
  ...source,
  Description: why,
});

const group = (description: string, ingress: readonly CfnValue[]): CfnResource => ({
  Type: 'AWS::EC2::SecurityGroup',
  Properties: {
    GroupDescription: description,
    VpcId: ref(planeIds.vpc),
    SecurityGroupIngress: ingress,
  },
});

const groupId = (id: string) => ({ SourceSecurityGroupId: getAtt(id, 'GroupId') });

export function planeSecurityGroupsFragment(plane: ControlPlane): CfnFragment {
  const { port, relayPort } = plane;
  return {
    Resources: {
      [planeIds.loadBalancerSecurityGroup]: group('Portal control plane: the load balancer of the controllers', [
        tcpFrom(port, { CidrIp: anywhere }, 'Nodes, relays and administrators dial the controllers'),
      ]),
      // With client addresses preserved, a rule naming the load balancer's group still admits what it forwards
      // (Elastic Load Balancing: "Update the security groups for your Network Load Balancer").
      [planeIds.controllerSecurityGroup]: group('Portal control plane: the controllers', [
        tcpFrom(port, groupId(planeIds.loadBalancerSecurityGroup), 'Through the load balancer only'),
        tcpFrom(
          controlPlaneNames.statusPort,
          groupId(planeIds.loadBalancerSecurityGroup),
          "The load balancer's health checks (GET /healthz)",
        ),
      ]),
      [planeIds.databaseSecurityGroup]: {
        Type: 'AWS::EC2::SecurityGroup',
        Condition: planeIds.createDatabase,
        Properties: group('Portal control plane: the database', [
          tcpFrom(planeDatabase.port, groupId(planeIds.controllerSecurityGroup), 'The controllers only'),
        ]).Properties,
      },
      [planeIds.relaySecurityGroup]: group('Portal control plane: the relays', [
        tcpFrom(relayPort, { CidrIp: anywhere }, 'Nodes dial the relays'),
      ]),
      [planeIds.relayStateSecurityGroup]: group('Portal control plane: the file system of the relays', [
        tcpFrom(nfsPort, groupId(planeIds.relaySecurityGroup), 'NFS from the relays only'),
      ]),
    },
    Outputs: {
      [planeOutputs.controllerSecurityGroup]: {
        Description: "Security group of the controllers: a database of your own must admit it on the database's port",
        Value: getAtt(planeIds.controllerSecurityGroup, 'GroupId'),
      },
    },
  };
}

export function planeLoadBalancerFragment(plane: ControlPlane): CfnFragment {
  return {
    Resources: {
      [planeIds.loadBalancer]: {
        Type: 'AWS::ElasticLoadBalancingV2::LoadBalancer',
        Properties: {
          Type: 'network',
          Scheme: 'internet-facing',
          Subnets: ref(planeIds.publicSubnets),
          SecurityGroups: [getAtt(planeIds.loadBalancerSecurityGroup, 'GroupId')],
          // Any zone's node of the load balancer reaches every healthy controller.
          LoadBalancerAttributes: [{ Key: 'load_balancing.cross_zone.enabled', Value: 'true' }],
          Tags: tags({ Name: sub('${AWS::StackName}-controllers') }),
        },
      },
      [planeIds.targetGroup]: {
        Type: 'AWS::ElasticLoadBalancingV2::TargetGroup',
        Properties: {
          VpcId: ref(planeIds.vpc),
          TargetType: 'instance',
          Protocol: 'TCP',
          Port: plane.port,
          HealthCheckProtocol: 'HTTP',
          HealthCheckPort: String(controlPlaneNames.statusPort),
          HealthCheckPath: '/healthz',
          HealthCheckIntervalSeconds: 10,
          HealthyThresholdCount: 2,
          UnhealthyThresholdCount: 2,
        },
      },
      [planeIds.listener]: {
        Type: 'AWS::ElasticLoadBalancingV2::Listener',
        Properties: {
          LoadBalancerArn: ref(planeIds.loadBalancer),
          Port: plane.port,
          Protocol: 'TCP',
          DefaultActions: [{ Type: 'forward', TargetGroupArn: ref(planeIds.targetGroup) }],
        },
      },
    },
    Outputs: {
      [planeOutputs.controllerAddress]: {
        Description: 'Where nodes, relays and administrators reach the controllers (portal enroll --controller)',
        Value: sub(`\${${planeIds.loadBalancer}.DNSName}:${plane.port}`),
      },
    },
  };
}
