/**
 * The node's pod runs as the image's numeric user, never as root, with no privilege to gain: every
 * capability dropped, no escalation, the runtime's default seccomp profile, and a read-only root file
 * system. The node writes only under PORTAL_HOME (its identity, certificates, relay list and runtime
 * file, on the state volume) and reads its sealing key and configuration from volumes of their own, so
 * nothing else needs to be writable. These satisfy the Pod Security Standards' "restricted" profile.
 * Pure.
 */
import type { IPodSecurityContext } from 'kubernetes-models/v1/PodSecurityContext';
import type { ISecurityContext } from 'kubernetes-models/v1/SecurityContext';
import { nodeUser } from './names.ts';

/** Below this port, binding needs a privilege the node does not have, unless the pod's sysctl lowers it. */
const firstUnprivilegedPort = 1024;

/**
 * The pod's context. fsGroup makes the state volume and the key Secret readable by the node's group;
 * OnRootMismatch spares a recursive ownership change of the state volume at every start. An inlet
 * serving a port below 1024 (such as 443) gets the namespaced sysctl that lets unprivileged processes
 * bind from that port up, rather than a capability: one added in a security context is not effective
 * for a non-root process, which gets no ambient capabilities.
 */
export function podSecurityContext(listenPorts: readonly number[]): IPodSecurityContext {
  const lowest = Math.min(...listenPorts);
  return {
    runAsUser: nodeUser,
    runAsGroup: nodeUser,
    runAsNonRoot: true,
    fsGroup: nodeUser,
    fsGroupChangePolicy: 'OnRootMismatch',
    seccompProfile: { type: 'RuntimeDefault' },
    ...(lowest < firstUnprivilegedPort
      ? { sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: String(lowest) }] }
      : {}),
  };
}

/** Every container's context, the init container's too. */
export const containerSecurityContext: ISecurityContext = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  privileged: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};
