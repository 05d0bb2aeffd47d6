/** Stack parameters of spec 2.3, with the labels the console shows. */
import type { InstanceTypeManifest } from '../../shared/types/manifest.ts';
import type { Endpoint } from '../model.ts';
import { sortKeys } from '../../shared/serialize.ts';
import type { CfnValue } from './intrinsics.ts';
import { ids, type StackContext } from './context.ts';
import { cfnLimits, type CfnFragment, type CfnParameter } from './template.ts';

export const latestAmazonLinux = '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64';

/** A network the security group may open a port to: empty (none), or an IPv4 CIDR block. */
const optionalCidr = {
  Type: 'String',
  Default: '',
  AllowedPattern: '^$|^[0-9]{1,3}(\\.[0-9]{1,3}){3}/[0-9]{1,2}$',
  ConstraintDescription: 'empty, or a CIDR block such as 10.0.0.0/16',
} as const;

export function parametersFragment(context: StackContext): CfnFragment {
  const { useCase, role, endpoints } = context;
  const privateEndpoints = endpoints.filter((endpoint) => endpoint.source === 'vpc-endpoint').length;
  const endpointsCreated = privateEndpoints > 1 ? 'its private endpoints are' : 'the private endpoint is';
  const ticketKind = role === 'outlet' ? 'outlet.ticket' : 'inlet.ticket';
  const parameters: Record<string, CfnParameter> = {
    [ids.vpc]: {
      Type: 'AWS::EC2::VPC::Id',
      Description:
        role === 'outlet' && privateEndpoints > 0
          ? `Network where the node runs and where ${endpointsCreated} created.`
          : 'Network where the node runs.',
    },
    [ids.subnet]: {
      Type: 'AWS::EC2::Subnet::Id',
      Description: role === 'outlet' ? 'Subnet of the node; it must reach the private target.' : 'Subnet of the node.',
    },
    [ids.instanceType]: instanceTypeParameter(useCase.instanceTypes[role]),
    [ids.ticket]: {
      Type: 'String',
      NoEcho: true,
      MinLength: 1,
      AllowedPattern: '^[A-Za-z0-9._-]+$',
      ConstraintDescription: `the contents of ${ticketKind}, exactly as portal project ticket printed it`,
      Description: `Contents of ${ticketKind}, issued by portal project ticket (one use, 10h in the guide).`,
    },
    [ids.nodeConfig]: {
      Type: 'String',
      MinLength: 2,
      MaxLength: cfnLimits.parameterValueBytes,
      Default: JSON.stringify(sortKeys(context.nodeConfig)),
      Description: `JSON node configuration of the ${role} (${role}.json).`,
    },
    [ids.image]: {
      Type: 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>',
      Default: latestAmazonLinux,
      Description: 'Machine image of the node (latest Amazon Linux 2023 by default).',
    },
    [ids.installUrl]: installUrlParameter(useCase.settings.installUrl),
  };
  if (role === 'inlet') {
    const ports = useCase.portals.map((portal) => portal.inlet.port).join(', ');
    parameters[ids.clientCidr] = {
      ...optionalCidr,
      Description:
        `Network (CIDR) allowed to reach the inlet on port${useCase.portals.length > 1 ? 's' : ''} ${ports}. ` +
        'Empty: only clients on the inlet machine itself.',
    };
  }
  if (context.directPorts.length > 0) {
    parameters[ids.outletCidr] = {
      ...optionalCidr,
      Description:
        `Network (CIDR) the outlet dials the inlet's direct path from, on TCP ${portRange(context.directPorts)}. ` +
        'Empty: nothing is opened and the relay carries the portal.',
    };
  }
  for (const endpoint of endpoints) {
    if (endpoint.source === 'parameter' && endpoint.parameter) {
      parameters[endpoint.parameter] = endpointParameter(endpoint);
    }
  }
  return { Parameters: parameters };
}

/**
 * The installer's address. No default unless the compiler was told one: an address made up here would be
 * presented as real.
 */
