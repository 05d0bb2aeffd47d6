/**
 * What the guide's Kubernetes section says (templates/guide-kubernetes.md.hbs): each node's Secrets and
 * objects by name, the portals whose target is the outlet pod itself, and the ports the inlet's Service
 * opens. Pure.
 */
import { isLoopbackHost } from '../shared/address.ts';
import { secretCommandWords } from './k8s/admin-commands.ts';
import { objectNames, type NodeRole } from './k8s/names.ts';
import type { UseCase } from './model.ts';

const hostOf = (to: string): string => to.slice(0, to.lastIndexOf(':'));

export function kubernetesGuide(useCase: UseCase) {
  const node = (role: NodeRole) => ({
    ...objectNames(useCase.usecase, role),
    ...secretCommandWords(useCase.usecase, role),
  });
  return {
    outlet: node('outlet'),
    inlet: node('inlet'),
    /** In a pod, localhost is the pod: such a target is a container beside the node, or a Service's name. */
    podTargets: useCase.portals
      .filter((portal) => isLoopbackHost(hostOf(portal.outlet.to)))
      .map((portal) => ({ name: portal.name, to: portal.outlet.to })),
    ports: useCase.portals.map((portal) => ({ name: portal.name, port: portal.inlet.port })),
  };
}
