import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compileUseCase } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import { parseCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { parseNodeConfig } from '../../src/node/config.ts';
import { formatProblem } from '../../src/shared/errors.ts';
import { outletPoolMax } from '../../src/shared/limits.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import { checkTemplate } from '../support/cfn-spec-check.ts';
import { declarationProblems, parseKubernetesFile, validatorProblems } from '../support/k8s-api-check.ts';
import { projectRoot } from '../support/usecases.ts';

const head = ['usecase: db', 'title: A database'];
const single = [...head, 'outlet:', '  to: db.internal:5432', 'inlet:', '  port: 15432'];
const pool = (replicas: number, ...more: string[]) => [
  ...head,
  'outlet:',
  '  to: db.internal:5432',
  `  replicas: ${replicas}`,
  'inlet:',
  '  port: 15432',
  ...more,
];

function problems(lines: readonly string[]): string[] {
  return manifestProblems('m.yaml', `${lines.join('\n')}\n`).problems.map((p) => `${p.pointer}: ${p.message}`);
}

function artifacts(lines: readonly string[]): Map<string, string> {
  const result = manifestProblems('m.yaml', `${lines.join('\n')}\n`);
  assert.deepEqual(result.problems.map(formatProblem), []);
  const files = compileUseCase(result.manifest as UseCaseManifest);
  return new Map(files.map((file) => [file.path, file.content]));
}

const textOf = (files: Map<string, string>, path: string): string => {
  const text = files.get(path);
  assert.ok(text !== undefined, `${path} is compiled`);
  return text;
};

interface ComposeFile {
  services: Record<string, { container_name: string; command: string[]; volumes: string[] }>;
  volumes: Record<string, unknown>;
}

interface Stack {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  Outputs: Record<string, { Value: unknown }>;
}

/** The boot script of a launch template, as written in the stack (before Fn::Sub). */
function bootScriptOf(stack: Stack, launchTemplate: string): string {
  const data = stack.Resources[launchTemplate]?.Properties.LaunchTemplateData as {
    UserData: { 'Fn::Base64': { 'Fn::Sub': string | [string, unknown] } };
  };
  const sub = data.UserData['Fn::Base64']['Fn::Sub'];
  return typeof sub === 'string' ? sub : sub[0];
}

describe('outlet replicas: a pool of outlets from a manifest (outlet.replicas)', () => {
  it('allows as many replicas as a pool holds, and no more', () => {
    const schema = JSON.parse(readFileSync(join(projectRoot, 'schemas/manifest.schema.json'), 'utf8')) as {
      definitions: { outlet: { properties: { replicas: { maximum: number } } } };
    };
    assert.equal(schema.definitions.outlet.properties.replicas.maximum, outletPoolMax);
    assert.deepEqual(problems(pool(outletPoolMax)), []);
    assert.deepEqual(problems(pool(outletPoolMax + 1)), [
      `/outlet/replicas: ${outletPoolMax + 1} is out of range; expected a whole number from 1 to ${outletPoolMax}`,
    ]);
  });

  it('issues one outlet ticket for every replica, and refuses a usage count that cannot enroll them all', () => {
    assert.match(textOf(artifacts(pool(3)), 'tickets.sh'), / --usage-count 3 --attribute db-outlet --relay db /);
    assert.match(textOf(artifacts(single), 'tickets.sh'), / --usage-count 1 --attribute db-outlet --relay db /);
    assert.deepEqual(problems(pool(3, 'tickets:', '  outlet:', '    usage-count: 2')), [
      '/tickets/outlet/usage-count: the outlet ticket allows 2 enrollments but outlet.replicas asks for 3 outlets, ' +
        'each enrolled with it; raise usage-count to 3 or remove it',
    ]);
    assert.deepEqual(problems(pool(3, 'tickets:', '  outlet:', '    usage-count: 5')), []);
  });

  it('takes replicas beside portals, and refuses status ports past 65535 or on a target of the same machine', () => {
    assert.deepEqual(
      problems([
        ...head,
        'outlet: { replicas: 2 }',
        'portals:',
        '  - { name: a, outlet: { to: "localhost:2" }, inlet: { port: 10002 } }',
      ]),
      [],
    );
    assert.deepEqual(problems(pool(2, 'status-port: 65535')), [
      "/outlet/replicas: the compose outlets' status servers would listen on ports 65535 to 65536, beyond 65535; " +
        'choose a lower status-port',
    ]);
    assert.deepEqual(problems([...pool(2).map((line) => line.replace('db.internal:5432', 'localhost:23346'))]), [
      "/outlet/to: the outlet's target listens on port 23346 of the same machine, where an outlet replica's " +
        'status server listens (status-port + replica - 1); choose another status-port',
    ]);
  });

  it('compose: one service per replica, each with its own container, keys volume and status port', () => {
    const compose = parse(textOf(artifacts(pool(3)), 'outlet.compose.yaml')) as ComposeFile;
    assert.deepEqual(Object.keys(compose.services), ['node-1', 'node-2', 'node-3']);
    assert.deepEqual(Object.keys(compose.volumes), ['portal-keys-1', 'portal-keys-2', 'portal-keys-3']);
    const services = Object.values(compose.services);
    assert.deepEqual(
      services.map((service) => service.container_name),
      ['db-outlet-1', 'db-outlet-2', 'db-outlet-3'],
    );
    assert.deepEqual(
      services.map((service) => service.volumes),
      [1, 2, 3].map((replica) => [`portal-keys-${replica}:/var/lib/portal-keys`]),
    );
    const configs = services.map((service) => parseNodeConfig(service.container_name, service.command.at(-1) ?? ''));
    assert.deepEqual(
      configs.map((config) => config['http-server-port']),
      [23345, 23346, 23347],
    );
    const portals = configs.map(({ 'http-server-port': _, ...rest }) => JSON.stringify(rest));
    assert.equal(new Set(portals).size, 1, 'the same portals');
    const one = parse(textOf(artifacts(single), 'outlet.compose.yaml')) as ComposeFile;
    assert.deepEqual(Object.keys(one.services), ['node'], 'a single outlet keeps its one service');
  });

  it('Kubernetes: a StatefulSet with a claim per pod and a PodDisruptionBudget, valid to the API', () => {
    const objects = parseKubernetesFile(textOf(artifacts(pool(2)), 'k8s/outlet.yaml'));
    assert.deepEqual(
      objects.map((object) => `${object.apiVersion} ${object.kind}`),
      ['v1 ConfigMap', 'v1 Service', 'apps/v1 StatefulSet', 'policy/v1 PodDisruptionBudget'],
    );
    assert.deepEqual(objects.flatMap(validatorProblems), []);
    assert.deepEqual(declarationProblems(objects), []);
    const set = objects.find((object) => object.kind === 'StatefulSet') as unknown as {
      spec: {
        replicas: number;
        serviceName: string;
        podManagementPolicy: string;
        volumeClaimTemplates: { metadata: { name: string } }[];
        template: { spec: { volumes: { name: string }[]; containers: { volumeMounts: { name: string }[] }[] } };
      };
    };
    assert.equal(set.spec.replicas, 2);
    assert.equal(set.spec.serviceName, 'db-outlet');
    assert.equal(set.spec.podManagementPolicy, 'Parallel');
    assert.deepEqual(
      set.spec.volumeClaimTemplates.map((claim) => claim.metadata.name),
      ['state'],
    );
    const podVolumes = set.spec.template.spec.volumes.map((volume) => volume.name);
    assert.ok(!podVolumes.includes('state'), 'each pod has its own claim, not a shared one');
    const mounts = set.spec.template.spec.containers[0]?.volumeMounts.map((mount) => mount.name) ?? [];
    assert.ok(mounts.includes('state'), 'the node mounts its claim as its state');
    const budget = objects.find((object) => object.kind === 'PodDisruptionBudget') as unknown as {
      spec: { maxUnavailable: number; selector: { matchLabels: Record<string, string> } };
    };
    assert.equal(budget.spec.maxUnavailable, 1);
    assert.equal(budget.spec.selector.matchLabels['app.kubernetes.io/instance'], 'db-outlet');
  });

  it('stack: each replica a group of one machine, tagged with its number, valid to CloudFormation', () => {
    const stack = parseCfnYaml(textOf(artifacts(pool(3)), 'outlet.stack.yaml')) as Stack;
    assert.deepEqual(checkTemplate(stack as never), []);
    const groups = Object.entries(stack.Resources).filter(([, r]) => r.Type === 'AWS::AutoScaling::AutoScalingGroup');
    assert.deepEqual(
      groups.map(([id]) => id),
      ['NodeAutoScalingGroup', 'NodeAutoScalingGroup2', 'NodeAutoScalingGroup3'],
    );
    for (const [index, [group, resource]] of groups.entries()) {
      assert.deepEqual((resource.Properties.LaunchTemplate as { LaunchTemplateId: unknown }).LaunchTemplateId, {
        Ref: 'NodeLaunchTemplate',
      });
      assert.equal(resource.Properties.DesiredCapacity, '1');
      assert.deepEqual(
        (resource.Properties.Tags as { Key: string; Value: string; PropagateAtLaunch: boolean }[]).find(
          (tag) => tag.Key === 'PortalReplica',
        ),
        { Key: 'PortalReplica', Value: String(index + 1), PropagateAtLaunch: true },
      );
      assert.ok(stack.Outputs[`${group}Name`], `an output names ${group}`);
    }
    // The tag is read through the API (tags in the instance metadata would refuse some tag keys).
    const data = stack.Resources.NodeLaunchTemplate?.Properties.LaunchTemplateData as {
      MetadataOptions: Record<string, string>;
    };
    assert.deepEqual(data.MetadataOptions, { HttpTokens: 'required' });
    const policies = stack.Resources.NodeRole?.Properties.Policies as { PolicyName: string; PolicyDocument: unknown }[];
    assert.deepEqual(policies.find((policy) => policy.PolicyName === 'read-replica-tag')?.PolicyDocument, {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'ec2:DescribeTags', Resource: '*' }],
    });
    assert.match(bootScriptOf(stack, 'NodeLaunchTemplate'), /^ {2}NODE_HOME=\$STATE_DIR\/replica-\$REPLICA$/m);
    // Every replica reports: the alarm is red as soon as one stops reporting UP.
    const alarm = stack.Resources.NodeDownAlarm?.Properties as { Threshold: number; AlarmDescription: string };
    assert.equal(alarm.Threshold, 3);
    assert.match(alarm.AlarmDescription, /^Red when fewer than the 3 replicas of the pool/);
    const one = parseCfnYaml(textOf(artifacts(single), 'outlet.stack.yaml')) as Stack;
    assert.match(bootScriptOf(one, 'NodeLaunchTemplate'), /^NODE_HOME=\$STATE_DIR$/m);
    assert.equal(Object.keys(one.Resources).filter((id) => id.startsWith('NodeAutoScalingGroup')).length, 1);
    assert.equal((one.Resources.NodeDownAlarm?.Properties as { Threshold: number }).Threshold, 1);
  });

  it('the guide says the outlet is a pool, and how each target runs and checks its replicas', () => {
    const guide = textOf(artifacts(pool(2)), 'README.md');
    assert.match(guide, /\| Nodes \| a pool of 2 outlets \| one \|/);
    assert.match(guide, /^docker exec db-outlet-1 portal node show\ndocker exec db-outlet-2 portal node show$/m);
    assert.match(guide, /^kubectl exec db-outlet-0 -- portal node show$/m);
    assert.match(guide, /^kubectl delete pvc -l app\.kubernetes\.io\/instance=db-outlet$/m);
    assert.match(guide, /Run it on each of the 2 machines of the outlet's pool\./);
    assert.doesNotMatch(textOf(artifacts(single), 'README.md'), /pool/);
  });
});
