/**
 * The control plane's CloudFormation stack (control-plane/stack.yaml) and the guide's section that
 * deploys it: checked against the CloudFormation resource specification, printed and parsed back, held to
 * CloudFormation's and EC2's limits at the schema's largest values, and read for what it opens to whom.
 */
import assert from 'node:assert/strict';
import { compileUseCase } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import { resolveUseCase } from '../../src/compile/model.ts';
import { controlPlaneNames, type ControlPlane } from '../../src/compile/control-plane/model.ts';
import { controlPlaneStack } from '../../src/compile/control-plane/stack.ts';
import { controlPlaneStackViolations, userDataBounds } from '../../src/compile/control-plane/stack-limits.ts';
import {
  planeIds,
  planeOutputs,
  relayTicketPlaceholder,
  ticketPattern,
} from '../../src/compile/control-plane/stack-names.ts';
import { parseCfnYaml, printCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { stackLimitViolations } from '../../src/compile/stack/limits.ts';
import { cfnLimits, type CfnTemplate } from '../../src/compile/stack/template.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import { checkTemplate, specificationVersion } from '../support/cfn-spec-check.ts';
import { artifactText } from '../support/usecases.ts';
import { loadUseCase } from './resolved-use-cases.ts';

type Resource = {
  Type: string;
  Properties: Record<string, unknown>;
  Condition?: string;
  DependsOn?: string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  CreationPolicy?: unknown;
  UpdatePolicy?: unknown;
};
type Template = {
  Parameters: Record<string, Record<string, unknown>>;
  Conditions: Record<string, unknown>;
  Resources: Record<string, Resource>;
  Outputs: Record<string, { Value: unknown; Condition?: string }>;
  Metadata: Record<string, unknown>;
};
type Ingress = { FromPort: number; ToPort: number; CidrIp?: string; SourceSecurityGroupId?: unknown };

const compiled = (): Template => parseCfnYaml(artifactText('postgres', 'control-plane/stack.yaml')) as Template;

/** The postgres use case with `plane` in place of its control plane's values, and another title if given. */
function planeOf(plane: Partial<ControlPlane>, title?: string) {
  const useCase = loadUseCase('postgres');
  const resolved: ControlPlane = { ...(useCase.controlPlane as ControlPlane), ...plane };
  return { plane: resolved, useCase: { ...useCase, ...(title === undefined ? {} : { title }) } };
}

function stackOf(plane: Partial<ControlPlane>, title?: string): CfnTemplate {
  const given = planeOf(plane, title);
  return controlPlaneStack(given.plane, given.useCase);
}

const resource = (template: Template, id: string): Resource => {
  const found = template.Resources[id];
  assert.ok(found, `the stack defines ${id}`);
  return found;
};
const ingressOf = (template: Template, id: string) =>
  resource(template, id).Properties.SecurityGroupIngress as Ingress[];
const groupIdOf = (id: string) => ({ 'Fn::GetAtt': [id, 'GroupId'] });
const statementsOf = (template: Template, role: string) =>
  (
    resource(template, role).Properties.Policies as {
      PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] };
    }[]
  ).flatMap((policy) => policy.PolicyDocument.Statement);
const userDataOf = (template: Template, id: string): string => {
  const data = resource(template, id).Properties.LaunchTemplateData as {
    UserData: { 'Fn::Base64': { 'Fn::Sub': string | [string, unknown] } };
  };
  const sub = data.UserData['Fn::Base64']['Fn::Sub'];
  return typeof sub === 'string' ? sub : sub[0];
};