export function installUrlParameter(installUrl: string | undefined): CfnParameter {
  return {
    Type: 'String',
    ...(installUrl ? { Default: installUrl } : {}),
    AllowedPattern: '^https://[^\\s\'"]+$',
    MaxLength: 1024,
    ConstraintDescription: 'an https address of install.sh',
    Description: 'Where a machine whose image has no portal downloads the installer from.',
  };
}

function instanceTypeParameter(instanceType: InstanceTypeManifest): CfnParameter {
  const alternatives = instanceType.alternatives ?? [];
  const reason = instanceType.note ? ` (${instanceType.note})` : '';
  const suggestion = alternatives.length > 0 ? ` Suggested alternatives: ${alternatives.join(', ')}.` : '';
  return {
    Type: 'String',
    Default: instanceType.default,
    AllowedPattern: '^[a-z][a-z0-9-]*\\.[a-z0-9]+$',
    ConstraintDescription: 'an EC2 instance type such as m6a.large',
    Description: `EC2 instance type of the node; default ${instanceType.default}${reason}.${suggestion}`,
  };
}

/** Ports as CloudFormation's console reads them: one, or the first and the last of a run. */
export function portRange(ports: readonly number[]): string {
  const low = Math.min(...ports);
  const high = Math.max(...ports);
  return low === high ? String(low) : `${low}-${high}`;
}

function endpointParameter(endpoint: Endpoint): CfnParameter {
  const carriesPort = endpoint.port !== undefined;
  const example = endpoint.example === undefined ? '' : `, such as ${endpoint.example}`;
  return {
    Type: 'String',
    Description: carriesPort
      ? `The ${endpoint.label}${example}.`
      : `The ${endpoint.label}${example}; the port is appended by the configuration.`,
    AllowedPattern: carriesPort ? '^[A-Za-z0-9.-]+:[0-9]{1,5}$' : '^[A-Za-z0-9.-]+$',
    // A DNS name is at most 253 characters, plus :65535.
    MaxLength: 259,
    ConstraintDescription: carriesPort
      ? 'host:port, without a trailing /<database_name>'
      : 'a host name only, without port or path',
  };
}

/** Console labels (spec 2.3 names) and grouping. */
export function parameterInterface(
  parameterIds: readonly string[],
  endpoints: readonly Endpoint[],
): Readonly<Record<string, CfnValue>> {
  const labels: Record<string, string> = {
    [ids.vpc]: 'VPC ID',
    [ids.subnet]: 'Subnet ID',
    [ids.instanceType]: 'EC2 Instance Type',
    [ids.ticket]: 'Enrollment ticket',
    [ids.nodeConfig]: 'JSON Node Configuration',
    [ids.image]: 'Machine image',
    [ids.installUrl]: 'Installer address',
    [ids.clientCidr]: 'Client network',
    [ids.outletCidr]: 'Outlet network',
  };
  const endpointParameters = endpoints.flatMap((endpoint) => (endpoint.parameter ? [endpoint.parameter] : []));
  for (const endpoint of endpoints) {
    if (endpoint.parameter) labels[endpoint.parameter] = capitalize(endpoint.label);
  }
  const node = [ids.ticket, ids.nodeConfig, ...endpointParameters];
  return {
    'AWS::CloudFormation::Interface': {
      ParameterGroups: [
        {
          Label: { default: 'Network' },
          Parameters: [
            ids.vpc,
            ids.subnet,
            ...[ids.clientCidr, ids.outletCidr].filter((id) => parameterIds.includes(id)),
          ],
        },
        { Label: { default: 'Portal node' }, Parameters: node },
        { Label: { default: 'Machine' }, Parameters: [ids.instanceType, ids.image, ids.installUrl] },
      ],
      ParameterLabels: Object.fromEntries(
        parameterIds.filter((id) => id in labels).map((id) => [id, { default: labels[id] as string }]),
      ),
    },
  };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
