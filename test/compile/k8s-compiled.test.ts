/**
 * Every bundled use case compiles to Kubernetes files that the API's validators take, whose inlet pod
 * serves exactly the compiled portals' ports on every interface, with its direct path off, and whose
 * outlet configuration is the one the other targets run.
 */
import assert from 'node:assert/strict';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import validateNodeConfig from '../../src/shared/validators/node-config.cjs';
import type { NodeConfig } from '../../src/shared/types/node-config.ts';
import { declarationProblems, parseKubernetesFile, validatorProblems } from '../support/k8s-api-check.ts';
import { allUseCases, artifactText, loadManifest } from '../support/usecases.ts';

const configurationIn = (text: string, role: string): NodeConfig => {
  const maps = parseKubernetesFile(text).filter((object) => object.kind === 'ConfigMap') as unknown as IConfigMap[];
  const found = maps.find((map) => map.data?.[`${role}.json`] !== undefined)?.data?.[`${role}.json`];
  assert.ok(found, `k8s/${role}.yaml has the ${role}'s configuration`);
  return JSON.parse(found) as NodeConfig;
};

describe('Kubernetes files of the bundled use cases', () => {
  for (const usecase of allUseCases) {
    describe(usecase, () => {
      const outlet = artifactText(usecase, 'k8s/outlet.yaml');
      const inlet = artifactText(usecase, 'k8s/inlet.yaml');

      it('passes the validators of the Kubernetes API schemas, field by field', function () {
        this.timeout(20_000);
        const objects = [...parseKubernetesFile(outlet), ...parseKubernetesFile(inlet)];
        assert.deepEqual(objects.flatMap(validatorProblems), []);
        assert.deepEqual(declarationProblems(objects), []);
      });

      it('runs the compiled outlet configuration, and an inlet on every interface with no direct path', () => {
        assert.deepEqual(configurationIn(outlet, 'outlet'), JSON.parse(artifactText(usecase, 'outlet.json')));
        const config = configurationIn(inlet, 'inlet');
        assert.equal(validateNodeConfig(config), true, JSON.stringify(validateNodeConfig.errors));
        const inlets = config['tcp-inlet'] ? [config['tcp-inlet']] : Object.values(config['tcp-inlets'] ?? {});
        const manifest = loadManifest(usecase);
        const ports = (manifest.portals ?? [manifest]).map((portal) => portal.inlet?.port);
        assert.deepEqual(
          inlets.map((entry) => [entry.from, entry.direct]).sort(),
          ports.map((port) => [`0.0.0.0:${port}`, false]).sort(),
        );
        const services = parseKubernetesFile(inlet).filter(
          (object) => object.kind === 'Service',
        ) as unknown as IService[];
        assert.deepEqual(
          services.flatMap((service) => service.spec?.ports?.map((port) => port.port) ?? []).sort(),
          [...ports].sort(),
        );
      });
    });
  }
});