describe('the control plane stack (control-plane/stack.yaml)', () => {
  it(`conforms to the CloudFormation resource specification (${specificationVersion})`, () => {
    assert.deepEqual(checkTemplate(compiled()), []);
    assert.deepEqual(checkTemplate(JSON.parse(JSON.stringify(stackOf({ replicas: 9, relays: 9 }))) as Template), []);
  });

  it('parses back to the same object it was printed from, intrinsics in short form', () => {
    const built = stackOf({});
    const printed = printCfnYaml(built);
    assert.equal(artifactText('postgres', 'control-plane/stack.yaml'), printed, 'the compiled file is this stack');
    assert.deepEqual(parseCfnYaml(printed), JSON.parse(JSON.stringify(built)));
    for (const form of ['!Ref VpcId', '!If', '!Select', '!GetAtt', '!Equals']) assert.ok(printed.includes(form), form);
  });

  it('takes the network, machines, installer and an optional database secret as parameters of AWS types', () => {
    const { Parameters, Conditions, Metadata } = compiled();
    assert.equal(Parameters.VpcId?.Type, 'AWS::EC2::VPC::Id');
    assert.equal(Parameters.PublicSubnetIds?.Type, 'List<AWS::EC2::Subnet::Id>');
    assert.equal(Parameters.PrivateSubnetIds?.Type, 'List<AWS::EC2::Subnet::Id>');
    assert.equal(Parameters.ImageId?.Type, 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>');
    assert.equal(Parameters.ControllerInstanceType?.Default, 'm6a.large');
    assert.equal(Parameters.RelayInstanceType?.Default, 'm6a.8xlarge', "the use case's node type");
    assert.equal(Parameters.InstallUrl?.AllowedPattern, '^https://[^\\s\'"]+$', 'as the node stacks take it');
    const secret = Parameters.DatabaseSecretArn as { Default: string; AllowedPattern: string };
    assert.equal(secret.Default, '', 'empty: the stack creates the database');
    const pattern = new RegExp(secret.AllowedPattern);
    for (const good of ['', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/db-AbCdEf'])
      assert.ok(pattern.test(good), good);
    for (const bad of ['portal-db', 'arn:aws:s3:::bucket', 'arn:aws:secretsmanager:eu-west-1:1:secret:x'])
      assert.ok(!pattern.test(bad), bad);
    assert.deepEqual(Conditions, { CreateDatabase: { 'Fn::Equals': [{ Ref: 'DatabaseSecretArn' }, ''] } });
    const face = Metadata['AWS::CloudFormation::Interface'] as {
      ParameterGroups: { Parameters: string[] }[];
      ParameterLabels: Record<string, unknown>;
    };
    const grouped = face.ParameterGroups.flatMap((group) => group.Parameters);
    assert.deepEqual([...grouped].sort(), Object.keys(Parameters).sort(), 'the console groups every parameter');
    assert.deepEqual(Object.keys(face.ParameterLabels).sort(), Object.keys(Parameters).sort());
  });

  it('creates Multi-AZ encrypted RDS, its password in Secrets Manager only, when no database secret is given', () => {
    const template = compiled();
    const database = resource(template, planeIds.database);
    assert.equal(database.Condition, 'CreateDatabase');
    assert.equal(database.DeletionPolicy, 'Snapshot');
    assert.equal(database.UpdateReplacePolicy, 'Snapshot');
    assert.equal(database.Properties.Engine, 'postgres');
    assert.equal(database.Properties.MultiAZ, true);
    assert.equal(database.Properties.StorageEncrypted, true);
    assert.equal(database.Properties.ManageMasterUserPassword, true);
    assert.equal(database.Properties.MasterUserPassword, undefined, 'no password in the template');
    assert.equal(database.Properties.PubliclyAccessible, false);
    assert.equal(database.Properties.MasterUsername, controlPlaneNames.databaseUser);
    assert.equal(database.Properties.DBName, controlPlaneNames.databaseName);
    assert.deepEqual(database.Properties.DBSubnetGroupName, { Ref: planeIds.databaseSubnetGroup });
    for (const id of [planeIds.databaseSubnetGroup, planeIds.databaseSecurityGroup])
      assert.equal(resource(template, id).Condition, 'CreateDatabase', id);
    assert.deepEqual(resource(template, planeIds.databaseSubnetGroup).Properties.SubnetIds, {
      Ref: 'PrivateSubnetIds',
    });
    // The controllers read the RDS secret, or the one given.
    const chosen = {
      'Fn::If': [
        'CreateDatabase',
        { 'Fn::GetAtt': ['Database', 'MasterUserSecret.SecretArn'] },
        { Ref: 'DatabaseSecretArn' },
      ],
    };
    const reads = statementsOf(template, planeIds.controllerRole).find(
      (statement) => statement.Action === 'secretsmanager:GetSecretValue',
    );
    assert.deepEqual(reads?.Resource, [{ Ref: planeIds.sealingKeySecret }, chosen]);
    assert.deepEqual(template.Outputs[planeOutputs.databaseSecret]?.Value, chosen);
    assert.equal(template.Outputs[planeOutputs.databaseEndpoint]?.Condition, 'CreateDatabase');
  });

  it("generates the controllers' sealing key into a kept secret that only the controllers' role reads", () => {
    const template = compiled();
    const secret = resource(template, planeIds.sealingKeySecret);
    assert.deepEqual(secret.Properties.GenerateSecretString, { PasswordLength: 48, ExcludePunctuation: true });
    assert.equal(secret.Properties.SecretString, undefined, 'generated by Secrets Manager, not in the template');
    assert.equal(secret.DeletionPolicy, 'Retain');
    assert.equal(secret.UpdateReplacePolicy, 'Retain');
    const readers = Object.keys(template.Resources).filter(
      (id) =>
        template.Resources[id]?.Type === 'AWS::IAM::Role' &&
        JSON.stringify(statementsOf(template, id)).includes(`"Ref":"${planeIds.sealingKeySecret}"`),
    );
    assert.deepEqual(readers, [planeIds.controllerRole]);
    const boot = userDataOf(template, planeIds.controllerLaunchTemplate);
    assert.match(boot, /^SEALING_KEY_SECRET='\$\{ControllerSealingKeySecret\}'$/m, 'the boot names the secret only');
    assert.deepEqual(template.Outputs[planeOutputs.sealingKeySecret]?.Value, { Ref: planeIds.sealingKeySecret });
  });

  it('runs the replicas behind an internet-facing NLB that checks GET /healthz on the status port', () => {
    const template = compiled();
    const group = resource(template, planeIds.controllerGroup);
    assert.deepEqual(
      [group.Properties.MinSize, group.Properties.MaxSize, group.Properties.DesiredCapacity],
      ['3', '3', '3'],
    );
    assert.deepEqual(group.Properties.VPCZoneIdentifier, { Ref: 'PrivateSubnetIds' });
    assert.deepEqual(group.Properties.TargetGroupARNs, [{ Ref: planeIds.targetGroup }]);
    // EC2's checks replace a machine; /healthz, which asks the database, only routes (a failover would fail all).
    assert.equal(group.Properties.HealthCheckType, 'EC2');
    assert.deepEqual(group.CreationPolicy, { ResourceSignal: { Count: 3, Timeout: 'PT30M' } });
    assert.deepEqual(group.UpdatePolicy, {
      AutoScalingRollingUpdate: {
        MinInstancesInService: 2,
        MaxBatchSize: 1,
        WaitOnResourceSignals: true,
        PauseTime: 'PT30M',
      },
    });
    const balancer = resource(template, planeIds.loadBalancer).Properties;
    assert.equal(balancer.Type, 'network');
    assert.equal(balancer.Scheme, 'internet-facing');
    assert.deepEqual(balancer.Subnets, { Ref: 'PublicSubnetIds' });
    const listener = resource(template, planeIds.listener).Properties;
    assert.deepEqual([listener.Protocol, listener.Port], ['TCP', 4000]);
    const target = resource(template, planeIds.targetGroup).Properties;
    assert.deepEqual(
      [
        target.Protocol,
        target.Port,
        target.TargetType,
        target.HealthCheckProtocol,
        target.HealthCheckPort,
        target.HealthCheckPath,
      ],
      ['TCP', 4000, 'instance', 'HTTP', String(controlPlaneNames.statusPort), '/healthz'],
    );
    const data = resource(template, planeIds.controllerLaunchTemplate).Properties.LaunchTemplateData as Record<
      string,
      unknown
    >;
    assert.deepEqual(data.MetadataOptions, { HttpTokens: 'required' }, 'IMDSv2 only');
    assert.deepEqual(template.Outputs[planeOutputs.controllerAddress]?.Value, {
      'Fn::Sub': '${ControllerLoadBalancer.DNSName}:4000',
    });
  });

  it('runs each relay in a group of one tagged with its number, a public address, its identity on kept EFS', () => {
    const template = compiled();
    const groups = Object.keys(template.Resources).filter((id) => id.startsWith('RelayGroup'));
    assert.deepEqual(groups, ['RelayGroup1', 'RelayGroup2']);
    const subnets = [0, 1].map((index) => ({ 'Fn::Select': [String(index), { Ref: 'PublicSubnetIds' }] }));
    for (const [index, id] of groups.entries()) {
      const group = resource(template, id);
      assert.deepEqual(group.Properties.VPCZoneIdentifier, subnets);
      assert.deepEqual(group.Properties.Tags, [
        { Key: 'PortalReplica', Value: String(index + 1), PropagateAtLaunch: true },
      ]);
      assert.deepEqual(
        group.DependsOn,
        ['RelayMountTarget1', 'RelayMountTarget2', ...(index > 0 ? [`RelayGroup${index}`] : [])],
        'its file system is mountable first, and the relay before it is replaced first',
      );
      assert.deepEqual(group.CreationPolicy, { ResourceSignal: { Count: 1, Timeout: 'PT20M' } });
      assert.deepEqual(group.UpdatePolicy, {
        AutoScalingRollingUpdate: {
          MinInstancesInService: 0,
          MaxBatchSize: 1,
          WaitOnResourceSignals: true,
          PauseTime: 'PT20M',
        },
      });
    }
    for (const [index, id] of ['RelayMountTarget1', 'RelayMountTarget2'].entries())
      assert.deepEqual(resource(template, id).Properties.SubnetId, subnets[index]);
    const files = resource(template, planeIds.relayFileSystem);
    assert.equal(files.Properties.Encrypted, true);
    assert.deepEqual([files.DeletionPolicy, files.UpdateReplacePolicy], ['Retain', 'Retain']);
    const key = resource(template, planeIds.relaySealingKeySecret);
    assert.deepEqual([key.DeletionPolicy, key.Properties.SecretString], ['Retain', undefined]);
    const data = resource(template, planeIds.relayLaunchTemplate).Properties.LaunchTemplateData as Record<
      string,
      unknown
    >;
    assert.deepEqual(data.NetworkInterfaces, [
      { DeviceIndex: 0, AssociatePublicIpAddress: true, Groups: [groupIdOf(planeIds.relaySecurityGroup)] },
    ]);
    assert.deepEqual(data.MetadataOptions, { HttpTokens: 'required' });
    const ticket = resource(template, planeIds.relayTicketSecret).Properties.SecretString;
    assert.equal(ticket, relayTicketPlaceholder);
    assert.ok(!new RegExp(ticketPattern).test(relayTicketPlaceholder), 'the placeholder is never taken for a ticket');
  });

  it('opens the controllers only through the load balancer, the database only to them, relays on their port', () => {
    const template = compiled();
    const open = Object.entries(template.Resources)
      .filter(([, found]) => found.Type === 'AWS::EC2::SecurityGroup')
      .flatMap(([id]) =>
        ingressOf(template, id)
          .filter((rule) => rule.CidrIp !== undefined)
          .map((rule) => [id, rule.FromPort, rule.CidrIp]),
      );
    assert.deepEqual(open, [
      [planeIds.loadBalancerSecurityGroup, 4000, '0.0.0.0/0'],
      [planeIds.relaySecurityGroup, 4100, '0.0.0.0/0'],
    ]);
    const sources = (id: string) =>
      ingressOf(template, id).map((rule) => [rule.FromPort, rule.ToPort, rule.SourceSecurityGroupId]);
    assert.deepEqual(sources(planeIds.controllerSecurityGroup), [
      [4000, 4000, groupIdOf(planeIds.loadBalancerSecurityGroup)],
      [controlPlaneNames.statusPort, controlPlaneNames.statusPort, groupIdOf(planeIds.loadBalancerSecurityGroup)],
    ]);
    assert.deepEqual(sources(planeIds.databaseSecurityGroup), [
      [5432, 5432, groupIdOf(planeIds.controllerSecurityGroup)],
    ]);
    assert.deepEqual(sources(planeIds.relayStateSecurityGroup), [[2049, 2049, groupIdOf(planeIds.relaySecurityGroup)]]);
    assert.deepEqual(resource(template, planeIds.loadBalancer).Properties.SecurityGroups, [
      groupIdOf(planeIds.loadBalancerSecurityGroup),
    ]);
    const relayBoot = userDataOf(template, planeIds.relayLaunchTemplate);
    assert.match(relayBoot, new RegExp(`--status-listen 127\\.0\\.0\\.1:${controlPlaneNames.relayStatusPort} `));
  });

  it("outputs the controllers' address, the log group, the relay ticket's secret and the sealing key's", () => {
    const { Outputs } = compiled();
    assert.deepEqual(Outputs.LogGroupName?.Value, { Ref: planeIds.logGroup });
    assert.deepEqual(Outputs.RelayTicketSecretArn?.Value, { Ref: planeIds.relayTicketSecret });
    assert.deepEqual(Outputs.SealingKeySecretArn?.Value, { Ref: planeIds.sealingKeySecret });
    assert.ok(Outputs.ControllerAddress);
    assert.deepEqual(Object.keys(Outputs).sort(), Object.values(planeOutputs).sort());
  });

  it("follows the manifest's counts and ports", () => {
    const template = JSON.parse(
      JSON.stringify(stackOf({ replicas: 5, relays: 4, port: 4500, relayPort: 4600 })),
    ) as Template;
    assert.deepEqual(checkTemplate(template), []);
    assert.equal(resource(template, planeIds.controllerGroup).Properties.DesiredCapacity, '5');
    assert.equal(Object.keys(template.Resources).filter((id) => id.startsWith('RelayGroup')).length, 4);
    assert.equal(resource(template, planeIds.listener).Properties.Port, 4500);
    assert.equal(resource(template, planeIds.targetGroup).Properties.Port, 4500);
    assert.equal(ingressOf(template, planeIds.relaySecurityGroup)[0]?.FromPort, 4600);
    assert.match(userDataOf(template, planeIds.controllerLaunchTemplate), / --listen 0\.0\.0\.0:4500 /);
    assert.match(userDataOf(template, planeIds.relayLaunchTemplate), / --listen 0\.0\.0\.0:4600 /);
  });

  it("stays within CloudFormation's and EC2's limits, at the schema's largest counts and longest title too", () => {
    for (const [plane, title] of [
      [{}, undefined],
      [{ replicas: 9, relays: 9 }, 'é'.repeat(80)],
    ] as const) {
      const given = planeOf(plane, title);
      assert.deepEqual(controlPlaneStackViolations(given.plane, given.useCase), []);
      const template = controlPlaneStack(given.plane, given.useCase);
      // About 38 KB for the manifest's 3 and 2, 43.5 KB for 9 and 9.
      const body = Buffer.byteLength(printCfnYaml(template));
      assert.ok(body <= cfnLimits.templateBodyBytes - 4_000, `template body ${body} bytes, with 4,000 to spare`);
      // With every reference at its longest (256 bytes, InstallUrl 1,024): about 14.5 KB once base64-encoded.
      for (const bound of userDataBounds(template))
        assert.ok(bound.base64 <= cfnLimits.userDataBytes - 1_000, `${bound.id}: ${bound.base64} bytes in base64`);
    }
  });

  it('names the title when a stack limit would be passed, among the checks the compiler runs before writing', () => {
    const useCase = loadUseCase('postgres');
    assert.deepEqual(stackLimitViolations(useCase), []);
    // A title the schema refuses (80 characters at most), for the check behind it.
    const long = { ...useCase, title: 't'.repeat(2_000) };
    const found = controlPlaneStackViolations(useCase.controlPlane as ControlPlane, long);
    assert.deepEqual(
      found.map((violation) => violation.pointer),
      ['/title', '/title', '/title'],
    );
    assert.match(found[0]?.message ?? '', /^the description of the control plane stack would be 2\d{3} bytes, /);
    for (const [index, id] of ['ControllerLaunchTemplate', 'RelayLaunchTemplate'].entries())
      assert.match(
        found[index + 1]?.message ?? '',
        new RegExp(`^the user data of ${id} could reach \\d+ bytes once base64-encoded, over EC2's limit of 16384`),
      );
    const compiler = stackLimitViolations(long).map((violation) => violation.message);
    for (const violation of found) assert.ok(compiler.includes(violation.message), violation.message);
  });

  it('is compiled for a manifest that asks for a control plane, and only then', () => {
    const lines = ['usecase: db', 'title: A database', 'outlet: { to: "db:5432" }', 'inlet: { port: 15432 }'];
    const paths = (text: string) =>
      compileUseCase(manifestProblems('m.yaml', text).manifest as UseCaseManifest).map((file) => file.path);
    assert.ok(!paths(`${lines.join('\n')}\n`).includes('control-plane/stack.yaml'));
    const withPlane = `${lines.join('\n')}\ncontrol-plane: { address: portal.example.net, relays: 3 }\n`;
    assert.ok(paths(withPlane).includes('control-plane/stack.yaml'));
    const useCase = resolveUseCase(manifestProblems('m.yaml', withPlane).manifest as UseCaseManifest);
    assert.equal(
      Object.keys(controlPlaneStack(useCase.controlPlane as ControlPlane, useCase).Resources).filter((id) =>
        id.startsWith('RelayGroup'),
      ).length,
      3,
    );
  });
});
