/**
 * What the controllers' and the relays' pods share with the nodes' (src/compile/k8s/): the image's
 * non-root user with every privilege dropped and a read-only root file system, no service account token
 * (they ask nothing of the Kubernetes API) and no service links (their environment is exactly the one
 * written), the drain after SIGTERM, the sealing key copied from its Secret to a memory volume as a file
 * of their own user with mode 0600, and replicas spread over the cluster's machines. Pure.
 */
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IServicePort } from 'kubernetes-models/v1/ServicePort';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { defaultDrainMs } from '../../shared/limits.ts';
import { stopWaitMs } from '../../shared/stop-wait.ts';
import { sealingKeyCopier, sealingKeyVolumes } from '../k8s/sealing-key.ts';
import { podSecurityContext } from '../k8s/security.ts';
import { planeLabels, planeSelector, type PlaneRole } from './k8s-names.ts';

export interface PlanePod {
  readonly role: PlaneRole;
  readonly image: string;
  /** Where its processes listen: a port below 1024 gets the sysctl that lets them bind it. */
  readonly listenPorts: readonly number[];
  /** The sealing key's Secret and key. */
  readonly sealingKey: { readonly name: string; readonly key: string };
  readonly containers: IPodSpec['containers'];
  readonly volumes: readonly IVolume[];
}

export function planePodSpec(pod: PlanePod): IPodSpec {
  return {
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: podSecurityContext(pod.listenPorts),
    // The process drains its connections after SIGTERM, and takes a margin to close.
    terminationGracePeriodSeconds: Math.ceil(stopWaitMs(defaultDrainMs) / 1000),
    // A machine's loss takes one replica, where the cluster has machines enough; it schedules them anyway.
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: planeSelector(pod.role) },
      },
    ],
    initContainers: [sealingKeyCopier(pod.image, pod.sealingKey.key)],
    containers: pod.containers,
    volumes: [...sealingKeyVolumes(pod.sealingKey.name, pod.sealingKey.key), ...pod.volumes],
  };
}

/**
 * A load balancer in front of `selector`. Local: the load balancer sends only to machines that run a
 * ready pod, and the pod sees each client's own address (the controllers' per-source limits and the
 * audit trail name it), rather than a machine's after one more hop.
 */
export function loadBalancer(
  name: string,
  role: PlaneRole,
  selector: Record<string, string>,
  port: IServicePort,
): IService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels: planeLabels(role) },
    spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', selector, ports: [port] },
  };
}
