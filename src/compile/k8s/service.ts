/**
 * The inlet's Service: one named port per portal, each to the container port of the same name, so
 * clients in the cluster reach the portals at <usecase>-inlet:<port>. ClusterIP: exposing a portal
 * outside the cluster is the administrator's choice (a LoadBalancer or an Ingress of their own). Pure.
 */
import type { IService } from 'kubernetes-models/v1/Service';
import type { KubernetesDocument } from './document.ts';
import type { NamedPort } from './inlet-ports.ts';
import { nodeLabels, objectNames, selectorLabels } from './names.ts';

export function inletService(usecase: string, ports: readonly NamedPort[]): KubernetesDocument {
  const object: IService = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: objectNames(usecase, 'inlet').node, labels: nodeLabels(usecase, 'inlet') },
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(usecase, 'inlet'),
      ports: ports.map(({ name, port }) => ({ name, port, targetPort: name, protocol: 'TCP' })),
    },
  };
  return { object, comment: ['Where clients in the cluster reach the portals: the inlet node, while it is UP.'] };
}
