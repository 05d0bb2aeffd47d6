import assert from 'node:assert/strict';
import { kubernetesArtifacts } from '../../src/compile/k8s/kubernetes.ts';
import {
  declarationProblems,
  parseKubernetesFile,
  validatorProblems,
  type KubernetesObjectLike,
} from '../support/k8s-api-check.ts';

/** The inlet file of a one-portal use case, parsed: a Deployment and a Service to break. */
function inletObjects(): KubernetesObjectLike[] {
  const [, inlet] = kubernetesArtifacts({
    usecase: 'db',
    title: 'A database',
    image: 'portal-node',
    logLevel: 'info',
    outlet: { config: { relay: 'db', 'tcp-outlet': { to: 'db.internal:5432', allow: 'db-inlet' } }, endpoints: [] },
    inlet: {
      config: { 'tcp-inlet': { from: '0.0.0.0:15432', via: 'db', allow: 'db-outlet' } },
      ports: [{ name: 'db', port: 15432 }],
    },
  });
  return parseKubernetesFile(inlet?.content ?? '');
}

function objectOfKind(kind: string): KubernetesObjectLike {
  const found = inletObjects().find((object) => object.kind === kind);
  assert.ok(found, `the inlet file has a ${kind}`);
  return found;
}

/** The value at `path` of `object`, which must exist. */
function at(object: unknown, path: readonly (string | number)[]): Record<string, unknown> {
  const value = path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], object);
  assert.ok(value && typeof value === 'object', `${path.join('.')} is an object`);
  return value as Record<string, unknown>;
}

const nodeContainerPath = ['spec', 'template', 'spec', 'containers', 0];

describe('the Kubernetes API check refuses what the API server would', function () {
  // The declaration check starts the TypeScript checker on kubernetes-models' declarations.
  this.timeout(20_000);

  it('accepts the objects as emitted', () => {
    const objects = inletObjects();
    assert.deepEqual(objects.flatMap(validatorProblems), []);
    assert.deepEqual(declarationProblems(objects), []);
  });

  it('refuses a port given as a string', () => {
    const deployment = objectOfKind('Deployment');
    at(deployment, [...nodeContainerPath, 'ports', 0]).containerPort = '15432';
    assert.deepEqual(validatorProblems(deployment), [
      'Deployment/db-inlet: data/spec/template/spec/containers/0/ports/0/containerPort must be integer',
    ]);
    const [problem, ...more] = declarationProblems([deployment]);
    assert.equal(more.length, 0);
    assert.match(problem ?? '', /^Deployment\/db-inlet: Type 'string' is not assignable to type 'number'/);
  });

  it('refuses a field the API does not have, at any depth (a misspelt runAsNonRoot)', () => {
    const deployment = objectOfKind('Deployment');
    const context = at(deployment, [...nodeContainerPath, 'securityContext']);
    delete context.runAsNonRoot;
    context.runAsNonRot = true;
    const [problem, ...more] = declarationProblems([deployment]);
    assert.equal(more.length, 0);
    assert.match(problem ?? '', /'"?runAsNonRot"?' does not exist in type 'ISecurityContext'/);
  });

  it('refuses a value outside its enumeration and a missing required field', () => {
    const service = objectOfKind('Service');
    at(service, ['spec', 'ports', 0]).protocol = 'TCPX';
    assert.match(
      validatorProblems(service).join('\n'),
      /data\/spec\/ports\/0\/protocol must be equal to one of the allowed values/,
    );
    const deployment = objectOfKind('Deployment');
    delete at(deployment, ['spec']).selector;
    assert.match(validatorProblems(deployment).join('\n'), /data\/spec must have required property '?selector'?/);
    assert.match(declarationProblems([deployment]).join('\n'), /Property '"selector"' is missing/);
  });

  it('refuses a kind it does not know rather than passing it unchecked', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db-inlet-ticket' } };
    assert.deepEqual(validatorProblems(secret), ['Secret/db-inlet-ticket: v1 Secret is not a kind this check knows']);
    assert.deepEqual(declarationProblems([secret]), ['Secret/db-inlet-ticket: unknown kind']);
  });
});
