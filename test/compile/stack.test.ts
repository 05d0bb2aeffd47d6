import assert from 'node:assert/strict';
import { parseCfnYaml, printCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { nodeStack } from '../../src/compile/stack/stack.ts';
import { builtInLogicalIds, portalIds } from '../../src/compile/stack/context.ts';
import { outletConfig, stackInletConfig } from '../../src/compile/node-config.ts';
import type { NodeConfig } from '../../src/shared/types/node-config.ts';
import { checkTemplate, specificationVersion } from '../support/cfn-spec-check.ts';
import { allUseCases, artifactText } from '../support/usecases.ts';
import { loadUseCase } from './resolved-use-cases.ts';

type Template = {
  Parameters: Record<string, Record<string, unknown>>;
  Resources: Record<
    string,
    {
      Type: string;
      Properties: Record<string, unknown>;
      DependsOn?: string[];
      DeletionPolicy?: string;
      UpdateReplacePolicy?: string;
    }
  >;
  Outputs: Record<string, { Description?: string; Value?: unknown }>;
  Metadata: Record<string, unknown>;
};

function stack(usecase: string, role: 'outlet' | 'inlet'): Template {
  return parseCfnYaml(artifactText(usecase, `${role}.stack.yaml`)) as Template;
}

function resourcesOfType(template: Template, type: string) {
  return Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
}

describe('CloudFormation stacks', () => {
  for (const usecase of allUseCases) {
    for (const role of ['outlet', 'inlet'] as const) {
      describe(`${usecase} ${role}`, () => {
        it(`conforms to the CloudFormation resource specification (${specificationVersion})`, () => {
          assert.deepEqual(checkTemplate(stack(usecase, role)), []);
        });

        it('parses back to the same object it was printed from', () => {
          const manifest = loadUseCase(usecase);
          const config = role === 'outlet' ? outletConfig(manifest) : stackInletConfig(manifest);
          const built = nodeStack(manifest, role, config);
          assert.deepEqual(parseCfnYaml(printCfnYaml(built)), JSON.parse(JSON.stringify(built)));
          assert.match(printCfnYaml(built), /!Ref VpcId/, 'intrinsics are printed in short form');
        });

        it('takes the parameters of spec 2.3 with their AWS types', () => {
          const { Parameters } = stack(usecase, role);
          assert.equal(Parameters.VpcId?.Type, 'AWS::EC2::VPC::Id');
          assert.equal(Parameters.SubnetId?.Type, 'AWS::EC2::Subnet::Id');
          assert.equal(Parameters.EnrollmentTicket?.NoEcho, true);
          assert.equal(Parameters.EnrollmentTicket?.Default, undefined, 'a ticket is never defaulted');
          assert.match(
            String(Parameters.EnrollmentTicket?.Description),
            new RegExp(`^Contents of ${role}\\.ticket`),
            'each stack takes its own ticket',
          );
          // The outlet's is outlet.json; the inlet stack's listens wider than inlet.json, behind its security group.
          assert.deepEqual(
            JSON.parse(String(Parameters.JSONNodeConfig?.Default)),
            role === 'outlet'
              ? JSON.parse(artifactText(usecase, 'outlet.json'))
              : JSON.parse(JSON.stringify(stackInletConfig(loadUseCase(usecase)))),
          );
          const labels = (
            stack(usecase, role).Metadata['AWS::CloudFormation::Interface'] as {
              ParameterLabels: Record<string, { default: string }>;
            }
          ).ParameterLabels;
          assert.equal(labels.JSONNodeConfig?.default, 'JSON Node Configuration');
          assert.equal(labels.InstanceType?.default, 'EC2 Instance Type');
        });

        it('keeps one machine alive with its state on a file system in the subnet', () => {
          const template = stack(usecase, role);
          const [[, group] = []] = resourcesOfType(template, 'AWS::AutoScaling::AutoScalingGroup');
          assert.ok(group, 'an autoscaling group');
          assert.equal(group.Properties.MinSize, '1');
          assert.deepEqual(group.Properties.VPCZoneIdentifier, [{ Ref: 'SubnetId' }]);
          assert.ok(
            group.DependsOn?.includes('StateMountTarget'),
            'the machine starts after its file system is mountable',
          );
          const [[, mountTarget] = []] = resourcesOfType(template, 'AWS::EFS::MountTarget');
          assert.deepEqual(mountTarget?.Properties.SubnetId, { Ref: 'SubnetId' });
          assert.equal(resourcesOfType(template, 'AWS::EFS::FileSystem').length, 1);
          const [[, launchTemplate] = []] = resourcesOfType(template, 'AWS::EC2::LaunchTemplate');
          const data = launchTemplate?.Properties.LaunchTemplateData as Record<string, unknown>;
          assert.deepEqual(data.IamInstanceProfile, { Arn: { 'Fn::GetAtt': ['NodeInstanceProfile', 'Arn'] } });
          assert.deepEqual(data.MetadataOptions, { HttpTokens: 'required' });
        });

        it('names the status log group and the node-down alarm after the stack', () => {
          const template = stack(usecase, role);
          const [[logGroupId, logGroup] = []] = resourcesOfType(template, 'AWS::Logs::LogGroup');
          assert.deepEqual(logGroup?.Properties.LogGroupName, { 'Fn::Sub': '${AWS::StackName}-status-logs' });
          const [[, filter] = []] = resourcesOfType(template, 'AWS::Logs::SubscriptionFilter');
          assert.deepEqual(filter?.Properties.LogGroupName, { Ref: logGroupId });
          assert.equal(filter?.Properties.FilterPattern, '"The node is UP"');
          const [[, alarm] = []] = resourcesOfType(template, 'AWS::CloudWatch::Alarm');
          assert.deepEqual(alarm?.Properties.AlarmName, { 'Fn::Sub': '${AWS::StackName}-NodeDownAlarm' });
          assert.equal(alarm?.Properties.MetricName, 'NodeUp');
          assert.equal(alarm?.Properties.TreatMissingData, 'breaching', 'no status lines means the node is down');
        });

        it('gives the machine session-manager access and egress to the internet', () => {
          const template = stack(usecase, role);
          const role_ = template.Resources.NodeRole;
          assert.deepEqual(role_?.Properties.ManagedPolicyArns, [
            { 'Fn::Sub': 'arn:${AWS::Partition}:iam::aws:policy/AmazonSSMManagedInstanceCore' },
          ]);
          const egress = template.Resources.NodeSecurityGroup?.Properties.SecurityGroupEgress;
          assert.deepEqual(egress, [
            {
              IpProtocol: '-1',
              CidrIp: '0.0.0.0/0',
              Description: 'The node dials out to the controller and its target',
            },
          ]);
          assert.equal(
            template.Resources.NodeSecurityGroup?.Properties.SecurityGroupIngress,
            undefined,
            'nothing dials in',
          );
        });
      });
    }
  }

  it('uses the default instance types of spec 8', () => {
    const defaults = Object.fromEntries(
      allUseCases.map((usecase) => [usecase, stack(usecase, 'outlet').Parameters.InstanceType?.Default]),
    );
    assert.deepEqual(defaults, {
      api: 'm6a.large',
      bedrock: 'm6a.large',
      postgres: 'm6a.8xlarge',
      redis: 'm6a.large',
      shop: 'm6a.large',
      warehouse: 'm6a.large',
      webhook: 'm6a.8xlarge',
    });
    assert.match(
      String(stack('redis', 'outlet').Parameters.InstanceType?.Description),
      /^EC2 instance type of the node; default m6a\.large\.$/,
      'the general default, m6a.large, when the manifest names none',
    );
    assert.equal(stack('postgres', 'inlet').Parameters.InstanceType?.Default, 'm6a.8xlarge');
    assert.match(String(stack('warehouse', 'outlet').Parameters.InstanceType?.Description), /m6a\.8xlarge, t3\.medium/);
  });

  it('asks warehouse and PostgreSQL outlets for the endpoint, in the form each takes', () => {
    const warehouse = stack('warehouse', 'outlet').Parameters.RedshiftEndpoint;
    const postgres = stack('postgres', 'outlet').Parameters.PostgresEndpoint;
    const pattern = (parameter: Record<string, unknown> | undefined) => new RegExp(String(parameter?.AllowedPattern));
    assert.ok(pattern(warehouse).test('wh.abc.us-east-1.redshift.amazonaws.com:5439'));
    assert.ok(
      !pattern(warehouse).test('wh.abc.us-east-1.redshift.amazonaws.com:5439/dev'),
      'a trailing /<database_name> is refused',
    );
    assert.ok(pattern(postgres).test('db.abc.us-east-1.rds.amazonaws.com'));
    assert.ok(
      !pattern(postgres).test('db.abc.us-east-1.rds.amazonaws.com:5432'),
      'the port is appended by the configuration',
    );
    for (const usecase of allUseCases) {
      const endpointParameters = Object.keys(stack(usecase, 'inlet').Parameters).filter((id) =>
        id.endsWith('Endpoint'),
      );
      assert.deepEqual(endpointParameters, [], `${usecase} inlet takes no endpoint`);
    }
  });

  it(
    'creates the runtime private endpoint, sharing the node group with ingress inside it, ' +
      'for the bedrock outlet only',
    () => {
      const bedrock = stack('bedrock', 'outlet');
      const [[id, endpoint] = []] = resourcesOfType(bedrock, 'AWS::EC2::VPCEndpoint');
      assert.deepEqual(endpoint?.Properties.ServiceName, { 'Fn::Sub': 'com.amazonaws.${AWS::Region}.bedrock-runtime' });
      assert.deepEqual(endpoint?.Properties.SecurityGroupIds, [{ Ref: 'NodeSecurityGroup' }]);
      assert.ok(bedrock.Resources.NodeAutoScalingGroup?.DependsOn?.includes(id as string));
      const [[, ingress] = []] = resourcesOfType(bedrock, 'AWS::EC2::SecurityGroupIngress');
      assert.deepEqual(ingress?.Properties.SourceSecurityGroupId, { Ref: 'NodeSecurityGroup' });
      for (const usecase of allUseCases) {
        for (const role of ['outlet', 'inlet'] as const) {
          if (usecase === 'bedrock' && role === 'outlet') continue;
          assert.equal(resourcesOfType(stack(usecase, role), 'AWS::EC2::VPCEndpoint').length, 0, `${usecase} ${role}`);
          const ingress = resourcesOfType(stack(usecase, role), 'AWS::EC2::SecurityGroupIngress').map(
            ([logicalId]) => logicalId,
          );
          const clients = loadUseCase(usecase).portals.map((portal) => `NodeClientIngress${portal.idPart}`);
          assert.deepEqual(ingress, role === 'inlet' ? [...clients, 'NodeDirectIngress'] : [], `${usecase} ${role}`);
        }
      }
    },
  );

  it('opens the inlet port only to a client network the administrator names', () => {
    const inlet = stack('postgres', 'inlet');
    assert.equal(inlet.Parameters.ClientCidr?.Default, '');
    const ingress = inlet.Resources.NodeClientIngress as { Condition?: string; Properties: Record<string, unknown> };
    assert.equal(ingress.Condition, 'HasClientNetwork');
    assert.deepEqual(ingress.Properties, {
      GroupId: { Ref: 'NodeSecurityGroup' },
      IpProtocol: 'tcp',
      FromPort: 15432,
      ToPort: 15432,
      CidrIp: { Ref: 'ClientCidr' },
      Description: 'Clients of the inlet',
    });
    assert.deepEqual((inlet as unknown as { Conditions: Record<string, unknown> }).Conditions.HasClientNetwork, {
      'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'ClientCidr' }, ''] }],
    });
    assert.equal(stack('postgres', 'outlet').Parameters.ClientCidr, undefined);
  });

  it("opens the inlet's direct path, TCP 4200, only to an outlet network the administrator names", () => {
    for (const usecase of allUseCases.filter((name) => !loadUseCase(name).listed)) {
      const inlet = stack(usecase, 'inlet') as Template & {
        Conditions: Record<string, unknown>;
        Resources: Record<string, { Condition?: string }>;
      };
      const parameter = inlet.Parameters.OutletCidr;
      assert.equal(parameter?.Type, 'String');
      assert.equal(parameter?.Default, '', `${usecase}: closed unless named`);
      assert.equal(
        parameter?.Description,
        "Network (CIDR) the outlet dials the inlet's direct path from, on TCP 4200. " +
          'Empty: nothing is opened and the relay carries the portal.',
      );
      const pattern = new RegExp(String(parameter?.AllowedPattern));
      for (const good of ['', '10.0.0.0/16', '192.168.1.7/32']) assert.ok(pattern.test(good), good);
      for (const bad of ['0.0.0.0', '10.0.0.0/16 ', 'sg-123', '10.0.0.0/16,10.1.0.0/16'])
        assert.ok(!pattern.test(bad), bad);
      assert.deepEqual(inlet.Conditions.HasOutletNetwork, {
        'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'OutletCidr' }, ''] }],
      });
      const ingress = inlet.Resources.NodeDirectIngress;
      assert.equal(ingress?.Type, 'AWS::EC2::SecurityGroupIngress');
      assert.equal(ingress?.Condition, 'HasOutletNetwork', 'no rule at all when OutletCidr is empty');
      assert.deepEqual(ingress?.Properties, {
        GroupId: { Ref: 'NodeSecurityGroup' },
        IpProtocol: 'tcp',
        FromPort: 4200,
        ToPort: 4200,
        CidrIp: { Ref: 'OutletCidr' },
        Description: 'Outlets dialling the direct path of the inlet',
      });
      // The rule opens the very port the node configuration listens on.
      const config = JSON.parse(String(inlet.Parameters.JSONNodeConfig?.Default)) as {
        'tcp-inlet': { direct: string };
      };
      assert.equal(config['tcp-inlet'].direct, `0.0.0.0:${String(ingress?.Properties.FromPort)}`);
      const interfaceMetadata = inlet.Metadata['AWS::CloudFormation::Interface'] as {
        ParameterGroups: { Label: { default: string }; Parameters: string[] }[];
        ParameterLabels: Record<string, { default: string }>;
      };
      assert.deepEqual(interfaceMetadata.ParameterGroups[0]?.Parameters, [
        'VpcId',
        'SubnetId',
        'ClientCidr',
        'OutletCidr',
      ]);
      assert.equal(interfaceMetadata.ParameterLabels.OutletCidr?.default, 'Outlet network');
      const outlet = stack(usecase, 'outlet') as Template & { Conditions?: Record<string, unknown> };
      assert.equal(outlet.Parameters.OutletCidr, undefined, `${usecase}: the outlet dials; nothing to open`);
      assert.equal(outlet.Resources.NodeDirectIngress, undefined);
      assert.equal(outlet.Conditions?.HasOutletNetwork, undefined);
    }
  });

  it(
    'opens no direct port when the inlet configuration names none (true: a system-chosen port; ' +
      'false: relays only)',
    () => {
      const manifest = loadUseCase('postgres');
      for (const direct of [true, false, '0.0.0.0:0']) {
        const config = stackInletConfig(manifest);
        const inlet = { ...config, 'tcp-inlet': { ...config['tcp-inlet'], direct } } as NodeConfig;
        const template = nodeStack(manifest, 'inlet', inlet);
        assert.equal(template.Parameters.OutletCidr, undefined, String(direct));
        assert.equal(template.Resources.NodeDirectIngress, undefined, String(direct));
        assert.equal(template.Conditions?.HasOutletNetwork, undefined, String(direct));
        assert.deepEqual(checkTemplate(JSON.parse(JSON.stringify(template)) as Template), [], String(direct));
      }
      const config = stackInletConfig(manifest);
      const elsewhere = nodeStack(manifest, 'inlet', {
        ...config,
        'tcp-inlet': { ...config['tcp-inlet'], direct: '10.0.0.5:9400' },
      } as NodeConfig);
      assert.equal(
        (elsewhere.Resources.NodeDirectIngress?.Properties as { FromPort: number }).FromPort,
        9400,
        'the rule follows the configured port',
      );
    },
  );

  it('completes only when the boot script signals that the node is up', () => {
    for (const usecase of allUseCases) {
      const group = stack(usecase, 'outlet').Resources.NodeAutoScalingGroup as unknown as { CreationPolicy: unknown };
      assert.deepEqual(group.CreationPolicy, { ResourceSignal: { Count: 1, Timeout: 'PT20M' } });
    }
  });

  it('hands the ticket to the machine through a secret only its role may read', () => {
    const template = stack('postgres', 'outlet');
    assert.deepEqual(template.Resources.EnrollmentTicketSecret?.Properties.SecretString, { Ref: 'EnrollmentTicket' });
    const policies = template.Resources.NodeRole?.Properties.Policies as {
      PolicyName: string;
      PolicyDocument: { Statement: unknown[] };
    }[];
    const read = policies.find((policy) => policy.PolicyName === 'read-enrollment-ticket');
    assert.deepEqual(read?.PolicyDocument.Statement, [
      { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: { Ref: 'EnrollmentTicketSecret' } },
    ]);
  });

  it('lists every logical id it defines among the names an endpoint parameter may not take', () => {
    for (const usecase of allUseCases) {
      for (const role of ['outlet', 'inlet'] as const) {
        const template = stack(usecase, role);
        const useCase = loadUseCase(usecase);
        const endpointParameters = useCase.portals.map((portal) => portal.outlet.endpoint?.parameter);
        const perPortal = useCase.portals.flatMap((portal) => Object.values(portalIds).map((id) => id(portal.idPart)));
        const defined = [...Object.keys(template.Parameters), ...Object.keys(template.Resources)].filter(
          (id) => !endpointParameters.includes(id) && !perPortal.includes(id),
        );
        assert.deepEqual(
          defined.filter((id) => !builtInLogicalIds.includes(id)),
          [],
          `${usecase} ${role}`,
        );
      }
    }
  });

  it(
    'keeps the file system with the node identity, ' +
      'its sealing-key secret and the status log group when the stack is deleted or replaces them',
    () => {
      for (const usecase of allUseCases) {
        for (const role of ['outlet', 'inlet'] as const) {
          const template = stack(usecase, role);
          const kept = Object.entries(template.Resources)
            .filter(
              ([, resource]) => resource.DeletionPolicy !== undefined || resource.UpdateReplacePolicy !== undefined,
            )
            .map(([id, resource]) => [id, resource.DeletionPolicy, resource.UpdateReplacePolicy]);
          assert.deepEqual(
            kept.sort(),
            [
              ['SealingKeySecret', 'Retain', 'Retain'],
              ['StateFileSystem', 'Retain', 'Retain'],
              ['StatusLogGroup', 'Retain', 'Retain'],
            ],
            `${usecase} ${role}`,
          );
        }
      }
    },
  );

  it("generates the node's sealing key in a secret of its own that only the node's role may read", () => {
    for (const role of ['outlet', 'inlet'] as const) {
      const template = stack('postgres', role);
      const secret = template.Resources.SealingKeySecret;
      assert.equal(secret?.Type, 'AWS::SecretsManager::Secret');
      const generated = secret?.Properties.GenerateSecretString as {
        PasswordLength: number;
        ExcludePunctuation: boolean;
      };
      assert.ok(generated.PasswordLength >= 48, 'well over the 32 characters the node needs');
      assert.equal(generated.ExcludePunctuation, true, 'letters and digits: no quoting anywhere it is copied');
      assert.equal(
        secret?.Properties.SecretString,
        undefined,
        'generated by Secrets Manager, not written in the template',
      );
      const policies = template.Resources.NodeRole?.Properties.Policies as {
        PolicyName: string;
        PolicyDocument: { Statement: unknown[] };
      }[];
      const read = policies.find((policy) => policy.PolicyName === 'read-sealing-key');
      assert.deepEqual(read?.PolicyDocument.Statement, [
        { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: { Ref: 'SealingKeySecret' } },
      ]);
      assert.deepEqual((template.Outputs as Record<string, { Value: unknown }>).SealingKeySecretArn?.Value, {
        Ref: 'SealingKeySecret',
      });
    }
  });

  it('is caught by the specification check when a template is wrong', () => {
    const template = structuredClone<Template>(stack('postgres', 'outlet'));
    Object.assign(template.Resources.StatusLogGroup as object, {
      DeletionPolicy: 'Snapshot',
      UpdateReplacePolicy: 'Keep',
    });
    (template.Resources.StateMountTarget as { Properties: Record<string, unknown> }).Properties = {
      FileSystemId: { Ref: 'Nowhere' },
      Colour: 'blue',
    };
    (template.Resources.NodeRole as { Properties: Record<string, unknown> }).Properties.Path = 7;
    template.Outputs.Broken = {
      Description: 'x',
      Value: { 'Fn::Sub': '${NodeLaunchTemplate.Colour} ${Missing} ${!Escaped}' },
    };
    const problems = checkTemplate(template);
    assert.ok(
      problems.includes('Resources.StateMountTarget.Properties: missing required property SubnetId'),
      problems.join('\n'),
    );
    assert.ok(
      problems.includes('Resources.StateMountTarget.Properties.Colour: unknown property of AWS::EFS::MountTarget'),
    );
    assert.ok(problems.includes('Resources.StateMountTarget.Properties.FileSystemId: Ref to unknown Nowhere'));
    assert.ok(problems.includes('Resources.NodeRole.Properties.Path: expected String, got 7'));
    assert.ok(
      problems.includes(
        'Outputs.Broken.Value ${NodeLaunchTemplate.Colour}: AWS::EC2::LaunchTemplate has no attribute Colour',
      ),
    );
    assert.ok(problems.includes('Outputs.Broken.Value ${Missing}: Ref to unknown Missing'));
    assert.ok(problems.includes('Resources.StatusLogGroup.DeletionPolicy: AWS::Logs::LogGroup cannot be snapshot'));
    assert.ok(problems.includes('Resources.StatusLogGroup.UpdateReplacePolicy: unknown policy Keep'));
    assert.equal(problems.length, 9, problems.join('\n'));
  });
});
