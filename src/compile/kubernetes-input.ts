/**
 * What the Kubernetes target needs of a use case (src/compile/k8s/kubernetes.ts): the outlet's compiled
 * configuration and the values of its placeholders, the inlet's configuration for a pod and the ports
 * its Service opens. An endpoint with no example starts empty in its ConfigMap: the node refuses to start
 * until the administrator sets it, and names the variable. Pure.
 */
import type { NodeConfig } from '../shared/types/node-config.ts';
import { compileDefaults } from './defaults.ts';
import type { KubernetesInput } from './k8s/kubernetes.ts';
import { endpointsOf, type UseCase } from './model.ts';
import { kubernetesInletConfig } from './node-config.ts';

export function kubernetesInput(useCase: UseCase, outletConfig: NodeConfig): KubernetesInput {
  const container = useCase.container ?? {};
  return {
    usecase: useCase.usecase,
    title: useCase.title,
    image: container.image ?? compileDefaults.containerImage,
    logLevel: container['log-level'] ?? 'info',
    outlet: {
      config: outletConfig,
      replicas: useCase.outletReplicas,
      endpoints: endpointsOf(useCase).map((endpoint) => ({
        placeholder: endpoint.placeholder,
        label: endpoint.label,
        example: endpoint.example ?? '',
      })),
    },
    inlet: {
      config: kubernetesInletConfig(useCase),
      ports: useCase.portals.map((portal) => ({ name: portal.name, port: portal.inlet.port })),
    },
  };
}
