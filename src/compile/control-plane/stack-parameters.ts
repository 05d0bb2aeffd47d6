/**
 * The control plane stack's parameters, its one condition (create the database, or use the one whose
 * secret is given) and the console's grouping of the parameters.
 */
import { equals, ref, type CfnValue } from '../stack/intrinsics.ts';
import { installUrlParameter, latestAmazonLinux } from '../stack/parameters.ts';
import type { CfnFragment, CfnParameter } from '../stack/template.ts';
import type { UseCase } from '../model.ts';
import { planeDatabase, planeIds, planeInstanceTypes } from './stack-names.ts';

const instanceType = (what: string, fallback: string, why: string): CfnParameter => ({
  Type: 'String',
  Default: fallback,
  AllowedPattern: '^[a-z][a-z0-9-]*\\.[a-z0-9]+$',
  ConstraintDescription: 'an EC2 instance type such as m6a.large',
  Description: `EC2 instance type of ${what}; default ${fallback} (${why}).`,
});

export function planeParametersFragment(useCase: UseCase): CfnFragment {
  const parameters: Record<string, CfnParameter> = {
    [planeIds.vpc]: { Type: 'AWS::EC2::VPC::Id', Description: 'Network of the control plane.' },
    [planeIds.publicSubnets]: {
      Type: 'List<AWS::EC2::Subnet::Id>',
      Description:
        'Two or more public subnets (routed to an internet gateway) in different Availability Zones: the ' +
        "load balancer's, and the relays' (the relays run in the first two, where their file system is mounted).",
    },
    [planeIds.privateSubnets]: {
      Type: 'List<AWS::EC2::Subnet::Id>',
      Description:
        'Two or more subnets in the Availability Zones of the public ones, with a route to the internet ' +
        "(a NAT gateway): the controllers' and the database's.",
    },
    [planeIds.controllerInstanceType]: instanceType(
      'each controller',
      planeInstanceTypes.controller,
      'controllers coordinate and carry no portal',
    ),
    [planeIds.relayInstanceType]: instanceType(
      'each relay',
      useCase.instanceTypes.outlet.default,
      "the use case's node type: a relay carries the bytes of the portals it splices",
    ),
    [planeIds.databaseSecretArn]: {
      Type: 'String',
      Default: '',
      MaxLength: 256,
      AllowedPattern: '^$|^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@!-]+$',
      ConstraintDescription: 'empty, or the ARN of a Secrets Manager secret',
      Description:
        'Empty: the stack creates Amazon RDS for PostgreSQL (Multi-AZ, encrypted). Else the ARN of a secret ' +
        `holding {"${planeDatabase.urlKey}": "postgres://portal@HOST:5432/portal?sslmode=verify-full", ` +
        `"${planeDatabase.passwordKey}": "..."} for a database of your own.`,
    },
    [planeIds.databaseInstanceClass]: {
      Type: 'String',
      Default: planeDatabase.defaultInstanceClass,
      AllowedPattern: '^db\\.[a-z0-9-]+\\.[a-z0-9]+$',
      ConstraintDescription: 'an RDS instance class such as db.m6g.large',
      Description: 'RDS instance class of the database the stack creates (unused with DatabaseSecretArn).',
    },
    [planeIds.image]: {
      Type: 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>',
      Default: latestAmazonLinux,
      Description: 'Machine image of the controllers and relays (latest Amazon Linux 2023 by default).',
    },
    [planeIds.installUrl]: installUrlParameter(useCase.settings.installUrl),
  };
  return {
    Parameters: parameters,
    Conditions: { [planeIds.createDatabase]: equals(ref(planeIds.databaseSecretArn), '') },
  };
}

/** The console's grouping and labels of the parameters. */
export function planeParameterInterface(): Readonly<Record<string, CfnValue>> {
  const labels: Record<string, string> = {
    [planeIds.vpc]: 'VPC ID',
    [planeIds.publicSubnets]: 'Public subnets',
    [planeIds.privateSubnets]: 'Private subnets',
    [planeIds.databaseSecretArn]: 'Database secret (empty: create the database)',
    [planeIds.databaseInstanceClass]: 'Database instance class',
    [planeIds.controllerInstanceType]: 'Controller instance type',
    [planeIds.relayInstanceType]: 'Relay instance type',
    [planeIds.image]: 'Machine image',
    [planeIds.installUrl]: 'Installer address',
  };
  return {
    'AWS::CloudFormation::Interface': {
      ParameterGroups: [
        { Label: { default: 'Network' }, Parameters: [planeIds.vpc, planeIds.publicSubnets, planeIds.privateSubnets] },
        {
          Label: { default: 'Database' },
          Parameters: [planeIds.databaseSecretArn, planeIds.databaseInstanceClass],
        },
        {
          Label: { default: 'Machines' },
          Parameters: [
            planeIds.controllerInstanceType,
            planeIds.relayInstanceType,
            planeIds.image,
            planeIds.installUrl,
          ],
        },
      ],
      ParameterLabels: Object.fromEntries(Object.entries(labels).map(([id, label]) => [id, { default: label }])),
    },
  };
}
